#!/usr/bin/env bash
# bench/launch.sh BUILD [REPS] — the cost of a launch onto the CPU back end's workers
# against an OpenMP parallel region (bench/launch_bench.c says what is timed). Builds
# launch_bench against BUILD's libkc and runs it; prints its lines and the machine's load.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-11}
CC=${CC:-gcc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
$CC -O2 -std=c11 -fopenmp -I include -I bench bench/launch_bench.c -o "$OUT/launch_bench" \
  -L "$BUILD" -lkc -Wl,-rpath,"$(cd "$BUILD" && pwd)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
KC_DEVICE=cpu "$OUT/launch_bench" "$REPS"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
