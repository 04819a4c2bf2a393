#!/usr/bin/env bash
# bench/run.sh BUILD — build and run the CPU benchmark (bench/cpu_bench.c against the
# plain-C loops of bench/cpu_ref.c, kernels from bench/cpu_kernels.k) with the library
# already built in BUILD, and record the table in docs/performance.md ("CPU back end"
# and "GPU" sections; other sections of that file are kept). `make bench` runs this.
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
MD
)

if command -v nvidia-smi >/dev/null 2>&1 && GPUS=$(nvidia-smi -L 2>/dev/null) && [[ -n "$GPUS" ]]; then
  GPU_SECTION=$(printf '## GPU\n\nnot run: a GPU is present (%s) but bench/ has no GPU benchmark yet.\n' \
    "$(echo "$GPUS" | head -1)")
else
  GPU_SECTION=$(printf '## GPU\n\nnot run: no GPU on this machine (%s).\n' "$(date -u '+%Y-%m-%d')")
fi

mkdir -p docs
[[ -f "$DOC" ]] || printf '# Performance\n\nMeasured by the benchmarks under bench/ (`make bench`), never by timed unit tests.\n' > "$DOC"

# Replace the "## CPU back end" and "## GPU" sections (up to the next "## " heading),
# keeping everything else; append them when absent.
replace_section() { # file heading body
  local file=$1 heading=$2 body=$3 tmp
  tmp=$(mktemp)
  BODY="$body" awk -v h="$heading" '
    BEGIN { body = ENVIRON["BODY"]; done = 0; skip = 0 }
    /^## / { if (skip) skip = 0; if ($0 == h) { print body; print ""; done = 1; skip = 1; next } }
    !skip { print }
    END { if (!done) { print ""; print body } }
  ' "$file" > "$tmp"
  # squeeze runs of blank lines
  cat -s "$tmp" > "$file"
  rm -f "$tmp"
}
replace_section "$DOC" "## CPU back end" "$CPU_SECTION"
replace_section "$DOC" "## GPU" "$GPU_SECTION"
echo "bench: wrote $DOC"
