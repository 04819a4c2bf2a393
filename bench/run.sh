#!/usr/bin/env bash
# bench/run.sh BUILD — the CPU benchmarks side by side, recorded in docs/performance.md
# (the "CPU back end" section, table and chart; other sections are kept); on a machine
# with a GPU it also runs scripts/gpu.sh all. `make bench` runs this.
#   - bench/cpu_bench.c: kcc (cpu_threads 1 and 2) against the plain-C loops of
#     bench/cpu_ref.c (gcc -O3 -march=native, 1 and 2 threads), kernels from
#     bench/cpu_kernels.k; every kcc result checked against C's;
#   - bench/numba_bench.py: Numba's @njit, @njit(parallel=True) and
#     @vectorize(target='parallel') on the same data, checked against C's results, and
#     Numba's CUDA simulator running bench/cpu_kernels.k at a small size; skipped,
#     saying so, when no python3 can import numba (Debian: python3-numba, which
#     `make bench` installs through scripts/deps.sh);
#   - bench/jit_scaling.c: JIT compile time of generated 10..5 000-statement kernels;
#   - bench/bench_table.awk merges their lines into the table.
#
#   BUILD       the Meson build directory (default: build)
#   REPS=N      repetitions per measurement (default 7; the median is reported)
#   SIM_REPS=N  repetitions in the CUDA simulator (default 3; 0 skips it)
#   PYTHON=P    the python3 with numba (default: /usr/bin/python3, else python3)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${REPS:-7}
SIM_REPS=${SIM_REPS:-3}
DOC=docs/performance.md
OUT="$BUILD/bench"

# The llvm-config the build was configured with (as the Makefile records it), else the
# newest one on PATH.
LLVM_CONFIG=
if [[ -f "$BUILD.llvm-config" ]]; then
  LLVM_CONFIG=$(grep '^llvm-config' "$BUILD.llvm-config" | head -1 || true)
fi
if [[ -z "$LLVM_CONFIG" ]]; then
  LLVM_CONFIG=$(meson introspect "$BUILD" --buildoptions 2>/dev/null |
    grep -o '"name": "llvm_config", "value": "[^"]*"' | sed 's/.*"value": "//; s/"$//' || true)
fi
for c in "$LLVM_CONFIG" llvm-config-22 llvm-config; do
  if [[ -n "$c" ]] && command -v "$c" >/dev/null 2>&1; then LLVM_CONFIG=$c; break; fi
done
command -v "$LLVM_CONFIG" >/dev/null 2>&1 || { echo "bench: no llvm-config found" >&2; exit 1; }

# Link as the kcc binary is linked (ninja -C BUILD -t commands kcc): the static
# libraries of the build in a group, LLVM, pthread, libm, libdl.
LIBS=()
for l in libkc.a libkccomp.a libkcfront.a; do
  [[ -f "$BUILD/$l" ]] && LIBS+=("$BUILD/$l")
done
[[ -f "$BUILD/libkc.a" ]] || { echo "bench: $BUILD/libkc.a not found; build first" >&2; exit 1; }

mkdir -p "$OUT"
CC=${CC:-gcc}
set -x
$CC -O2 -I include -I src -I src/common -I src/target -I runtime -I "$BUILD" -I bench -c bench/cpu_bench.c -o "$OUT/cpu_bench.o"
# -ffp-contract=off: the kernels' arithmetic (Python's: a multiply and an add are two
# roundings, not a fused multiply-add) unless they ask for fast math
$CC -O3 -march=native -fopenmp-simd -ffp-contract=off -I bench -c bench/cpu_ref.c -o "$OUT/cpu_ref.o"
$CC -O2 -I include -I src -I src/common -I src/target -I runtime -I "$BUILD" -c bench/jit_scaling.c -o "$OUT/jit_scaling.o"
# shellcheck disable=SC2046
$CC -o "$OUT/cpu_bench" "$OUT/cpu_bench.o" "$OUT/cpu_ref.o" \
  -Wl,--start-group "${LIBS[@]}" -Wl,--end-group \
  $("$LLVM_CONFIG" --ldflags --libs) -lstdc++ -pthread -lm -ldl -lunistring
# shellcheck disable=SC2046
$CC -o "$OUT/jit_scaling" "$OUT/jit_scaling.o" \
  -Wl,--start-group "${LIBS[@]}" -Wl,--end-group \
  $("$LLVM_CONFIG" --ldflags --libs) -lstdc++ -pthread -lm -ldl -lunistring
set +x

# ---- the python3 that has numba, if any ------------------------------------------------
PY=
TRIED=()
for p in ${PYTHON:-} /usr/bin/python3 python3; do
  command -v "$p" >/dev/null 2>&1 || continue
  if "$p" -c 'import numba, numpy' >/dev/null 2>&1; then PY=$p; break; fi
  TRIED+=("$p")
