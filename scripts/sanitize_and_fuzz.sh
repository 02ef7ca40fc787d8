#!/usr/bin/env bash
# Reliability checks (README "Reliability checks"): the CPU test suite under AddressSanitizer and
# UndefinedBehaviorSanitizer, then every libFuzzer target for a bounded time from the seed
# corpora of fuzz/make_corpus.sh. Fails on any test failure, sanitizer report or fuzzer finding.
#
#   scripts/sanitize_and_fuzz.sh                        what CI runs (after scripts/test.sh's tests)
#   GPP_FUZZ_SECONDS=600 scripts/sanitize_and_fuzz.sh   a longer fuzzing run
#
# Environment: GPP_SANITIZE_BUILD_DIR (default build-asan), GPP_JOBS (default: all cores),
# GPP_FUZZ_RUNS inputs per target from seed 1 (default 20000; what CI runs), or GPP_FUZZ_SECONDS per
# target of random fuzzing instead, GPP_SANITIZE_TESTS=0 / GPP_FUZZ=0 skip a half,
# GPP_SANITIZE_CTEST_ARGS replaces the test selection (default: -LE gpu).
# One clang build serves both halves: the libraries carry ASan, UBSan and libFuzzer's coverage
# counters; the tests link them without libFuzzer, the fuzz targets with it.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
build="${GPP_SANITIZE_BUILD_DIR:-build-asan}"
jobs="${GPP_JOBS:-$(nproc)}"
# CI runs each target a fixed number of inputs from a fixed seed (nearly the same run each time:
# the parsers' threads still vary the coverage); GPP_FUZZ_SECONDS asks for a random, timed run
# instead (the longer local one).
if [ -n "${GPP_FUZZ_SECONDS:-}" ]; then
  budget=(-max_total_time="$GPP_FUZZ_SECONDS")
else
  budget=(-seed=1 -runs="${GPP_FUZZ_RUNS:-20000}")
fi
start=$(date +%s)

cxx="$(command -v clang++-14 || command -v clang++ || true)"
cc="$(command -v clang-14 || command -v clang || true)"
[ -n "$cxx" ] && [ -n "$cc" ] || { echo "sanitize_and_fuzz: clang is not installed" >&2; exit 1; }
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPP_WITH_CUDA=OFF -DGPP_FUZZ=ON \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$build" -j "$jobs" --target gpp_tests fuzz_targets
echo "sanitize_and_fuzz: built in $(($(date +%s) - start)) s" >&2

# Sanitizer reports end the process with an error; UBSan prints where.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_stack_use_after_return=0:strict_string_checks=0}"
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

if [ "${GPP_SANITIZE_TESTS:-1}" = 1 ]; then
  read -r -a selection <<<"${GPP_SANITIZE_CTEST_ARGS:--LE gpu}"
  (cd "$build" && GPP_REQUIRE_PEERS=1 ctest --output-on-failure -j "$jobs" --timeout 1800 \
    "${selection[@]}")
  echo "sanitize_and_fuzz: tests done at $(($(date +%s) - start)) s" >&2
fi

if [ "${GPP_FUZZ:-1}" = 1 ]; then
  fuzz="$build/fuzz"
  rm -rf "$fuzz/seeds" "$fuzz/findings"
  fuzz/make_corpus.sh "$fuzz/seeds"
  mkdir -p "$fuzz/corpus" "$fuzz/findings"
  failed=()
  for binary in "$fuzz"/fuzz_*; do
    target="${binary##*/fuzz_}"
    mkdir -p "$fuzz/corpus/$target" "$fuzz/findings/$target"
    # -timeout: an input taking 10 s is a hang; -rss_limit_mb: 2 GB is more than any seed needs.
    if ! "$binary" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$fuzz/findings/$target/" "$fuzz/corpus/$target" "$fuzz/seeds/$target" \
      >"$fuzz/findings/$target.log" 2>&1; then
      failed+=("$target")
      tail -n 40 "$fuzz/findings/$target.log" >&2
    fi
    echo "sanitize_and_fuzz: $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' \
      "$fuzz/findings/$target.log" | grep -o '[0-9]*$' || echo '?') inputs" >&2
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "sanitize_and_fuzz: FINDINGS in: ${failed[*]} (inputs under $fuzz/findings/)" >&2
    # GPP_FUZZ_FATAL=0 (the test command's setting) reports them without failing: the targets'
    # coverage depends on the parsers' threads, so the same inputs can end differently.
    [ "${GPP_FUZZ_FATAL:-1}" = 0 ] || exit 1
  fi
fi
echo "sanitize_and_fuzz: passed in $(($(date +%s) - start)) s" >&2
