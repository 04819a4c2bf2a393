#!/usr/bin/env bash
# scripts/gpu.sh — every GPU check and benchmark of kcc in one command, for a GPU
# machine that has no LLVM (and perhaps no meson): build here, run there.
#
#   scripts/gpu.sh prepare   (here, with LLVM and the CUDA toolkit)
#       builds build-gpu/ with LLVM linked statically (meson -Dllvm_static=true): the
#       gpu-suite test programs, kcc and bench/gpu/gpu_bench, stripped; the CUDA C
#       benchmark peers bench/cuda/*.cu as cubins (nvcc -O3 -arch=sm_90 -cubin);
#       libdevice; and build-gpu/gpu-tests.list, the gpu suite's tests (from meson
#       introspect) with paths relative to the tree, so no meson is needed to run them.
#       Then packs what the GPU machine needs into .gpu/build-gpu.tar.xz (git-ignored,
#       under the 64 MiB a device call carries): carry ".gpu".
#   scripts/gpu.sh run       (there; also safe here)
#       unpacks .gpu/build-gpu.tar.xz when build-gpu/ is absent, runs every gpu-suite
#       test (each kernel test on CUDA, the runtime's GPU test, the AOT sample) and the
#       GPU benchmarks (bench/gpu/gpu_bench, bench/gpu/numba_bench.py), and writes
#       docs/gpu-results.md (tests) and the "## GPU (bench/gpu)" section of
#       docs/performance.md, with the date and the GPU's name; copies of both and the
#       logs go to $OUT when it is set. Without a GPU it says "not run: no GPU" and
#       exits 0, writing nothing.
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
  # the gpu suite's programs, kcc and the benchmark (not the CPU-only test programs)
  local targets
  targets=$(meson introspect "$B" --tests | python3 -c '
import json, os, sys
root = sys.argv[1]
for t in json.load(sys.stdin):
    if "gpu" in t["suite"] and t["cmd"][0].startswith(root):
        print(os.path.relpath(t["cmd"][0], root))' "$ROOT/$B")
  ninja -C "$B" -j "${JOBS:-2}" kcc bench/gpu/gpu_bench $targets || die "build failed"
  for f in kcc bench/gpu/gpu_bench $targets; do strip --strip-unneeded "$B/$f"; done
  write_test_list
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
  mkdir -p .gpu
  # only what run needs: the programs, the list, the cubins, libdevice
  (cd "$B" && tar cJf "$ROOT/$PACK" kcc bench/gpu/gpu_bench $targets gpu-tests.list \
     cubins $( [[ -f libdevice.10.bc ]] && echo libdevice.10.bc)) || die "packing failed"
  local size
  size=$(du -m "$PACK" | cut -f1)
  echo "gpu.sh: prepared $PACK (${size} MiB); on the GPU machine: scripts/gpu.sh run (carry .gpu)"
  (( size < 60 )) || die "$PACK is ${size} MiB: over what a device call carries"
}

# The gpu suite as lines "name<TAB>env (k=v;...)<TAB>command (tab-free, relative)".
write_test_list() {
  meson introspect "$B" --tests | python3 -c '
import json, os, sys
root = sys.argv[1]
def rel(a):
    return os.path.relpath(a, root) if a.startswith(root + "/") or a == root else a
for t in json.load(sys.stdin):
    if "gpu" not in t["suite"]:
        continue
    env = ";".join(k + "=" + rel(v) for k, v in sorted(t["env"].items())
                   if k not in ("KC_SOURCE_ROOT", "KC_BUILD_ROOT"))
    cmd = " ".join(rel(a) for a in t["cmd"])
    print(t["name"] + "\t" + env + "\t" + cmd)' "$ROOT" >"$B/gpu-tests.list"
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

replace_section() {   # FILE HEADING TEXT: the section from HEADING to the next "## "
  python3 - "$@" <<'PY'
import sys
path, heading, text = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    lines = open(path).read().split("\n")
except FileNotFoundError:
    lines = []
out, i, done = [], 0, False
while i < len(lines):
    if lines[i].strip() == heading:
        out += [heading, ""] + text.strip("\n").split("\n") + [""]
        i += 1
        while i < len(lines) and not lines[i].startswith("## "):
            i += 1
        done = True
        continue
    out.append(lines[i])
    i += 1
if not done:
    out += ["", heading, ""] + text.strip("\n").split("\n") + [""]
open(path, "w").write("\n".join(out).rstrip("\n") + "\n")
PY
}

run() {
  if ! have_gpu; then
    echo "gpu.sh: not run: no GPU (nvidia-smi finds none, no libcuda.so.1 and /dev/nvidia0)"
    exit 0
  fi
  if [[ ! -f $B/gpu-tests.list ]]; then
    [[ -f $PACK ]] || die "no $B/gpu-tests.list and no $PACK: run 'scripts/gpu.sh prepare' first"
    mkdir -p "$B" && tar xJf "$PACK" -C "$B" || die "cannot unpack $PACK"
  fi
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
  run) run ;;
  all) prepare && run ;;
  *) echo "usage: scripts/gpu.sh prepare|run|all" >&2; exit 2 ;;
esac
