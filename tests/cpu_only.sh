#!/bin/bash
# cpu_only.sh SOURCE LLVM_CONFIG — a build without the CUDA headers (-Dtoolkit at a
# directory that has none) configures, says in Meson's summary that it is CPU-only,
# compiles the runtime (libkcrt: every file of runtime/, the CUDA ones as their
# CPU-only stubs), and kc_detect, as `kcc devices` prints it, says so too. The build
# directory is kept ($KC_BUILD_ROOT/cpu-only) so that a later run only rebuilds what
# changed; the whole compiler is not built here (slow on a small machine).
set -u
SRC=$1 LLVM_CONFIG=$2
B=${KC_BUILD_ROOT:?}/cpu-only
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
if [ ! -f "$B/build.ninja" ]; then
  rm -rf "$B"
  meson setup "$B" "$SRC" -Dtoolkit=/nonexistent -Dllvm_config="$LLVM_CONFIG" \
    >"$B.setup.log" 2>&1 || { cat "$B.setup.log"; echo "FAIL: meson setup"; exit 1; }
  grep -q "CUDA *: none: a CPU-only build" "$B.setup.log" ||
    fail "Meson's summary does not say CPU-only: $(grep -A4 '^  kcc' "$B.setup.log")"
fi
ninja -C "$B" libkcrt.so.0.1.0 >"$B.ninja.log" 2>&1 ||
  { tail -30 "$B.ninja.log"; echo "FAIL: the CPU-only libkcrt does not build"; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kcc-cpu-only-XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/detect.c" <<'C'
#include <stdio.h>
#include "kc.h"
int main(void) {
  char buf[8192];
  if (kc_detect(buf, sizeof buf, NULL) != KC_OK) return 1;
  fputs(buf, stdout);
  return 0;
}
C
${CC:-cc} -o "$WORK/detect" "$WORK/detect.c" -I"$SRC/include" -L"$B" -Wl,-rpath,"$B" -lkcrt ||
  fail "cc against the CPU-only libkcrt"
out=$("$WORK/detect") || fail "kc_detect failed: $out"
for want in "CUDA: none: a CPU-only build (no CUDA headers at build time)" \
            "compiler: none (libkcrt" "CPU device: "; do
  case $out in *"$want"*) ;; *) fail "kc_detect lacks '$want': $out" ;; esac
done
[ "$fails" -eq 0 ] && echo "CPU-only build: summary and kc_detect say so"
exit $((fails > 0))
