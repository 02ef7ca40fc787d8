#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs the whole CPU test suite.
# GPU tests skip themselves where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/check_format.sh
scripts/build.sh
cd "${GPP_BUILD_DIR:-build}"
# Conformance tests must not skip for want of a peer tool here (they may on a bare GPU host).
export GPP_REQUIRE_PEERS=1
ctest --output-on-failure -j "$(nproc)" --timeout 900
