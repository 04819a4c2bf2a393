#!/usr/bin/env bash
# bench/watchdog.sh BUILD [REPS] — what kc_config.timeout_ms costs on the CPU back end
# and how soon it stops a runaway kernel (bench/watchdog_bench.c says what is timed).
# Builds watchdog_bench against BUILD's libkc and runs it; prints its lines and the
# machine's load, for docs/runtime.md ("Runaway kernels").
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-11}
CC=${CC:-gcc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
$CC -O2 -std=c11 -I include bench/watchdog_bench.c -o "$OUT/watchdog_bench" \
  -L "$BUILD" -lkc -Wl,-rpath,"$(cd "$BUILD" && pwd)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
KC_DEVICE=cpu "$OUT/watchdog_bench" "$REPS"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
