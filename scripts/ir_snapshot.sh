#!/usr/bin/env bash
# Snapshot the LLVM IR kcc writes for every .k in the tree, for both targets and at
# -O0 and -O3, into DIR: a refactoring of the compiler that should not change what it
# generates is checked by diffing two snapshots (diff -r BEFORE AFTER).
#   scripts/ir_snapshot.sh build/kcc DIR
set -u
kcc=$1 out=$2
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
git ls-files '*.k' | while read -r f; do
  name=$(echo "$f" | tr / _)
  for target in nvptx host; do
    for opt in -O0 -O3; do
      "$kcc" compile "$f" --target=$target $opt --emit=llvm -o - \
        >"$out/$name.$target$opt.ll" 2>"$out/$name.$target$opt.err"
      echo "rc=$?" >>"$out/$name.$target$opt.err"
    done
  done
done
