#!/usr/bin/env bash
# bench/big_aggregates.sh BUILD — compile time of big aggregates (issue 32, item 5): a
# record parameter by value holding float64[N] and a tuple of N elements indexed by N
# lines (bench/big_aggregates_gen.py writes them), to host code and to PTX, for N and
# 2N, so that the ratio shows how the time grows (2.0: linear, 4.0: quadratic). Prints
# the median of REPS runs (default 3) of `kcc compile`, in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${REPS:-3}
KCC="$BUILD/kcc"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

median() {   # median() CMD...: the median wall time of REPS runs, seconds
  for _ in $(seq "$REPS"); do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
  done | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'
}

printf '%-8s %6s %-6s %9s\n' kind N target seconds
for kind in record tuple; do
  for n in 250 500 1000 2000 4000; do
    python3 bench/big_aggregates_gen.py "$kind" "$n" > "$TMP/$kind$n.py"
    for target in host ptx; do
      flag=--target=host; [[ $target == ptx ]] && flag=--emit=ptx
      if ! "$KCC" compile "$TMP/$kind$n.py" $flag -o "$TMP/out" 2>"$TMP/err"; then
        printf '%-8s %6d %-6s %9s  %s\n' "$kind" "$n" "$target" refused "$(head -1 "$TMP/err")"
        continue
      fi
      printf '%-8s %6d %-6s %9.3f\n' "$kind" "$n" "$target" \
        "$(median "$KCC" compile "$TMP/$kind$n.py" $flag -o "$TMP/out")"
    done
  done
done