done
NUMBA_WHY="no python3 here imports numba and numpy (tried: ${TRIED[*]:-none found}; Debian: apt-get install python3-numba, which make bench does)"

# ---- run: C and kcc, then Numba on the same data, then compile time ------------------
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
DATA="$OUT/data"  # the inputs and C results for Numba: about 700 MB, removed at exit
rm -rf "$DATA"
trap 'rm -rf "$DATA"' EXIT
DUMP=()
if [[ -n "$PY" ]]; then mkdir -p "$DATA"; DUMP=(--dump "$DATA"); fi
CMD="$OUT/cpu_bench bench/cpu_kernels.k $REPS"
echo "bench: $CMD ${DUMP[*]}"
"$OUT/cpu_bench" bench/cpu_kernels.k "$REPS" "${DUMP[@]}" | tee "$OUT/cpu.tsv"
if [[ -n "$PY" ]]; then
  echo "bench: $PY bench/numba_bench.py cpu $DATA bench/cpu_kernels.k $REPS"
  "$PY" bench/numba_bench.py cpu "$DATA" bench/cpu_kernels.k "$REPS" | tee "$OUT/numba.tsv" ||
    echo "note	bench/numba_bench.py cpu failed (see the output of make bench)" >> "$OUT/numba.tsv"
  if [[ "$SIM_REPS" -gt 0 ]]; then
    echo "bench: $PY bench/numba_bench.py sim $DATA bench/cpu_kernels.k $SIM_REPS"
    "$PY" bench/numba_bench.py sim "$DATA" bench/cpu_kernels.k "$SIM_REPS" | tee "$OUT/sim.tsv" ||
      echo "note	bench/numba_bench.py sim failed (see the output of make bench)" >> "$OUT/sim.tsv"
  else
    echo "note	CUDA simulator not run (SIM_REPS=0)" > "$OUT/sim.tsv"
  fi
else
  echo "bench: Numba columns skipped: $NUMBA_WHY"
  printf 'skip\t%s\n' "$NUMBA_WHY" > "$OUT/numba.tsv"
  : > "$OUT/sim.tsv"
fi
rm -rf "$DATA"
echo "bench: $OUT/jit_scaling $REPS"
"$OUT/jit_scaling" "$REPS" | tee "$OUT/jit.tsv"
LOAD=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
NUMBA_VERSION="Numba: not installed"
[[ -n "$PY" ]] && NUMBA_VERSION="Numba $("$PY" -c 'import numba; print(numba.__version__)' 2>/dev/null)"
rm -f "$OUT/cpu.dat"
TABLE=$(cat "$OUT/cpu.tsv" "$OUT/numba.tsv" "$OUT/sim.tsv" "$OUT/jit.tsv" |
  awk -v dat="$OUT/cpu.dat" -v reps="$REPS" -f bench/bench_table.awk)
echo "$TABLE"

# ---- chart: the ratios of the table, when gnuplot is installed -------------------------
CHART=docs/performance_cpu.png
CHART_MD="No chart: gnuplot is not installed (\`apt-get install gnuplot-nox\`, then \`make bench\`)."
if command -v gnuplot >/dev/null 2>&1 && [[ -s "$OUT/cpu.dat" ]]; then
  gnuplot <<GP && CHART_MD="![CPU back end: kcc and Numba against C]($(basename "$CHART"))"
set terminal pngcairo size 1100,440 font ",10" noenhanced
set output "$CHART"
set title "CPU back end (median of $REPS): time / C time (log scale; lower is better, 1 = C speed)"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set logscale y
set yrange [0.05:*]
set ylabel "time / C time"
set xtics nomirror rotate by -30
set key outside below horizontal
set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb "black"
set arrow from graph 0, first 1.5 to graph 1, first 1.5 nohead dt 2 lc rgb "red"
set label "1.5x: one-core target" at graph 0.01, first 1.7 tc rgb "red"
plot "$OUT/cpu.dat" using 2:xtic(1) title "kcc 1T / C 1T (CPU time)", \
     "" using 3 title "Numba @njit / C 1T (CPU time)", \
     "" using 4 title "kcc 2T / C 2T", \
     "" using 5 title "Numba @njit(parallel) 2T / C 2T"
GP
fi

