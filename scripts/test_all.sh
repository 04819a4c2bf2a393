#!/usr/bin/env bash
# make test-all: the slow checks, after `make test`'s build. Prints the time of each.
#   1. the whole suite built with -Db_sanitize=address,undefined in BUILD-asan
#      (LeakSanitizer on; UBSan stops at the first error)
#   2. the compiler and CPU runtime tests under valgrind memcheck (tests/run_valgrind.py)
#   3. the fuzz targets, KC_FUZZ_SECONDS each (default 60), when clang has libFuzzer
#   4. a bounded round of mutation fuzzing from the outside (scripts/mutate_compile.py,
#      KC_MUTANTS runs, default 300: a minute or two), its PTX checked by ptxas when present
#   5. the GPU bundle rehearsed (scripts/gpu.sh): built with LLVM linked in
#      (build-gpu/), packed, unpacked into a fresh copy of the tree with no LLVM or
#      meson on PATH, and every program of it run on the CPU back end, so the bundle a
#      lent GPU gets is known to build and run
# usage: scripts/test_all.sh BUILD LLVM_CONFIG
set -euo pipefail
build=${1:-build}
llvm_config=${2:-llvm-config-22}
asan=$build-asan
cd "$(dirname "$0")/.."
status=0
summary=()

step() {   # step NAME COMMAND...: run, time, remember the outcome
  local name=$1 t0=$SECONDS rc=0
  shift
  echo "== test-all: $name"
  "$@" || rc=$?
  summary+=("$(printf '%-10s %-6s %5d s' "$name" "$([ $rc = 0 ] && echo ok || echo FAILED)" $((SECONDS - t0)))")
  [ $rc = 0 ] || status=1
}

asan_suite() {
  [ -f "$asan/build.ninja" ] ||
    meson setup "$asan" -Dllvm_config="$llvm_config" -Db_sanitize=address,undefined \
      -Db_lundef=false -Dfuzz=disabled
  ninja -C "$asan"
  # not the install suite: it links programs with plain cc against the installed,
  # sanitised libraries (ASan wants its runtime first), and checks packaging, not memory;
  # nor the ptx suite, whose time is ptxas's (the NVPTX path runs sanitised in the
  # cuda-double suite)
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C "$asan" --no-rebuild --print-errorlogs --num-processes 2 \
      --timeout-multiplier 5 --no-suite gpu --no-suite fuzz --no-suite install --no-suite ptx
}

fuzz_suite() {
  if ! meson introspect --tests "$build" | grep -q '"fuzz_parse"'; then
    echo "no fuzz targets (clang with libFuzzer not found): skipped"
    return 0
  fi
  KC_FUZZ_SECONDS=${KC_FUZZ_SECONDS:-60} \
    meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 2 --suite fuzz
}

gpu_bundle() {
  scripts/gpu.sh prepare && scripts/gpu.sh run --cpu --budget 1200
}

step gpu-bundle gpu_bundle
step asan asan_suite
step valgrind python3 tests/run_valgrind.py "$build"
step fuzz fuzz_suite
step mutants python3 scripts/mutate_compile.py "$build/kcc" "${KC_MUTANTS:-300}" --seed 32 \
  --out "$build/mutants"
echo "== test-all summary"
printf '%s\n' "${summary[@]}"
exit $status
