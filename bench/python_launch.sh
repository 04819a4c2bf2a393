#!/usr/bin/env bash
# bench/python_launch.sh BUILD [ROUNDS] — what a launch from Python costs over the same
# launch from C (issue 30, item 3: at most 2 µs more): bench/python_launch.py's kernel,
# three device arrays, launched back to back from kcc.cuda and through kc_launch
# (bench/python_launch_c.c), on the CPU back end unless KC_DEVICE says otherwise.
# ROUNDS alternate the two programs (each a median of 11 batches of 5,000 launches);
# prints each round, then the medians over rounds and their difference; and the first
# call of each (the kernel compiled and launched, the disk cache off), Python's against
# C's.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
ROUNDS=${2:-5}
CC=${CC:-gcc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
$CC -O2 -std=c11 -I include -I bench bench/python_launch_c.c -o "$OUT/python_launch_c" \
  -L "$BUILD" -lkc -Wl,-rpath,"$(cd "$BUILD" && pwd)"
export KC_DEVICE=${KC_DEVICE:-cpu} PYTHONPATH="$BUILD/python" KC_CACHE=0
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; KC_DEVICE=$KC_DEVICE"
for _ in $(seq "$ROUNDS"); do
  "$OUT/python_launch_c" bench/python_launch.py
  /usr/bin/python3 bench/python_launch.py
done | tee "$OUT/rounds"
/usr/bin/python3 - "$OUT/rounds" <<'PY'
import statistics, sys
rounds = {}
for line in open(sys.argv[1]):
    who, us = line.split()
    rounds.setdefault(who, []).append(float(us))
c, py = statistics.median(rounds['c']), statistics.median(rounds['python'])
print('median per launch: C %.3f us, Python %.3f us, Python - C %.3f us' % (c, py, py - c))
c, py = statistics.median(rounds['c_first']), statistics.median(rounds['python_first'])
print('median first call (compile + launch, KC_CACHE=0): C %.1f ms, Python %.1f ms, '
      'ratio %.2f' % (c, py, py / c))
PY
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
