#!/bin/bash
# check_build_id.sh SCRIPT SOURCE_ROOT BUILT_H — the disk cache's key follows every
# header: scripts/build_id.py (SCRIPT), run on a copy of the tree as meson.build runs
# it, gives the id the build has (BUILT_H, kc_build_id.h); and an edit to any header
# under src/ alone gives a new id and is named in the depfile (so ninja
# reruns the script). A header missing from the fingerprint would let a rebuilt kcc
# load a stale kernel from the cache.
set -u
SCRIPT=$1 ROOT=$2 BUILT=$3
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$ROOT/src" "$ROOT/lib" "$tmp/"

id_of() {   # the id build_id.py gives the copy
  python3 "$SCRIPT" "$tmp/id.h" "$tmp/id.d" "$tmp" src lib &&
    grep -o '"[0-9a-f]*"' "$tmp/id.h"
}

base=$(id_of) || { echo "FAIL: build_id.py failed"; exit 1; }
built=$(grep -o '"[0-9a-f]*"' "$BUILT")
[ "$base" = "$built" ] || fail "the build's id $built is not the tree's $base (meson.build's arguments?)"
headers=$(cd "$tmp" && find src -name '*.h' | sort)
n=$(echo "$headers" | grep -c .)
[ "$n" -gt 20 ] || fail "found only $n headers"
for h in $headers; do
  grep -q "$tmp/$h" "$tmp/id.d" || fail "$h is not in the depfile"
  cp "$tmp/$h" "$tmp/saved"
  echo "/* changed */" >>"$tmp/$h"
  [ "$(id_of)" != "$base" ] || fail "a change to $h leaves the cache key as it was"
  mv "$tmp/saved" "$tmp/$h"
done
[ "$(id_of)" = "$base" ] || fail "the id is not reproducible"
echo "$n headers checked"
[ "$fails" -eq 0 ]
