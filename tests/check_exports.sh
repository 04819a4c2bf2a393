#!/bin/bash
# check_exports.sh HEADER LIB... — each shared library exports exactly kc.h's functions:
#   - its defined dynamic symbols are the KC_API functions the header declares, no more
#     (nothing of LLVM, libstdc++ or kcc's internals) and no fewer;
#   - it needs no libLLVM when the build carries LLVM inside (-Dllvm_static=true; say so
#     with KC_EXPECT_STATIC_LLVM=1; scripts/gpu.sh does, and compares the two builds).
# libkcrt lists the same functions (its compiler entry points refuse at run time).
set -u
HEADER=$1
shift
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# every function declared KC_API, declarations joined onto one line first (some span two)
declared() {
  tr '\n' ' ' <"$HEADER" | grep -oE 'KC_API[^;{}()]*\<kc_[A-Za-z0-9_]+ *\(' |
    grep -oE 'kc_[A-Za-z0-9_]+ *\($' | tr -d ' (' | sort -u
}
exported() { nm -D --defined-only "$1" | awk '{ print $NF }' | sed 's/@.*//' | sort -u; }

want=$(declared)
n=$(echo "$want" | grep -c .)
[ "$n" -gt 50 ] || fail "found only $n KC_API functions in $HEADER"
for lib in "$@"; do
  got=$(exported "$lib")
  extra=$(comm -13 <(echo "$want") <(echo "$got") | head -20 | tr '\n' ' ')
  missing=$(comm -23 <(echo "$want") <(echo "$got") | head -20 | tr '\n' ' ')
  [ -z "$extra" ] || fail "$lib exports what kc.h does not declare: $extra($(comm -13 <(echo "$want") <(echo "$got") | wc -l) in all)"
  [ -z "$missing" ] || fail "$lib lacks kc.h functions: $missing($(comm -23 <(echo "$want") <(echo "$got") | wc -l) in all)"
  if [ "${KC_EXPECT_STATIC_LLVM:-0}" = 1 ] && readelf -d "$lib" | grep -q 'NEEDED.*libLLVM'; then
    fail "$lib needs libLLVM, but this build should carry LLVM inside"
  fi
done
[ "$fails" -eq 0 ] && echo "$# libraries export exactly kc.h's $n functions"
exit $((fails > 0))
