#!/usr/bin/env bash
# Sort and markdup at scale on the GPU host, from the bundle: generates PAIRS read pairs with
# bench_generate (unless WORK already has them), then runs bench/sort/run.sh and
# bench/markdup/run.sh on the GPU and on the CPU backend (all cores) next to the bundled samtools:
# Markdown tables with wall s, reads/s, peak RSS, peak GPU memory in use, ratio to the best peer.
# bench/run.sh gpu-host runs these and the other stages into one report.
#   bench/gpu_host/pipeline_stages.sh BUNDLE_DIR REFERENCE.fa.gz [PAIRS=10000000] [WORK=/tmp/gpp-bench]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: bench/gpu_host/pipeline_stages.sh BUNDLE_DIR REFERENCE.fa.gz [PAIRS] [WORK]" >&2; exit 2; }
bundle=$(realpath "$1")
reference=$(realpath "$2")
pairs=${3:-10000000}
work=${4:-/tmp/gpp-bench}
threads=$(nproc)
mkdir -p "$work"
export PATH="$bundle/bin:$PATH"
input=$work/generated.unsorted.bam
[ -s "$input" ] || bench_generate "$reference" "$input" "$pairs" 2>&1 | tail -1
echo "input: $pairs generated pairs, $threads cores, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
GPP_BENCH_DIR=$work/sort "$here/../sort/run.sh" "$input" "$bundle/bin" "$threads" gpu,cpu
GPP_BENCH_DIR=$work/markdup "$here/../markdup/run.sh" "$input" "$bundle/bin" "$threads" gpu,cpu
