#!/usr/bin/env bash
# bench/histogram.sh BUILD [REPS] — samples/histogram.k's kernels on one CPU worker against
# a C loop (bench/histogram_bench.c says what is timed).
# Builds histogram_bench against BUILD's libkc and runs it; prints its lines and the
# machine's load.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-11}
CC=${CC:-gcc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
$CC -O2 -std=c11 -I include -I bench bench/histogram_bench.c -o "$OUT/histogram_bench" \
  -L "$BUILD" -lkc -Wl,-rpath,"$(cd "$BUILD" && pwd)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
KC_DEVICE=cpu "$OUT/histogram_bench" samples/histogram.k "$REPS"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
