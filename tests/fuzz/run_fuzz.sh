#!/usr/bin/env bash
# run_fuzz.sh — run one libFuzzer target for a while from kcc's seed corpus.
#
# usage: run_fuzz.sh FUZZER [CORPUS_DIR]
#
#   FUZZER       a tests/fuzz target built by meson (build/tests/fuzz/fuzz_parse, ...)
#   CORPUS_DIR   where the corpus grows and persists between runs (long runs); default
#                a temporary directory, dropped at the end
#
# Environment:
#   KC_FUZZ_SECONDS   how long to fuzz (default 30); 0 only replays the seeds
#   KC_SOURCE_ROOT    the source tree (default: two levels above this script)
#   KC_FUZZ_ARTIFACTS where crashing inputs are written (default: ./fuzz-artifacts)
#   KC_FUZZ_EXTRA_SEEDS directories of more seed files (space-separated), read in place
#
# The seeds are every .k in the tree (tests/kernels, tests/errors, tests/filecheck,
# samples, bench), tests/fuzz/regress/* (inputs that once crashed, so a fixed crash
# that comes back fails at once) and the files of the directories in
# KC_FUZZ_EXTRA_SEEDS; fuzz_cache's are tests/fuzz/cache_seeds/* (kernel tables). They
# are read in place (-seed_inputs), not copied. The compiler's targets also mutate
# with tests/fuzz/mutate_kernels.c (many parameters, big tuples, stacked decorators,
# deep nesting). Exits non-zero on a crash, a leak, undefined behaviour, a
# timeout (10 s for one input) or a blow-up in memory; the input is kept under
# KC_FUZZ_ARTIFACTS and the command to reproduce it is printed.
set -euo pipefail
fuzzer=${1:?usage: run_fuzz.sh FUZZER [CORPUS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
root=${KC_SOURCE_ROOT:-$(cd "$here/../.." && pwd)}
seconds=${KC_FUZZ_SECONDS:-30}
name=$(basename "$fuzzer")
artifacts=${KC_FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
mkdir -p "$artifacts"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kcc-$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The seeds are read where they are (nothing copied): listed for -seed_inputs=@FILE.
seed_files() {
  case $name in
    fuzz_cache) ls "$root"/tests/fuzz/cache_seeds/* ;;
    *)
      for d in tests/kernels tests/errors tests/filecheck samples bench; do
        [ -d "$root/$d" ] && ls "$root/$d"/*.k 2>/dev/null
      done
      [ -d "$root/tests/fuzz/regress" ] && ls "$root"/tests/fuzz/regress/* 2>/dev/null
      # more seeds from outside the tree (e.g. kernels found in blog posts), if given
      for d in ${KC_FUZZ_EXTRA_SEEDS:-}; do [ -d "$d" ] && ls "$d"/* 2>/dev/null; done
      ;;
  esac
  true
}
{ seed_files | grep -v ',' || true; } | sort -u | paste -sd, >"$tmp/seeds"
dict=()
[ "$name" = fuzz_cache ] || dict=(-dict="$here/kc.dict")
corpus=${2:-$tmp/corpus}
mkdir -p "$corpus"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
echo "$name: $(tr , '\n' <"$tmp/seeds" | grep -c .) seeds, $seconds s, corpus $corpus"
status=0
# libFuzzer reads -max_total_time=0 as "no limit": 0 seconds here replays the seeds only
limit=(-max_total_time="$seconds")
[ "$seconds" = 0 ] && limit=(-runs=0)
"$fuzzer" "${limit[@]}" -timeout=10 -rss_limit_mb=2560 -max_len=4096 \
  "${dict[@]}" -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
  -seed="${KC_FUZZ_SEED:-0}" -seed_inputs=@"$tmp/seeds" "$corpus" 2>"$tmp/log" || status=$?
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::(number_of_executed_units|peak_rss_mb|new_units_added)|^Done' \
  "$tmp/log" || true
if [ "$status" -ne 0 ]; then
  tail -n 80 "$tmp/log"
  echo "$name: FAILED (status $status); the input is in $artifacts/ —"
  echo "  reproduce with: $fuzzer $artifacts/$name-<crash file>"
  exit 1
fi
echo "$name: no crash"
