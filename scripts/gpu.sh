#!/usr/bin/env bash
# scripts/gpu.sh — every GPU check and benchmark of kcc in one command, for a GPU
# machine that has no LLVM (and perhaps no meson): build here, run there.
#
#   scripts/gpu.sh prepare   (here, with LLVM and the CUDA toolkit)
#       builds build-gpu/ (meson -Dllvm_static=true): libkc.so with the LLVM code it
#       uses linked in and hidden, and every gpu-suite program (each kernel test, the
#       samples, test_cuda_gpu, the AOT sample) and bench/gpu/gpu_bench linked against
#       it, each finding it through an $ORIGIN-relative rpath; the CUDA C benchmark peers
#       bench/cuda/*.cu as cubins (nvcc -O3 -arch=sm_90 -cubin); libdevice; and
#       build-gpu/gpu-tests.list, the gpu suite's tests (from meson introspect) with
#       paths relative to the tree, so no meson is needed to run them. Then packs those
#       files, stripped, into .gpu/build-gpu.tar.xz (git-ignored, about 13 MiB, under the
#       64 MiB a device call carries): carry ".gpu". kcc itself is not carried: what
#       the suite needs from it (the AOT header, test_cuda_gpu's PTX) is made here.
#   scripts/gpu.sh run       (there; also safe here)
#       unpacks .gpu/build-gpu.tar.xz when build-gpu/ is absent, runs every gpu-suite
#       test and the GPU benchmarks (bench/gpu/gpu_bench, bench/gpu/numba_bench.py), and
#       writes docs/gpu-results.md (tests) and the "## GPU (bench/gpu)" section of
#       docs/performance.md, with the date and the GPU's name; copies of both and the
#       logs go to $OUT when it is set. Without a GPU it says "not run: no GPU" and
#       exits 0, writing nothing.
#   scripts/gpu.sh run --cpu (anywhere: a rehearsal of the bundle)
#       the same programs from the same bundle with KC_DEVICE=cpu forced, so each kernel
#       test and sample runs on the CPU back end through the carried libkc.so (its JIT
#       is the carried LLVM); test_cuda_gpu and the benchmarks report no GPU. Writes no
#       docs: it proves the bundle runs, only the device differs.
#   scripts/gpu.sh all       prepare, then run (a machine with LLVM and a GPU)
#
# On the device machine: run(carry=[".gpu"], command="scripts/gpu.sh run").
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
B=build-gpu
PACK=.gpu/build-gpu.tar.xz
REPS=${REPS:-21}

die() { echo "gpu.sh: $*" >&2; exit 1; }

