#!/usr/bin/env bash
# Smith-Waterman with traceback on bench_sw's two HaplotypeCaller-shaped workloads: our CPU backend,
# the GPU (when built with CUDA and a GPU is present) and Intel GKL's AVX aligner (when Debian's
# libgkl-jni is installed; bench_sw calls it directly). Rows (GCUPS) go to $GPP_BENCH_ROWS, one
# stage per workload; bench_sw's own Markdown goes to sw.md in the work directory.
# bench_sw uses every core.
#   bench/sw/run.sh [BUILD_DIR] [PAIRS=1000000] [CPU_PAIRS=100000]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-$here/../../build}")
pairs=${2:-1000000}
cpu_pairs=${3:-100000}
[ -x "$build/bench_sw" ] || { echo "bench/sw/run.sh: error: $build/bench_sw: not built" >&2; exit 1; }
work=${GPP_BENCH_DIR:-$here/../out/sw}
source "$here/../lib/measure.sh"
bench_enter "$work"

"$build/bench_sw" --pairs "$pairs" --cpu-pairs "$cpu_pairs" >sw.md 2>sw.log
# | workload | backend | pairs | shortcut pairs | DP cells | wall s | GCUPS (transfers incl.) | kernel s | GCUPS (kernels only) | GPU/CPU |
awk -F'|' '$2 ~ /read-to-haplotype|haplotype-to-reference/ {
  for (i = 2; i <= 10; ++i) gsub(/^ +| +$/, "", $i)
  print $2 "\t" $3 "\t" $4 "\t" $7 "\t" $8 "\t" $10 }' sw.md |
while IFS=$'\t' read -r workload backend count seconds gcups kernel_gcups; do
  if [[ "$backend" == Intel* ]]; then
    bench_row "sw $workload" "Intel GKL AVX Smith-Waterman (${backend#*(}" peer "$seconds" "$gcups" GCUPS - - "$count pairs"
  else
    note="$count pairs"
    [[ "$backend" == gpu* ]] && note="$count pairs, transfers included; kernels only: $kernel_gcups GCUPS"
    bench_row "sw $workload" "gpu-pipeline SW, $backend" ours "$seconds" "$gcups" GCUPS - - "$note"
  fi
done
grep -q 'Intel GKL' sw.md || bench_fact "sw: Intel GKL peer" "not run (needs Debian libgkl-jni)"
grep -E "differs from ours" sw.md | while read -r line; do bench_fact "sw: GKL vs ours" "$line"; done
bench_table | grep -E '^\| (sw|stage)|^\|---' || true
