#!/usr/bin/env bash
# Rewrites Picard's goldens for the markdup conformance tests (README.md here): runs those tests
# with GPP_PICARD=update, so each case runs Picard with exactly the commands the tests use and
# stores its verdict here. Needs Java, Debian picard-tools 2.27.5, samtools and a built gpp_tests.
#   tests/data/picard_golden/make_goldens.sh [BUILD_DIR]   (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$(cd "$root" && realpath "${1:-${GPP_BUILD_DIR:-build}}")
version=$( (PicardCommandLine MarkDuplicates --version 2>&1 || true) | sed -n 's/^Version://p')
if [ "$version" != "2.27.5" ]; then
  echo "make_goldens.sh: Picard 2.27.5 (Debian picard-tools) needed, found '${version:-none}'" >&2
  exit 1
fi
echo "Picard $version, $(samtools --version | head -1)"
# Every golden is rewritten; one no test makes any more goes.
rm -f "$here"/*.duplicates.tsv.gz "$here"/*.metrics.txt
GPP_PICARD=update GPP_TEST_DATA="$root/tests/data" \
  "$build/gpp_tests" --gtest_filter='MarkdupConformance.*' --gtest_brief=1
ls "$here" | grep -c '\.duplicates\.tsv\.gz$' | sed 's/$/ cases written/'
du -sh "$here"
