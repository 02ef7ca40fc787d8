#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs the whole CPU test suite.
# GPU tests skip themselves where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
cd "${GPP_BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" --timeout 900
