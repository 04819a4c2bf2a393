#!/bin/bash
# check_kcrt.sh PROGRAM LIBKCRT LIBKC — a program compiled ahead of time and linked with
# libkcrt, the runtime without the compiler (samples/vector_add_aot.c):
#   - it and libkcrt.so need no libLLVM (readelf's NEEDED, and ldd for what those need);
#     the program needs libkcrt.so.0 (the soname), not libkc;
#   - libkcrt exports the same kc.h functions as libkc (one header, two libraries);
#   - on the CPU device (KC_DEVICE=cpu; this machine has no GPU) its load cannot compile
#     the header's source: exit status 77 (it cannot run here) and a message saying it
#     needs a GPU or libkc.
set -u
PROG=$1 KCRT=$2 KC=$3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kcrt-XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

for f in "$PROG" "$KCRT"; do
  if needed "$f" | grep -q libLLVM; then fail "$f needs libLLVM: $(needed "$f" | tr '\n' ' ')"; fi
  if ldd "$f" | grep -q libLLVM; then fail "ldd $f shows libLLVM: $(ldd "$f" | grep libLLVM)"; fi
done
needed "$PROG" | grep -qx 'libkcrt.so.0' || fail "$PROG does not need libkcrt.so.0: $(needed "$PROG" | tr '\n' ' ')"
needed "$PROG" | grep -q '^libkc\.so' && fail "$PROG needs libkc"
readelf -d "$KCRT" | grep -q 'SONAME.*\[libkcrt.so.0\]' || fail "$KCRT: soname is not libkcrt.so.0"
readelf -d "$KC" | grep -q 'SONAME.*\[libkc.so.0\]' || fail "$KC: soname is not libkc.so.0"

exports() { nm -D --defined-only "$1" | awk '$3 ~ /^kc_/ { print $3 }' | sort; }
if [ "$(exports "$KCRT")" != "$(exports "$KC")" ]; then
  fail "libkcrt and libkc export different kc_ functions: $(diff <(exports "$KCRT") <(exports "$KC") | grep '^[<>]' | tr '\n' ' ')"
fi
[ "$(exports "$KCRT" | wc -l)" -gt 50 ] || fail "libkcrt exports $(exports "$KCRT" | wc -l) kc_ functions"

KC_DEVICE=cpu "$PROG" >"$WORK/out.txt" 2>"$WORK/err.txt"
rc=$?
[ "$rc" -eq 77 ] || fail "$PROG on the CPU: exit $rc, expected 77 ($(cat "$WORK/out.txt" "$WORK/err.txt"))"
for want in 'vector_add_aot: cannot run here: kc_compile_source: this program is linked with libkcrt, the runtime without the compiler' \
            'run it on a CUDA GPU' 'link libkc (pkg-config kc) to compile kernels at run time'; do
  grep -qF -- "$want" "$WORK/err.txt" || fail "$PROG on the CPU: stderr lacks '$want': $(cat "$WORK/err.txt")"
done
[ "$fails" -eq 0 ] && echo "libkcrt: no LLVM, same exports as libkc, clear refusal on the CPU"
exit $((fails > 0))
