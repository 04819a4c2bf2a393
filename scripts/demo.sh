#!/usr/bin/env bash
# demo.sh BUILD_DIR — what `make demo` shows: a kernel, the PTX kcc makes of it, and
# the same kernel run by a C host program (on the GPU when one is present, else on the
# CPU back end), which checks its result against a plain C loop.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kernel=$root/samples/vector_add.k
ptx=$build/vector_add.ptx

rule() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
[ -t 1 ] || rule() { printf '\n== %s\n' "$*"; }

rule "the kernel: samples/vector_add.k"
grep -v '^#' "$kernel" | sed '/./,$!d'

rule "$build/kcc compile samples/vector_add.k --arch sm_80 -o $ptx"
"$build/kcc" compile "$kernel" --arch sm_80 -o "$ptx"
head -n 40 "$ptx"
echo "... ($(wc -l < "$ptx") lines in $ptx)"

rule "$build/samples/vector_add: compile at run time, launch, check"
if [ ! -x "$build/samples/vector_add" ]; then
  echo "demo: $build/samples/vector_add was not built" >&2
  exit 1
fi
KC_VERBOSE=1 "$build/samples/vector_add" "$kernel"
