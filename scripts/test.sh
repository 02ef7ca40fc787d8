#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs the whole CPU test suite, then
# the sanitizer and fuzzing checks. GPU tests skip themselves where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/check_format.sh
scripts/build.sh
# Conformance tests must not skip for want of a peer tool here (they may on a bare GPU host).
(cd "${GPP_BUILD_DIR:-build}" && GPP_REQUIRE_PEERS=1 ctest --output-on-failure -j "$(nproc)" --timeout 900)
# Reliability checks (README): the CPU suite under ASan + UBSan, then each fuzz target on a fixed
# set of inputs (seed 1),
# in build-asan/. GPP_SANITIZE_AND_FUZZ=0 skips them.
# The sanitized suite (with the regression inputs of earlier findings) must pass; new fuzzer
# findings are printed for a person to turn into regression inputs, not made fatal here.
if [ "${GPP_SANITIZE_AND_FUZZ:-1}" = 1 ]; then
  GPP_FUZZ_FATAL="${GPP_FUZZ_FATAL:-0}" scripts/sanitize_and_fuzz.sh
fi