# ---- docs/performance.md ----------------------------------------------------------------
MODEL=$(lscpu 2>/dev/null | grep 'Model name' | head -1 | sed 's/Model name:[[:space:]]*//' || true)
CPU_SECTION=$(cat <<MD
## CPU back end

Generated by \`make bench\` (\`bench/run.sh\`); do not edit by hand.

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(nproc) cores, ${MODEL:-unknown CPU}; $(uname -sr)
- load average: $LOAD_START when the run started, $LOAD when the measurements ended
- LLVM: $("$LLVM_CONFIG" --version); gcc: $($CC -dumpfullversion 2>/dev/null || echo unknown); $NUMBA_VERSION
- command: \`bash bench/run.sh $BUILD\` (runs \`$CMD\`, \`bench/numba_bench.py\`, \`$OUT/jit_scaling $REPS\`)

Kernels from \`bench/cpu_kernels.k\` with the launch shapes of \`bench/cpu_bench.c\`
(256-thread blocks for 1-D kernels, 16x16 for the naive transpose and the matmul, 32x32
for the tiled transpose; the grid-stride rows on 2 blocks of 256 (the grid
\`kc_kernel_suggest_block\` suggests on 2 cores) and on the grid \`kc_vectorize\` picks
(\`rt_grid_stride_shape\`)). Columns:

- **C**: the same algorithm as plain loops in \`bench/cpu_ref.c\`, \`gcc -O3 -march=native
  -fopenmp-simd -ffp-contract=off\` (the sum as an \`omp simd\` reduction, the matmul as
  the i-k-j loop nest, the tiled transpose by 32x32 blocks; no fused multiply-adds, as
  the kernels have none without fast math), on memory allocated as kcc's CPU arrays
  are (256-byte aligned; from 4 MiB, 2 MiB-aligned with transparent huge pages
  advised, as NumPy's are too); 2T = the loop split in halves over two pthreads.
- **kcc**: \`kc_launch\` (or \`kc_vectorize\`, \`kc_reduce\`) + \`kc_synchronize\` on a CPU
  context with \`cpu_threads\` = 1 (1T) or 2 (2T).
- **Numba** (\`bench/numba_bench.py\`, Debian's python3-numba): \`@njit\` on one thread,
  \`@njit(parallel=True)\` with \`prange\` over the outer loop and, for the ufunc rows,
  \`@vectorize(target='parallel')\` (writing into \`out=\`), both on two threads
  (NUMBA_NUM_THREADS=2); the loops are the C loops written in Python. The sum with
  \`fastmath=True\` (reassociation, as C's \`omp simd\`). Timed after a warm-up call that
  compiles.
- **CUDA simulator**: \`NUMBA_ENABLE_CUDASIM=1\` running the kernels of
  \`bench/cpu_kernels.k\` themselves at a small size (one or two blocks), $SIM_REPS runs, the
  median extrapolated per output element (per input element for the sum) to the full
  size; an estimate of what a Numba user without a GPU waits for.

1T columns are CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID, Python's
\`time.thread_time\`), which time slices given to other processes do not inflate: on a
shared machine they are the figures to trust; 2T columns are wall time and move with
the load. Each figure is the median of $REPS runs after one warm-up (C and kcc: the four
variants interleaved; Numba runs after them, on the same inputs), each run started with
cold caches (512 MiB read before it, so that no variant finds its arrays left in the
L3 by the one before); the ratio in brackets
is against C measured in the same run (1T against C 1T CPU time, 2T against C 2T wall
time). Every kcc and Numba result is checked against the C result: exactly (the sum's
and the matmul's inputs are small integers, so every order of additions is exact;
mandelbrot's C loop is built without fused multiply-add, as Python has none), or to
1e-5 relative for the pdf (exp rounds differently; Numba computes it in float64). The
simulator's results are checked against the matching part of the C result (mandelbrot:
against \`@njit\` on the same small image). Targets (issue 16): every kernel within 1.5x
of C on one core (matmul and transpose within 2x), grid-stride within 1.2x of the one
element per thread add, kcc ahead of \`@njit(parallel=True)\` on two cores.

$TABLE

$CHART_MD
MD
)

# The GPU benchmarks live in bench/gpu and are run by scripts/gpu.sh (which also works on
# a GPU machine without LLVM); their figures go to the "## GPU (bench/gpu)" section.
# Without a GPU that section is left as it is, so figures measured on a GPU machine
# survive a `make bench` on a machine without one.
if command -v nvidia-smi >/dev/null 2>&1 && GPUS=$(nvidia-smi -L 2>/dev/null) && [[ -n "$GPUS" ]]; then
  echo "bench: GPU present ($(echo "$GPUS" | head -1)): scripts/gpu.sh all"
  bash scripts/gpu.sh all || echo "bench: scripts/gpu.sh all failed (see above)" >&2
else
  echo "bench: GPU benchmarks: not run: no GPU on this machine (scripts/gpu.sh runs them)"
fi

# shellcheck source=bench/doc_section.sh
source bench/doc_section.sh
write_section "$DOC" "## CPU back end" "$CPU_SECTION"
echo "bench: wrote $DOC"
