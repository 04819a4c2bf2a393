#!/usr/bin/env bash
# demo.sh BUILD_DIR — what `make demo` shows: a kernel, the PTX kcc makes of it, and
# the same kernel run by a C host program (on the GPU when one is present, else on the
# CPU back end), which checks its result against a plain C loop; then a seed-style
# Python program run unchanged by `python3 -m kcc`.
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

# the same kind of program as the seed tutorials print it, Python host code included,
# run unchanged by kcc's Python package (issue 30; docs/python.md)
seed=$root/tests/python/seed_vector_add.py
if [ -d "$build/python/kcc" ]; then
  rule "PYTHONPATH=$build/python /usr/bin/python3 -m kcc tests/python/seed_vector_add.py"
  grep -v '^#' "$seed" | sed '/./,$!d'
  echo "-- output:"
  PYTHONPATH="$build/python" /usr/bin/python3 -m kcc "$seed"
else
  echo "demo: $build/python was not built (needs /usr/bin/python3 with NumPy): skipped the Python part"
fi