# ---- prepare ---------------------------------------------------------------------------
prepare() {
  local llvm_config=${LLVM_CONFIG:-}
  if [[ -z "$llvm_config" ]]; then
    for c in llvm-config-22 llvm-config-21 llvm-config-20 llvm-config; do
      command -v "$c" >/dev/null 2>&1 && { llvm_config=$c; break; }
    done
  fi
  [[ -n "$llvm_config" ]] || die "prepare needs LLVM (llvm-config): run it where kcc builds"
  if [[ ! -f $B/build.ninja ]]; then
    meson setup "$B" -Dllvm_static=true -Dllvm_config="$llvm_config" -Dbuildtype=release ||
      die "meson setup failed"
  fi
  ninja -C "$B" build.ninja >/dev/null || die "meson could not regenerate $B"
  write_test_list
  # the gpu suite's programs and the files under $B its arguments name (they bring
  # libkc.so, kcc, the AOT header and the PTX along as dependencies), and the benchmark
  local files
  files=$(cut -f3 "$B/gpu-tests.list" | tr ' ' '\n' | grep "^$B/" | sed "s|^$B/||" |
          sort -u)
  # the shared libraries by their file names (libkc.so.0.1.0); the programs load them by
  # their sonames (libkc.so.0, libkcrt.so.0: the AOT sample links the runtime alone)
  local version libs
  version=$(meson introspect "$B" --projectinfo |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
  libs="libkc.so.0 libkcrt.so.0"
  ninja -C "$B" -j "${JOBS:-2}" "libkc.so.$version" "libkcrt.so.$version" \
    bench/gpu/gpu_bench $files || die "build failed"
  # the CUDA C peers of the benchmark kernels
  mkdir -p "$B/cubins"
  local nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
  if [[ -x $nvcc ]]; then
    for cu in bench/cuda/*.cu; do
      "$nvcc" -O3 -arch=sm_90 -cubin "$cu" -o "$B/cubins/$(basename "${cu%.cu}").cubin" ||
        die "nvcc failed on $cu"
    done
  else
    echo "gpu.sh: no nvcc: run will build the cubins there (the GPU image has nvcc)"
  fi
  local libdevice=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
  [[ -f $libdevice ]] && cp "$libdevice" "$B/libdevice.10.bc"
  # stage copies (stripped programs, the same layout, so the rpaths hold) and pack them
  local stage=$B/bundle
  rm -rf "$stage" && mkdir -p "$stage"
  (cd "$B" && cp --parents $libs bench/gpu/gpu_bench $files gpu-tests.list \
     $(ls cubins/*.cubin 2>/dev/null) $( [[ -f libdevice.10.bc ]] && echo libdevice.10.bc) \
     bundle/) || die "staging failed"
  local f
  for f in $libs bench/gpu/gpu_bench $files; do
    if file -b "$stage/$f" | grep -q ELF; then strip --strip-unneeded "$stage/$f"; fi
  done
  if ldd "$stage/libkc.so.0" | grep -q libLLVM; then
    die "$B/libkc.so.0 needs libLLVM: configure $B with -Dllvm_static=true"
  fi
  mkdir -p .gpu
  tar cf - -C "$stage" . | xz -T"${JOBS:-2}" -6 >"$PACK" || die "packing failed"
  local size
  size=$(du -m "$PACK" | cut -f1)
  echo "gpu.sh: prepared $PACK (${size} MiB: $(tar tJf "$PACK" | grep -vc '/$') files);" \
       "on the GPU machine: scripts/gpu.sh run (carry .gpu)"
  (( size < 60 )) || die "$PACK is ${size} MiB: over what a device call carries"
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

# ---- run ---------------------------------------------------------------------------------
gpu_name() {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
}

have_gpu() {
  [[ -n "$(gpu_name)" ]] && return 0
  ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && [[ -e /dev/nvidia0 ]]
}

run_tests() {
  local pass=0 fail=0 skip=0 rows="" logdir=$1
  while IFS=$'\t' read -r name env cmd; do
    [[ -n "$name" ]] || continue
    local log="$logdir/$name.log" rc
    (
      export KC_SOURCE_ROOT=$ROOT KC_BUILD_ROOT=$ROOT/$B
      IFS=';'
      for kv in $env; do export "$kv"; done
      unset IFS
      [[ -n ${FORCE_DEVICE:-} ]] && export KC_DEVICE=$FORCE_DEVICE
      # shellcheck disable=SC2086
      timeout 300 $cmd
    ) >"$log" 2>&1
    rc=$?
    local what
    case $rc in
      0) what=passed; pass=$((pass + 1)) ;;
      77) what="skipped: $(tail -1 "$log")"; skip=$((skip + 1)) ;;
      *) what="**FAILED** (exit $rc): $(grep -m1 -iE 'fail|error' "$log" | cut -c1-160)"
         fail=$((fail + 1)) ;;
    esac
    echo "  $name: $what"
    rows+="| \`$name\` | $what |"$'\n'
  done <"$B/gpu-tests.list"
  TEST_ROWS=$rows
  TEST_SUMMARY="$pass passed, $fail failed, $skip skipped"
  return $((fail > 0))
}

# shellcheck source=bench/doc_section.sh
source bench/doc_section.sh   # write_section FILE HEADING BODY, as `make bench` writes
replace_section() {   # FILE HEADING TEXT: the section from HEADING to the next "## "
  write_section "$1" "$2" "$2"$'\n\n'"$3"
}

unpack() {
  if [[ ! -f $B/gpu-tests.list ]]; then
    [[ -f $PACK ]] || die "no $B/gpu-tests.list and no $PACK: run 'scripts/gpu.sh prepare' first"
    mkdir -p "$B" && tar xJf "$PACK" -C "$B" || die "cannot unpack $PACK"
    echo "gpu.sh: unpacked $PACK into $B/"
  fi
  # every library the programs need must be there (libkc.so.0 carries LLVM)
  local missing
  missing=$(ldd "$B/libkc.so.0" "$B/libkcrt.so.0" "$B/bench/gpu/gpu_bench" 2>&1 |
            grep -E 'not found|libLLVM')
  [[ -z $missing ]] || die "the bundle's programs lack libraries: $missing"
}

# The bundle's programs on the CPU back end: proves the bundle runs without a GPU.
rehearse() {
  unpack
  export KC_CACHE=0 FORCE_DEVICE=cpu
  [[ -f $B/libdevice.10.bc ]] && export KC_LIBDEVICE=$ROOT/$B/libdevice.10.bc
  local logdir=${OUT:-$B/logs}/rehearsal
  mkdir -p "$logdir"
  echo "gpu.sh: rehearsal: the gpu suite's programs with KC_DEVICE=cpu (no GPU is used)"
  run_tests "$logdir"
  local rc=$?
  echo "gpu.sh: rehearsal: $TEST_SUMMARY"
  echo "gpu.sh: rehearsal: gpu_bench: $("$B/bench/gpu/gpu_bench" "$ROOT" "$B/cubins" 1 2>&1)"
  return $rc
}

run() {
  if ! have_gpu; then
    echo "gpu.sh: not run: no GPU (nvidia-smi finds none, no libcuda.so.1 and /dev/nvidia0)"
    exit 0
  fi
  unpack
  export KC_CACHE=0
  [[ -f $B/libdevice.10.bc ]] && export KC_LIBDEVICE=$ROOT/$B/libdevice.10.bc
  if [[ ! -f $B/cubins/vector_add.cubin ]] && command -v nvcc >/dev/null 2>&1; then
    mkdir -p "$B/cubins"
    for cu in bench/cuda/*.cu; do
      nvcc -O3 -arch=sm_90 -cubin "$cu" -o "$B/cubins/$(basename "${cu%.cu}").cubin"
    done
  fi
  local gpu date logdir
  gpu=$(gpu_name)
  date=$(date -u '+%Y-%m-%d %H:%M UTC')
  logdir=${OUT:-$B/logs}
  mkdir -p "$logdir/tests"
  echo "gpu.sh: $gpu, $date"
  echo "gpu.sh: the gpu suite"
  run_tests "$logdir/tests"
  local tests_rc=$?
  echo "gpu.sh: $TEST_SUMMARY"
  cat >docs/gpu-results.md <<MD
# kcc on a GPU: test results

Written by \`scripts/gpu.sh run\` (built by \`scripts/gpu.sh prepare\`). Every test of
the \`gpu\` suite: each kernel test of \`tests/kernels/\` run on CUDA, the runtime's GPU
test (\`tests/test_cuda_gpu.c\`: arrays, PTX, cubins, launches, streams, events) and the
ahead-of-time sample (its sm_90 cubin on a Hopper GPU).

- date: $date
- GPU: $gpu
- result: $TEST_SUMMARY

To run it again: \`scripts/gpu.sh prepare\` here (it packs \`.gpu/build-gpu.tar.xz\`:
one \`libkc.so\` with LLVM inside and the gpu suite's programs), then on the GPU machine
\`run(carry=[".gpu"], command="scripts/gpu.sh run", timeout_s=600)\`.
\`scripts/gpu.sh run --cpu\` rehearses the bundle on the CPU back end.

| test | result |
|---|---|
$TEST_ROWS
MD
  echo "gpu.sh: benchmarks"
  local bench numba
  bench=$("$B/bench/gpu/gpu_bench" "$ROOT" "$B/cubins" "$REPS" 2>"$logdir/gpu_bench.err")
  echo "$bench"
  numba=$(PYTHONUNBUFFERED=1 python3 bench/gpu/numba_bench.py "$ROOT" "$REPS" 2>"$logdir/numba.err")
  echo "$numba"
  replace_section docs/performance.md "## GPU (bench/gpu)" "$(cat <<MD
- date: $date
- GPU: $gpu
- command: \`scripts/gpu.sh run\` (\`$B/bench/gpu/gpu_bench . $B/cubins $REPS\` and
  \`python3 bench/gpu/numba_bench.py . $REPS\`); CUDA C peers built with
  \`nvcc -O3 -arch=sm_90 -cubin\`

$bench

$numba
MD
)"
  if [[ -n "${OUT:-}" ]]; then
    cp docs/gpu-results.md docs/performance.md "$OUT/"
  fi
  echo "gpu.sh: wrote docs/gpu-results.md and docs/performance.md (## GPU (bench/gpu))"
  return $tests_rc
}

case "${1:-}" in
  prepare) prepare ;;
  run) if [[ ${2:-} == --cpu ]]; then rehearse; else run; fi ;;
  all) prepare && run ;;
  *) echo "usage: scripts/gpu.sh prepare|run [--cpu]|all" >&2; exit 2 ;;
esac
