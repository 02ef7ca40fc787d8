#!/usr/bin/env bash
# Fails when a C++/CUDA source is not formatted with the repository's .clang-format (clang-format 14,
# Debian's). `scripts/check_format.sh --fix` formats them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.inl')
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2> /tmp/gpp_format.$$; then
  grep 'code should be clang-formatted' /tmp/gpp_format.$$ | cut -d: -f1,2 | sort -u | head -20 >&2
  rm -f /tmp/gpp_format.$$
  echo "check_format: files above are not clang-formatted; run scripts/check_format.sh --fix" >&2
  exit 1
fi
rm -f /tmp/gpp_format.$$
echo "check_format: ${#files[@]} files formatted"
