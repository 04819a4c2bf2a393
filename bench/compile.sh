#!/usr/bin/env bash
# bench/compile.sh BUILD — compile latency of kcc next to NVRTC, nvcc, nvJitLink and
# ptxas on the kernels of bench/kernels/ (peers: bench/cuda/), with the library
# already built in BUILD: builds bench/compile_bench.c, prints its table, and writes
# the "## Compile latency" section of docs/performance.md (other sections are kept),
# with a chart (docs/performance_compile.png) when gnuplot is installed. `make bench`
# runs this after bench/run.sh. No GPU is needed: everything here runs on the CPU.
#
#   BUILD     the Meson build directory (default: build)
#   REPS=N    runs per measurement (default 11; the median is reported)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${REPS:-11}
DOC=docs/performance.md
CHART=docs/performance_compile.png
OUT="$BUILD/bench"

LLVM_CONFIG=
[[ -f "$BUILD.llvm-config" ]] && LLVM_CONFIG=$(grep '^llvm-config' "$BUILD.llvm-config" | head -1 || true)
for c in "$LLVM_CONFIG" llvm-config-22 llvm-config; do
  if [[ -n "$c" ]] && command -v "$c" >/dev/null 2>&1; then LLVM_CONFIG=$c; break; fi
done
command -v "$LLVM_CONFIG" >/dev/null 2>&1 || { echo "bench: no llvm-config found" >&2; exit 1; }
[[ -f "$BUILD/libkc.a" ]] || { echo "bench: $BUILD/libkc.a not found; build first" >&2; exit 1; }
LIBS=()
for l in libkc.a libkccomp.a libkcfront.a; do [[ -f "$BUILD/$l" ]] && LIBS+=("$BUILD/$l"); done

mkdir -p "$OUT"
CC=${CC:-gcc}
set -x
$CC -O2 -I include -I src -I src/common -I src/target -I runtime -I "$BUILD" -c bench/compile_bench.c -o "$OUT/compile_bench.o"
# shellcheck disable=SC2046
$CC -o "$OUT/compile_bench" "$OUT/compile_bench.o" -Wl,--start-group "${LIBS[@]}" \
  -Wl,--end-group $("$LLVM_CONFIG" --ldflags --libs) -lstdc++ -pthread -lm -ldl -lunistring
set +x

CMD="$OUT/compile_bench bench/kernels bench/cuda $BUILD/kcc $REPS $OUT/compile.dat"
echo "bench: $CMD"
TABLE=$($CMD)
echo "$TABLE"

CHART_MD="No chart: gnuplot is not installed (\`apt-get install gnuplot-nox\`, then \`make bench\`)."
if command -v gnuplot >/dev/null 2>&1; then
  gnuplot <<GP && CHART_MD="![compile latency, kcc against its peers]($(basename "$CHART"))"
set terminal pngcairo size 1100,440 font ",10" noenhanced
set output "$CHART"
set title "Compile latency (CPU ms, median of $REPS; log scale; lower is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set logscale y
set yrange [0.5:*]
set ylabel "ms"
set xtics nomirror
set key outside below horizontal
plot "$OUT/compile.dat" using 2:xtic(1) title "kcc in process", \
     "" using 3 title "NVRTC in process", \
     "" using 4 title "kcc process", \
     "" using 5 title "nvcc -ptx process"
GP
fi

MODEL=$(lscpu 2>/dev/null | grep 'Model name' | head -1 | sed 's/Model name:[[:space:]]*//' || true)
NVCC_VER=$("${CUDA_ROOT:-/usr/local/cuda}/bin/nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*' || echo "not found")
SECTION=$(cat <<MD
## Compile latency

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(nproc) cores, ${MODEL:-unknown CPU}; $(uname -sr); shared with other jobs
- LLVM: $("$LLVM_CONFIG" --version); CUDA: $NVCC_VER
- command: \`bash bench/compile.sh $BUILD\` (runs \`$CMD\`)

Source -> PTX for sm_80 at -O3, kernels \`bench/kernels/NAME.k\` against their CUDA C
peers \`bench/cuda/NAME.cu\`. Milliseconds of CPU time (user + system: the machine is
shared, and CPU time is what a compile costs whatever else runs), median of $REPS runs.
kcc = \`kcc_compile\` in process after a warm-up; kcc 1st = the same in a fresh process
(its first compile: LLVM's target set up, libdevice read); NVRTC = \`nvrtcCompileProgram\`
through libnvrtc, dlopen'd, in process (1st: in a fresh process); kcc proc / nvcc proc
= \`kcc compile NAME.k\` / \`nvcc -ptx -O3 -arch=sm_80 NAME.cu\` as whole processes;
nvJitLink / ptxas proc = kcc's PTX -> cubin in process (what \`--emit=cubin\` uses) /
with \`ptxas -O3\` as a process; cache load = a second process finding the compiled
kernel in a warm on-disk cache (the lookup \`kc_compile_source\` does on CUDA).
Ratios below 1 mean kcc is faster.

$TABLE

$CHART_MD

Where the time goes (callgrind, \`valgrind --tool=callgrind --toggle-collect=kcc_compile\`
over the seven kernels): LLVM's PTX emission (\`LLVMTargetMachineEmitToMemoryBuffer\`:
building the legacy codegen pass pipeline, instruction selection, printing) about half,
the O3 pipeline about a third, the front end (parse, types, IR) under 5%. Done so far:
target machines reused per thread (they cost a sixth of a small compile to build),
libdevice's used functions kept as bitcode for later compiles (a third of a kernel
calling expf), and the \`kcc\` command linked with LLVM's static archives, not
position-independent, with libstdc++'s archive (meson option \`kcc_static_llvm\`, on
where the archives are installed): a dynamically linked process spent most of its time
in the loader relocating and binding libLLVM.so (\`kcc --version\` 10.3 ms of CPU, a
vector_add compile 17.4 ms; linked statically 2.6 ms and 7.5 ms, measured on
2026-11-28). The in-process column is libkc's, which still loads libLLVM.so. Of a warm
in-process compile of vector_add (callgrind), building the legacy code generation pass
pipeline, which LLVM's C API does afresh for every module, is a fifth; running it, half.
Before this work
(issue 2, wall clock over samples/): 4.23 ms geometric mean in process, 18-39 ms per
process; polar.k stays the slowest sample, libdevice's sin/cos/atan2 being large and
always inlined.
MD
)

# shellcheck source=bench/doc_section.sh
source bench/doc_section.sh
write_section "$DOC" "## Compile latency" "$SECTION"
echo "bench: wrote $DOC"
