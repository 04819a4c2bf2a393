#!/usr/bin/env bash
# scripts/gpu.sh — every GPU check and benchmark of kcc in one command, for a GPU
# machine that has no LLVM, no meson and no network: build here, run there.
#
#   scripts/gpu.sh prepare   (here, with LLVM and the CUDA toolkit)
#       builds build-gpu/ (meson -Dllvm_static=true, release): libkc.so with the LLVM
#       code it uses linked in and hidden (include/kc.map: only kc.h's functions are
#       exported, tests/check_exports.sh checks it), and only what the bundle needs: the
#       gpu suite's programs (each kernel test, the samples, test_cuda_gpu, the AOT
#       sample), tests/gpu_smoke and bench/gpu/gpu_bench, each finding libkc.so through
#       an $ORIGIN-relative rpath; an sm_90 cubin of samples/vector_add.k made by kcc
#       here (the smoke phase loads it); the CUDA C peers bench/cuda/*.cu as cubins
#       (nvcc -O3 -arch=sm_90 -cubin); libdevice; build-gpu/gpu-tests.list (the suite,
#       paths relative to the tree). Packs them, stripped, into .gpu/build-gpu.tar.xz
#       (git-ignored, under the 64 MiB a device call carries), after checking with ldd
#       that no file in it needs libLLVM or lacks a library.
#   scripts/gpu.sh run [--budget SECONDS]   (there; also safe here)
#       unpacks the bundle into build-gpu/ (again whenever the pack changed), then runs,
#       in the order that proves most first, each step writing its log and
#       docs/gpu-results.md (copied to $OUT at once, with docs/performance.md):
#         1. smoke      (under a minute) kc_detect (driver version, GPU name, compute
#                       capability), samples/vector_add.k from source, the AOT cubin
#         2. kernels    every kernel test of tests/kernels/ on CUDA
#         3. runtime    tests/test_cuda_gpu (arrays, PTX, cubins, link=[...], streams,
#                       events)
#         4. samples    the samples on CUDA
#         5. launch, bandwidth, kernel times   bench/gpu/gpu_bench against a bare
#                       cuLaunchKernel, cuMemcpy and the nvcc-built peers
#         6. numba      bench/gpu/numba_bench.py (when numba-cuda is installed there)
#       After --budget seconds (default 420) it starts no new step or test and writes
#       what it has, the rest marked "not run (budget)": one call of 600 s leaves room
#       for a second. Without a GPU it says "not run: no GPU" and exits 0. Exit status:
#       0 all ran and passed, 1 something failed, 3 nothing failed but the budget cut it.
#   scripts/gpu.sh run --cpu [--budget SECONDS]   (anywhere: the rehearsal; CI runs it)
#       copies the tree (git's files, as the device tool does) and .gpu/ alone into a
#       fresh directory, hides meson, ninja, llvm-config and clang from PATH, and runs
#       the same steps there from the unpacked bundle with KC_DEVICE=cpu forced: each
#       kernel test, the smoke kernel and sample runs on the CPU back end through the
#       carried libkc.so (its JIT is the carried LLVM); what needs CUDA says so. Writes
#       gpu-results.md (titled a rehearsal) and the logs to $OUT, else to
#       build-gpu/rehearsal/; never to docs/.
#   scripts/gpu.sh all       prepare, then run (a machine with LLVM and a GPU)
#
# On the device machine: run(carry=[".gpu"], command="scripts/gpu.sh run", timeout_s=600).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
B=build-gpu
PACK=.gpu/build-gpu.tar.xz
REPS=${REPS:-21}
SMOKE_CUBIN=cubins/vector_add_smoke.sm_90.cubin

die() { echo "gpu.sh: $*" >&2; exit 1; }

# ---- prepare ---------------------------------------------------------------------------
find_llvm_config() {
  local c
  [[ -n ${LLVM_CONFIG:-} ]] && { echo "$LLVM_CONFIG"; return; }
  for c in llvm-config-22 llvm-config-21 llvm-config-20 llvm-config-19 llvm-config; do
    command -v "$c" >/dev/null 2>&1 && { echo "$c"; return; }
  done
}

