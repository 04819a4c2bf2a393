#!/usr/bin/env bash
# bench/run.sh BUILD — build and run the CPU benchmark (bench/cpu_bench.c against the
# plain-C loops of bench/cpu_ref.c, kernels from bench/cpu_kernels.k) with the library
# already built in BUILD, and record the table and a chart in docs/performance.md (the
# "CPU back end" section; other sections are kept); on a machine with a GPU it also runs
# scripts/gpu.sh all. `make bench` runs this.
#
#   BUILD     the Meson build directory (default: build)
#   REPS=N    repetitions per measurement (default 7; the median is reported)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${REPS:-7}
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
$CC -O2 -I include -I src -I bench -c bench/cpu_bench.c -o "$OUT/cpu_bench.o"
$CC -O3 -march=native -I bench -c bench/cpu_ref.c -o "$OUT/cpu_ref.o"
# shellcheck disable=SC2046
$CC -o "$OUT/cpu_bench" "$OUT/cpu_bench.o" "$OUT/cpu_ref.o" \
  -Wl,--start-group "${LIBS[@]}" -Wl,--end-group \
  $("$LLVM_CONFIG" --ldflags --libs) -lstdc++ -pthread -lm -ldl
set +x

CMD="$OUT/cpu_bench bench/cpu_kernels.k $REPS"
echo "bench: $CMD"
TABLE=$("$OUT/cpu_bench" bench/cpu_kernels.k "$REPS")
echo "$TABLE"

# ---- chart: the ratios of the table, when gnuplot is installed -------------------------
CHART=docs/performance_cpu.png
CHART_MD="No chart: gnuplot is not installed (\`apt-get install gnuplot-nox\`, then \`make bench\`)."
# columns of the table: kernel, kcc1/C cpu (9), 2T vs 1T (11), C 2T vs 1T (13)
echo "$TABLE" | awk -F'|' '$2 ~ /[a-z]/ && $3 !~ /size/ && $3 !~ /---/ {
  gsub(/[ x]/, "", $9); gsub(/[ x]/, "", $11); gsub(/[ x]/, "", $13); gsub(/ /, "", $2)
  print $2, $9, $11, $13 }' > "$OUT/cpu.dat"
if command -v gnuplot >/dev/null 2>&1 && [[ -s "$OUT/cpu.dat" ]]; then
  gnuplot <<GP && CHART_MD="![CPU back end: kcc against C]($(basename "$CHART"))"
set terminal pngcairo size 900,380 font ",10" noenhanced
set output "$CHART"
set title "CPU back end (median of $REPS): kcc time / C time on one core (lower is better), and speed-up on two cores (higher is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set yrange [0:*]
set ylabel "ratio"
set xtics nomirror
set key top right
set arrow from graph 0, first 1.5 to graph 1, first 1.5 nohead dt 2 lc rgb "red"
set label "1.5x: one-core target" at graph 0.01, first 1.58 tc rgb "red"
plot "$OUT/cpu.dat" using 2:xtic(1) title "kcc / C, one core (CPU time)", \
     "" using 3 title "kcc: 2 threads vs 1", \
     "" using 4 title "C: 2 threads vs 1"
GP
fi

# ---- docs/performance.md ----------------------------------------------------------------
MODEL=$(lscpu 2>/dev/null | grep 'Model name' | head -1 | sed 's/Model name:[[:space:]]*//' || true)
CPU_SECTION=$(cat <<MD
## CPU back end

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(nproc) cores, ${MODEL:-unknown CPU}; $(uname -sr)
- LLVM: $("$LLVM_CONFIG" --version)
- command: \`bash bench/run.sh $BUILD\` (runs \`$CMD\`)

Kernels from \`bench/cpu_kernels.k\`; 256-thread blocks (16x16 for the transpose), enough
blocks to cover. kcc time = wall time (CLOCK_MONOTONIC) of \`kc_launch\` +
\`kc_synchronize\` on a CPU context with \`cpu_threads\` = 1 (1T) or 2 (2T). C = the same
loop in \`bench/cpu_ref.c\` built with \`gcc -O3 -march=native\`, single thread (C 2T: the
loop split in halves over two pthreads). The "cpu" columns time the single-thread runs
in CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), which time slices given to
other processes do not inflate: on a shared machine kcc1/C cpu is the figure to trust
for the one-core target, while the wall-time columns move with the load. Median of
$REPS runs after one warm-up, the four variants interleaved; every kcc result is checked
against the C result (exact; 1e-5 relative for the pdf). Targets: element-wise kernels
within 1.5x of C on one core (kcc1/C <= 1.5), and near-linear scaling on two cores
(2T vs 1T close to 2, as for C: C 2T vs 1T).

- load average when the run ended: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

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
