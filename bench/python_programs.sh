#!/usr/bin/env bash
# bench/python_programs.sh BUILD [REPS] — Numba programs end to end (issue 30, item 3):
# each workload of bench/python_programs.py run under `python3 -m kcc` on kcc's CPU back
# end, under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, stopped after SIM_TIMEOUT
# seconds, default 60: it interprets every thread in Python), and as the same
# computation in NumPy; the first call (compiling included) and the median of REPS more.
# The simulator needs Debian's python3-numba; without it its lines say so.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-5}
SIM_TIMEOUT=${SIM_TIMEOUT:-60}
PY=/usr/bin/python3
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
for w in vector_add matmul monte_carlo; do
  echo "kcc (CPU back end): $(PYTHONPATH="$BUILD/python" KC_DEVICE=cpu KC_CACHE=0 \
                             $PY -m kcc bench/python_programs.py $w "$REPS")"
  echo "NumPy:              $(MODE=numpy KCC_REAL_NUMBA=0 PYTHONPATH="$BUILD/python" \
                             $PY -m kcc bench/python_programs.py $w "$REPS" 2>/dev/null)"
  if $PY -c 'import numba' 2>/dev/null; then
    start=$SECONDS
    if line=$(NUMBA_ENABLE_CUDASIM=1 timeout "$SIM_TIMEOUT" $PY bench/python_programs.py \
              $w 1 2>/dev/null); then
      echo "Numba simulator:    $line"
    else
      echo "Numba simulator:    $w first call not done after $((SECONDS - start)) s (stopped)"
    fi
  else
    echo "Numba simulator:    not installed"
  fi
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
