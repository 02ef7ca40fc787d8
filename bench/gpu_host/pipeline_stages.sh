#!/usr/bin/env bash
# Sort and markdup at scale on the GPU host, from the bundle: generates PAIRS read pairs with
# bench_generate, then times, on the same unsorted BAM in the same run: gpu-pipeline sort and
# markdup on the GPU and on the CPU backend (all cores), and the bundled samtools pipelines.
# Prints a Markdown table (wall s, reads/s, our peak host memory, peak GPU memory in use).
#   bench/gpu_host/pipeline_stages.sh BUNDLE_DIR REFERENCE.fa.gz [PAIRS=10000000] [WORK=/tmp/gpp-bench]
set -euo pipefail
bundle=$(realpath "$1")
reference=$(realpath "$2")
pairs=${3:-10000000}
work=${4:-/tmp/gpp-bench}
threads=$(nproc)
mkdir -p "$work"
cd "$work"
export PATH="$bundle/bin:$PATH"
input=generated.unsorted.bam
[ -s "$input" ] || bench_generate "$reference" "$input" "$pairs" 2>&1 | tail -1
reads=$((pairs * 2))

gpu_peak=0
sample_gpu() {  # peak GPU memory in use (MiB) while a command runs, from nvidia-smi
  ( while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1; sleep 0.2; done ) > gpu.txt &
  echo $!
}
row() {  # name, command...
  local name=$1
  shift
  local sampler
  sampler=$(sample_gpu)
  local start end
  start=$(date +%s.%N)
  "$@" > "log.txt" 2>&1 || { kill "$sampler"; echo "| $name | failed: $(tail -1 log.txt) |"; return; }
  end=$(date +%s.%N)
  kill "$sampler" 2>/dev/null || true
  local gpu_mb host_mb
  gpu_mb=$(sort -n gpu.txt | tail -1)
  host_mb=$(grep -o 'peak memory [0-9]* MB' log.txt | grep -o '[0-9]*' || echo "-")
  awk -v n="$name" -v a="$start" -v b="$end" -v r="$reads" -v h="$host_mb" -v g="$gpu_mb" \
    'BEGIN {printf "| %s | %.2f | %.0f | %s | %s |\n", n, b - a, r / (b - a), h, g}'
}

echo "input: $pairs generated pairs ($reads records), $threads cores, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo
echo "| run | wall s | reads/s | peak host MB (ours) | peak GPU MiB in use |"
echo "|---|---|---|---|---|"
row "gpu-pipeline sort --device gpu" gpu-pipeline sort -I "$input" -O sort.gpu.bam --device gpu
row "gpu-pipeline sort --device cpu" gpu-pipeline sort -I "$input" -O sort.cpu.bam --device cpu
row "gpu-pipeline sort --device gpu --compression-level 1" gpu-pipeline sort -I "$input" -O sort.gpu1.bam --device gpu --compression-level 1
row "gpu-pipeline sort --device gpu --gpu-write" gpu-pipeline sort -I "$input" -O sort.gpuw.bam --device gpu --gpu-write
row "samtools sort -@$threads" samtools sort -@"$threads" -m 2G -o sort.samtools.bam "$input"
row "gpu-pipeline markdup --device gpu" gpu-pipeline markdup -I "$input" -O md.gpu.bam -M md.gpu.txt --device gpu
row "gpu-pipeline markdup --device cpu" gpu-pipeline markdup -I "$input" -O md.cpu.bam -M md.cpu.txt --device cpu
row "gpu-pipeline markdup --device gpu --compression-level 1" gpu-pipeline markdup -I "$input" -O md.gpu1.bam -M md.gpu1.txt --device gpu --compression-level 1
row "gpu-pipeline markdup --device gpu --gpu-write" gpu-pipeline markdup -I "$input" -O md.gpuw.bam -M md.gpuw.txt --device gpu --gpu-write
row "samtools collate|fixmate|sort|markdup -@$threads" sh -c \
  "samtools collate -@$threads -u -O $input tmpcollate | samtools fixmate -@$threads -u -m - - | samtools sort -@$threads -u -m 2G - | samtools markdup -@$threads - md.samtools.bam"
echo
cmp -s <(samtools view sort.gpu.bam) <(samtools view sort.samtools.bam) && echo "sort: GPU output records identical to samtools sort" || echo "sort: GPU output DIFFERS from samtools sort"
cmp -s <(samtools view md.gpu.bam) <(samtools view md.cpu.bam) && echo "markdup: GPU and CPU outputs identical" || echo "markdup: GPU and CPU outputs DIFFER"
cmp -s <(tail -n +6 md.gpu.txt) <(tail -n +6 md.cpu.txt) && echo "markdup: GPU and CPU metrics identical" || echo "markdup: metrics DIFFER"
echo "duplicates: ours $(samtools view -c -f 1024 md.gpu.bam), samtools markdup $(samtools view -c -f 1024 md.samtools.bam)"
cmp -s <(samtools view sort.gpuw.bam) <(samtools view sort.gpu.bam) && echo "sort --gpu-write: records identical to the default output" || echo "sort --gpu-write: records DIFFER"
cmp -s <(samtools view md.gpuw.bam) <(samtools view md.gpu.bam) && echo "markdup --gpu-write: records identical to the default output" || echo "markdup --gpu-write: records DIFFER"
echo "output sizes (MB): $(for f in sort.gpu.bam sort.gpu1.bam sort.gpuw.bam sort.samtools.bam md.gpu.bam md.gpuw.bam; do printf '%s %.1f; ' "$f" "$(stat -c %s "$f" | awk '{print $1 / 1e6}')"; done)"
