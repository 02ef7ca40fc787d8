#!/usr/bin/env bash
# The GPU tests under NVIDIA compute-sanitizer, on a GPU host, from a bundle (scripts/bundle.sh):
# memcheck on the kernel tests and on the command-level GPU tests (every gpu-pipeline process they
# start included), racecheck on the kernel tests; the three run side by side. Fails when a tool
# reports an error or a test fails.
#   scripts/gpu_sanitize.sh BUNDLE OUT_DIR
# Left out: the test that provokes cudaMalloc failures on purpose (memcheck reports each one), and
# under racecheck the two longest (a 40 s and a 25 s test under memcheck).
set -euo pipefail
bundle=$(realpath "$1"); out=$(realpath -m "$2"); mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
export GPP_TEST_DATA=${GPP_TEST_DATA:-$here/tests/data} GPP_BINARY=$bundle/bin/gpu-pipeline
export PATH=$bundle/bin:$PATH
tests=$bundle/bin/gpp_tests
kernels='BgzfDeflateGpu.*:BgzfInflateGpu.*:DeviceGpu.*:PairHmmGpu.*:SmithWatermanGpu.*:SortByKeyGpu.*'
kernels+=':BqsrKernelGpu.*:ApplyBqsrKernelGpu.*:HaplotypeCigarGpu.*:ReadEndSortGpu.*'
kernels+=':CoordinateSortGpu.*:MarkdupGpu.*:BqsrCountingGpu.*'
commands='CallGpu.*:GvcfGpu.*:GpuWriteGpu.*:PairHmmCliGpu.*:SwCommandGpu.*:BqsrConformanceGpu.*'
commands+=':ApplyBqsrConformanceGpu.*'
on_purpose='SmithWatermanGpu.OutOfMemoryRetriesWithSmallerChunks'
longest='SmithWatermanGpu.EmptyAndHugePairs:PairHmmGpu.LongReadsThroughTheMultiTileKernel'
sanitize() {  # NAME TOOL-ARGUMENTS... -- GTEST-FILTER
  local name=$1; shift
  local args=(); while [ "$1" != "--" ]; do args+=("$1"); shift; done; shift
  compute-sanitizer "${args[@]}" --print-limit 30 --error-exitcode 99 "$tests" \
    --gtest_filter="$1" >"$out/$name.txt" 2>&1 && echo "$name: passed" >"$out/$name.status" ||
    echo "$name: FAILED" >"$out/$name.status"
  cat "$out/$name.status"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/$name.txt" | sed "s/^/$name: /"
}
sanitize memcheck_kernels --tool memcheck --leak-check no -- "$kernels:-$on_purpose" &
sanitize memcheck_commands --tool memcheck --leak-check no --target-processes all -- "$commands" &
sanitize racecheck_kernels --tool racecheck -- "$kernels:-$on_purpose:$longest" &
wait
! grep -q "FAILED" "$out"/*.status