prepare() {
  local llvm_config
  llvm_config=$(find_llvm_config)
  [[ -n "$llvm_config" ]] || die "prepare needs LLVM (llvm-config): run it where kcc builds"
  if [[ ! -f $B/build.ninja ]]; then
    meson setup "$B" -Dllvm_static=true -Dllvm_config="$llvm_config" -Dbuildtype=release \
      -Dfuzz=disabled || die "meson setup failed"
  fi
  ninja -C "$B" build.ninja >/dev/null || die "meson could not regenerate $B"
  write_test_list
  # the gpu suite's programs and the files under $B its arguments name (they bring
  # libkc.so, the AOT header and the PTX along as dependencies), the smoke program, kcc
  # (for the smoke cubin; not packed) and the benchmark
  local files
  files=$(cut -f3 "$B/gpu-tests.list" | tr ' ' '\n' | grep "^$B/" | sed "s|^$B/||" |
          sort -u)
  # the shared libraries by their file names (libkc.so.0.1.0); the programs load them by
  # their sonames (libkc.so.0, libkcrt.so.0: the AOT sample links the runtime alone)
  local version libs programs
  version=$(meson introspect "$B" --projectinfo |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
  libs="libkc.so.0 libkcrt.so.0"
  programs="bench/gpu/gpu_bench tests/gpu_smoke $files"
  ninja -C "$B" -j "${JOBS:-2}" "libkc.so.$version" "libkcrt.so.$version" kcc $programs ||
    die "build failed"
  KC_EXPECT_STATIC_LLVM=1 bash tests/check_exports.sh include/kc.h "$B/libkc.so.0" \
    "$B/libkcrt.so.0" || die "$B's libraries do not export exactly kc.h"
  make_cubins
  local libdevice=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
  [[ -f $libdevice ]] && cp "$libdevice" "$B/libdevice.10.bc"
  # stage copies (stripped programs, the same layout, so the rpaths hold) and pack them
  local stage=$B/bundle
  rm -rf "$stage" && mkdir -p "$stage"
  (cd "$B" && cp --parents $libs $programs gpu-tests.list $(ls cubins/*.cubin 2>/dev/null) \
     $( [[ -f libdevice.10.bc ]] && echo libdevice.10.bc) bundle/) || die "staging failed"
  local f
  for f in $libs $programs; do
    if is_elf "$stage/$f"; then strip --strip-unneeded "$stage/$f"; fi
  done
  check_libraries "$stage" || die "the bundle would not run where no LLVM is installed"
  if [[ -f build/libkc.so.0 ]] &&
     ! diff <(nm -D --defined-only build/libkc.so.0 | awk '{print $NF}' | sort) \
            <(nm -D --defined-only "$stage/libkc.so.0" | awk '{print $NF}' | sort) >/dev/null; then
    die "the bundle's libkc.so exports other functions than build/libkc.so"
  fi
  mkdir -p .gpu
  tar cf - -C "$stage" . | xz -T"${JOBS:-2}" -6 >"$PACK.tmp" && mv "$PACK.tmp" "$PACK" ||
    die "packing failed"
  local size
  size=$(du -m "$PACK" | cut -f1)
  echo "gpu.sh: prepared $PACK (${size} MiB: $(tar tJf "$PACK" | grep -vc '/$') files;" \
       "$(du -sm "$stage" | cut -f1) MiB unpacked); on the GPU machine: scripts/gpu.sh run" \
       "(carry .gpu)"
  (( size < 60 )) || die "$PACK is ${size} MiB: over what a device call carries"
}

# The smoke phase's AOT cubin (kcc here: ptxas or nvJitLink) and the CUDA C peers.
make_cubins() {
  mkdir -p "$B/cubins"
  "$B/kcc" compile --emit=cubin --arch=sm_90 samples/vector_add.k -o "$B/$SMOKE_CUBIN" ||
    echo "gpu.sh: no smoke cubin (kcc compile --emit=cubin needs ptxas or nvJitLink):" \
         "the smoke phase will say so"
  local nvcc=${NVCC:-/usr/local/cuda/bin/nvcc} cu
  if [[ -x $nvcc ]]; then
    for cu in bench/cuda/*.cu; do
      "$nvcc" -O3 -arch=sm_90 -cubin "$cu" -o "$B/cubins/$(basename "${cu%.cu}").cubin" ||
        die "nvcc failed on $cu"
    done
  else
    echo "gpu.sh: no nvcc: run will build the peers' cubins there (the GPU image has nvcc)"
  fi
}

is_elf() { [[ "$(head -c 4 "$1" 2>/dev/null)" == $'\177ELF' ]]; }

# Every ELF program and library under DIR resolves all its libraries, none of them
# libLLVM (cubins are ELF too, for the GPU: not these).
check_libraries() {
  local dir=$1 f out bad="" n=0
  while IFS= read -r f; do
    is_elf "$f" || continue
    n=$((n + 1))
    out=$(ldd "$f" 2>&1 | grep -E 'not found|libLLVM')
    [[ -z $out ]] || bad+="${f#"$dir"/}: $out"$'\n'
  done < <(find "$dir" -type f \( -name '*.so*' -o -perm -u+x \) ! -name '*.cubin')
  if [[ -n $bad ]]; then
    echo "gpu.sh: ldd: $bad" >&2
    return 1
  fi
  echo "gpu.sh: ldd: $n programs and libraries, none needs libLLVM, none lacks a library"
}

# The gpu suite as lines "name<TAB>env (k=v;...)<TAB>command (tab-free, relative)".
write_test_list() {
  meson introspect "$B" --tests | python3 -c '
import json, os, sys
root = sys.argv[1]
def rel(a):
    return os.path.relpath(a, root) if a.startswith(root + "/") or a == root else a
build = sys.argv[2]
for t in json.load(sys.stdin):
    if "gpu" not in [s.split(":")[-1] for s in t["suite"]]:   # "kcc:gpu"
        continue
    env = ";".join(k + "=" + rel(v) for k, v in sorted(t["env"].items())
                   if k not in ("KC_SOURCE_ROOT", "KC_BUILD_ROOT"))
    # arguments Meson gives relative to the build directory (outputs of custom targets)
    # (not built yet when this runs): a relative path that is no file of the tree
    def arg(a):
        if os.path.isabs(a) or "/" not in a or os.path.exists(os.path.join(root, a)):
            return rel(a)
        return os.path.join(os.path.relpath(build, root), a)
    cmd = " ".join(arg(a) for a in t["cmd"])
    print(t["name"] + "\t" + env + "\t" + cmd)' "$ROOT" "$ROOT/$B" >"$B/gpu-tests.list"
  echo "gpu.sh: $(wc -l <"$B/gpu-tests.list") gpu-suite tests listed"
}

# ---- run: the machine and the bundle ---------------------------------------------------
gpu_name() {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
}

have_gpu() {
  [[ -n "$(gpu_name)" ]] && return 0
  ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && [[ -e /dev/nvidia0 ]]
}

# build-gpu/ as a meson build (here) is used as it is; otherwise it is the unpacked
# bundle, unpacked again whenever the pack differs from the one unpacked last (a warm
# device machine keeps build-gpu/ between calls).
unpack() {
  if [[ ! -f $B/build.ninja ]]; then
    [[ -f $PACK ]] || [[ -f $B/gpu-tests.list ]] ||
      die "no $PACK: run 'scripts/gpu.sh prepare' first, then carry .gpu"
    if [[ -f $PACK ]]; then
      local id
      id=$(cksum <"$PACK")
      if [[ ! -f $B/.bundle-id || $(cat "$B/.bundle-id") != "$id" ]]; then
        rm -rf "$B" && mkdir -p "$B" && tar xJf "$PACK" -C "$B" || die "cannot unpack $PACK"
        echo "$id" >"$B/.bundle-id"
        echo "gpu.sh: unpacked $PACK into $B/"
      fi
    fi
    check_libraries "$B" || die "the bundle's programs lack libraries"
  fi
  [[ -f $B/libdevice.10.bc ]] && export KC_LIBDEVICE=$ROOT/$B/libdevice.10.bc
  export KC_CACHE=0
}

# ---- run: steps, the budget, the results file ------------------------------------------
T0=$SECONDS
BUDGET=420
MODE=gpu            # gpu | cpu (the rehearsal)
RESULTS=""          # the results file this run writes
LOGDIR=""
STEPS_DONE=()       # "name<TAB>outcome" per finished step
SMOKE_TEXT=""
TEST_ROWS=""
NPASS=0 NFAIL=0 NSKIP=0 NCUT=0
BENCH_TEXT=""
CUT=0               # 1 once the budget is spent

elapsed() { echo $((SECONDS - T0)); }
budget_left() { echo $((BUDGET - (SECONDS - T0))); }
out_of_budget() {
  (( SECONDS - T0 < BUDGET )) && return 1
  CUT=1
  return 0
}

# The results file, whole, from what has run so far; copied to $OUT at once.
write_results() {
  local state
  if (( CUT )); then
    state="**cut short**: the budget of ${BUDGET} s was spent after $(elapsed) s; what did not start is marked \"not run (budget)\""
  elif [[ ${1:-} == final ]]; then
    state="complete ($(elapsed) s)"
  else
    state="**in progress** ($(elapsed) s so far; the run was stopped before it finished if this line remains)"
  fi
  {
    if [[ $MODE == cpu ]]; then
      echo "# kcc's GPU bundle rehearsed on the CPU back end (not a GPU result)"
      echo
      echo "Written by \`scripts/gpu.sh run --cpu\`: the GPU bundle's programs, unpacked into a"
      echo "fresh copy of the tree with no LLVM or meson on PATH, run with \`KC_DEVICE=cpu\`."
      echo "Nothing here ran on a GPU."
    else
      echo "# kcc on a GPU: results"
      echo
      echo "Written by \`scripts/gpu.sh run\` on the GPU machine, step by step as each finished."
      echo "What is marked passed or failed below ran on this GPU; what is marked skipped or"
      echo "not run did not."
    fi
    echo
    echo "- date: $RUN_DATE"
    echo "- device: $DEVICE"
    echo "- state: $state"
    echo "- tests: $NPASS passed, $NFAIL failed, $NSKIP skipped, $NCUT not run"
    echo
    echo "## What ran"
    echo
    echo "| step | outcome |"
    echo "|---|---|"
    local s
    for s in "${STEPS_DONE[@]}"; do echo "| ${s%%$'\t'*} | ${s#*$'\t'} |"; done
    echo
    echo "## Smoke (tests/gpu_smoke.c)"
    echo
    echo '```'
    echo "${SMOKE_TEXT:-not run}"
    echo '```'
    echo
    echo "## Tests (the gpu suite)"
    echo
    echo "| test | result |"
    echo "|---|---|"
    printf '%s' "$TEST_ROWS"
    echo
    echo "## Benchmarks (bench/gpu)"
    echo
    echo "${BENCH_TEXT:-not run}"
    echo
    echo "## How to run it"
    echo
    echo "1. Here (LLVM and the CUDA toolkit): \`scripts/gpu.sh prepare\` (packs \`.gpu/build-gpu.tar.xz\`)."
    echo "2. Through the device tool: \`run(carry=[\".gpu\"], command=\"scripts/gpu.sh run\", timeout_s=600)\`."
    echo
    echo "\`scripts/gpu.sh run --cpu --budget 60\` rehearses it anywhere; scripts/gpu.sh's header"
    echo "says what each step does."
  } >"$RESULTS"
  if [[ -n ${OUT:-} && $RESULTS != "$OUT/gpu-results.md" ]]; then
    cp "$RESULTS" "$OUT/gpu-results.md"
    [[ $MODE == gpu ]] && cp docs/performance.md "$OUT/"
  fi
}

step_done() {   # NAME OUTCOME
  STEPS_DONE+=("$1"$'\t'"$2")
  echo "gpu.sh: [$(elapsed) s] $1: $2"
  write_results
}

step_smoke() {
  local cubin=$B/$SMOKE_CUBIN rc
  [[ -f $cubin ]] || cubin=""
  SMOKE_TEXT=$(timeout 90 "$B/tests/gpu_smoke" samples/vector_add.k $cubin 2>&1)
  rc=$?
  echo "$SMOKE_TEXT" >"$LOGDIR/smoke.log"
  echo "$SMOKE_TEXT" | sed 's/^/  /'
  if (( rc == 0 )); then step_done smoke "passed"
  else step_done smoke "**FAILED** (exit $rc; log: smoke.log)"; fi
}

# One gpu-suite test: its log under $LOGDIR/tests, a row in the table.
run_test() {   # NAME ENV CMD
  local name=$1 env=$2 cmd=$3 log="$LOGDIR/tests/$1.log" rc what limit
  limit=$(budget_left)
  (( limit += 30, limit < 20 ? limit = 20 : 0, limit > 300 ? limit = 300 : 0 ))
  (
    export KC_SOURCE_ROOT=$ROOT KC_BUILD_ROOT=$ROOT/$B
    IFS=';'
    for kv in $env; do export "$kv"; done
    unset IFS
    [[ $MODE == cpu ]] && export KC_DEVICE=cpu
    # shellcheck disable=SC2086
    timeout "$limit" $cmd
  ) >"$log" 2>&1
  rc=$?
  case $rc in
    0) what=passed; NPASS=$((NPASS + 1)) ;;
    77) what="skipped: $(tail -1 "$log" | cut -c1-200)"; NSKIP=$((NSKIP + 1)) ;;
    124) what="**FAILED** (timed out after $limit s)"; NFAIL=$((NFAIL + 1)) ;;
    *) what="**FAILED** (exit $rc): $(grep -m1 -iE 'fail|error' "$log" | cut -c1-160)"
       NFAIL=$((NFAIL + 1)) ;;
  esac
  echo "  $name: $what"
  TEST_ROWS+="| \`$name\` | ${what//|/\\|} |"$'\n'
}

# A group of the suite: the tests whose names FILTER (an awk condition on $1) selects.
step_tests() {   # STEP FILTER
  local step=$1 filter=$2 name env cmd n=0 f0=$NFAIL cut=0
  while IFS=$'\t' read -r name env cmd; do
    [[ -n $name ]] || continue
    n=$((n + 1))
    if out_of_budget; then
      TEST_ROWS+="| \`$name\` | not run (budget) |"$'\n'
      NCUT=$((NCUT + 1)) cut=$((cut + 1))
      continue
    fi
    run_test "$name" "$env" "$cmd"
    write_results   # a run killed mid-step keeps every test that finished
  done < <(awk -F'\t' "$filter" "$B/gpu-tests.list")
  local outcome="$((n - cut)) of $n run, $((NFAIL - f0)) failed"
  (( cut )) && outcome+=", $cut not run (budget)"
  step_done "$step" "$outcome"
}

step_bench() {   # SECTION
  local text
  if out_of_budget; then step_done "bench: $1" "not run (budget)"; return; fi
  text=$("$B/bench/gpu/gpu_bench" "$ROOT" "$B/cubins" "$REPS" "$1" 2>"$LOGDIR/gpu_bench_$1.err")
  echo "$text" >"$LOGDIR/gpu_bench_$1.log"
  echo "$text"
  BENCH_TEXT+="### gpu_bench $1"$'\n\n'"$text"$'\n\n'
  if [[ $MODE == gpu ]]; then
    replace_section docs/performance.md "## GPU (bench/gpu)" "$(perf_section)"
  fi
  step_done "bench: $1" "$(echo "$text" | grep -m1 '^not run' || echo done)"
}

step_numba() {
  local text
  if out_of_budget; then step_done "bench: numba" "not run (budget)"; return; fi
  # Debian's python3 (with numpy, perhaps numba) before whatever python3 PATH finds first
  local py=python3
  [[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
  text=$(PYTHONUNBUFFERED=1 timeout "$(( $(budget_left) > 60 ? $(budget_left) : 60 ))" \
         "$py" bench/gpu/numba_bench.py "$ROOT" "$REPS" 2>"$LOGDIR/numba.err")
  echo "$text"
  BENCH_TEXT+="### Numba-CUDA (bench/gpu/numba_bench.py)"$'\n\n'"$text"$'\n\n'
  [[ $MODE == gpu ]] && replace_section docs/performance.md "## GPU (bench/gpu)" "$(perf_section)"
  step_done "bench: numba" "$(echo "$text" | grep -m1 '^not run' || echo done)"
}

perf_section() {
  cat <<MD
- date: $RUN_DATE
- GPU: $DEVICE
- command: \`scripts/gpu.sh run\` (\`$B/bench/gpu/gpu_bench . $B/cubins $REPS SECTION\` and
  \`python3 bench/gpu/numba_bench.py . $REPS\`); CUDA C peers built with
  \`nvcc -O3 -arch=sm_90 -cubin\`

$BENCH_TEXT
MD
}

# shellcheck source=bench/doc_section.sh
source bench/doc_section.sh   # write_section FILE HEADING BODY, as `make bench` writes
replace_section() {   # FILE HEADING TEXT: the section from HEADING to the next "## "
  write_section "$1" "$2" "$2"$'\n\n'"$3"
}

# The steps, most telling first; each writes the results file as it ends.
run_steps() {
  RUN_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
  mkdir -p "$LOGDIR/tests"
  echo "gpu.sh: $DEVICE, $RUN_DATE, budget $BUDGET s; results: $RESULTS"
  write_results
  step_smoke
  step_tests "kernels" '$1 !~ /^sample_/ && $1 != "cuda_gpu"'
  step_tests "runtime (test_cuda_gpu)" '$1 == "cuda_gpu"'
  step_tests "samples" '$1 ~ /^sample_/'
  step_bench launch
  step_bench bandwidth
  step_bench kernels
  step_numba
  write_results final
  echo "gpu.sh: $NPASS passed, $NFAIL failed, $NSKIP skipped, $NCUT not run; wrote $RESULTS"
  (( NFAIL == 0 )) && ! grep -q 'smoke.*FAILED' <<<"${STEPS_DONE[*]}" || return 1
  (( CUT == 0 )) || return 3   # nothing failed, but not everything ran
}

run() {
  if ! have_gpu; then
    echo "gpu.sh: not run: no GPU (nvidia-smi finds none, no libcuda.so.1 and /dev/nvidia0)"
    exit 0
  fi
  unpack
  if [[ ! -f $B/cubins/vector_add.cubin ]] && command -v nvcc >/dev/null 2>&1; then
    mkdir -p "$B/cubins"
    for cu in bench/cuda/*.cu; do
      nvcc -O3 -arch=sm_90 -cubin "$cu" -o "$B/cubins/$(basename "${cu%.cu}").cubin"
    done
  fi
  MODE=gpu
  DEVICE=$(gpu_name)
  LOGDIR=${OUT:-$B/logs}
  RESULTS=docs/gpu-results.md
  run_steps
}

# The rehearsal: the tree as the device tool copies it (git's tracked and unignored
# files) and .gpu/, nothing else, in a fresh directory; no LLVM, meson or clang on PATH.
rehearse() {
  if [[ -z ${KC_GPU_FRESH:-} ]]; then
    [[ -f $PACK ]] || die "no $PACK: run 'scripts/gpu.sh prepare' first"
    local shims out=${OUT:-$ROOT/$B/rehearsal} t
    [[ $out == /* ]] || out=$ROOT/$out
    FRESH=$(mktemp -d "${TMPDIR:-/tmp}/kcc-gpu-rehearsal-XXXXXX") || die "no temporary directory"
    trap 'rm -rf "$FRESH"' EXIT
    local fresh=$FRESH
    git ls-files -co --exclude-standard | while IFS= read -r t; do
      [[ -e $t ]] && printf '%s\0' "$t"
    done | xargs -0 cp --parents -t "$fresh" || die "cannot copy the tree (git ls-files) to $fresh"
    mkdir -p "$fresh/.gpu" && cp "$PACK" "$fresh/.gpu/"
    shims=$fresh/.no-llvm-bin
    mkdir -p "$shims"
    for t in meson ninja clang clang-22 clang-19 llvm-config llvm-config-22 llvm-config-21 \
             llvm-config-20 llvm-config-19; do
      printf '#!/bin/sh\necho "gpu.sh rehearsal: %s is not on the GPU machine" >&2\nexit 127\n' \
        "$t" >"$shims/$t"
      chmod +x "$shims/$t"
    done
    rm -rf "$out" && mkdir -p "$out"
    echo "gpu.sh: rehearsal in $fresh (the tree and .gpu/ only; no meson, ninja or LLVM on PATH)"
    (cd "$fresh" && KC_GPU_FRESH=1 OUT=$out PATH="$shims:$PATH" \
       bash scripts/gpu.sh run --cpu --budget "$BUDGET")
    return
  fi
  unpack
  MODE=cpu
  DEVICE="the CPU back end (KC_DEVICE=cpu; $(nproc) cores), no GPU"
  LOGDIR=${OUT:-$B/rehearsal}
  mkdir -p "$LOGDIR"
  RESULTS=$LOGDIR/gpu-results.md
  run_steps
}

parse_run_args() {
  while (( $# )); do
    case $1 in
      --cpu) MODE=cpu ;;
      --budget) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--budget takes a number of seconds"
                BUDGET=$2; shift ;;
      *) die "run: unknown option '$1' (run [--cpu] [--budget SECONDS])" ;;
    esac
    shift
  done
}

case "${1:-}" in
  prepare) prepare ;;
  run) shift; parse_run_args "$@"; if [[ $MODE == cpu ]]; then rehearse; else run; fi ;;
  all) prepare && run ;;
  *) echo "usage: scripts/gpu.sh prepare | run [--cpu] [--budget SECONDS] | all" >&2; exit 2 ;;
esac
