#!/usr/bin/env bash
# `run` and `markdup` at genome scale on the GPU host, from the bundle, within --max-memory: a
# 500 Mb reference (the two 10 Mb contigs of tests/data repeated into two 250 Mb contigs), PAIRS
# read pairs on it in generation order (an aligner's order) and a fifth as many for the in-memory
# comparison; then, with /usr/bin/time and nvidia-smi sampled each 0.5 s:
#   run on the small set in memory, run on the large set with --max-memory MEMORY, markdup on the
#   large set with --max-memory MEMORY (all with --gpu-write; calling restricted to CALL_INTERVAL,
#   1 Mb, so that the figures are the post-alignment processing's)
# and prints a Markdown table: reads, wall s, reads/s, peak RSS, peak GPU memory, and the most
# disk the file system holding --tmp-dir gained meanwhile (spilled runs and the outputs).
#   bench/gpu_host/genome_scale.sh BUNDLE_DIR REFERENCE.fa.gz [PAIRS=50000000] [MEMORY=16G] [WORK=/tmp/gpp-scale]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/gpu_host/genome_scale.sh BUNDLE_DIR REFERENCE.fa.gz [PAIRS] [MEMORY] [WORK]" >&2; exit 2; }
bundle=$(realpath "$1")
source_reference=$(realpath "$2")
pairs=${3:-50000000}
memory=${4:-16G}
work=${5:-/tmp/gpp-scale}
threads=$(nproc)
export PATH="$bundle/bin:$PATH"
mkdir -p "$work"
call_interval=chrA:1-1000000

# Two contigs of 250 Mb: the first 10 Mb contigs of the source, 25 times each.
reference=$work/scale.fa
if [ ! -s "$reference.fai" ]; then
  mapfile -t contigs < <(cut -f1 "$source_reference.fai" | head -2)
  {
    for k in 0 1; do
      echo ">chr$([ $k = 0 ] && echo A || echo B)"
      for _ in $(seq 25); do samtools faidx "$source_reference" "${contigs[$k]}" | tail -n +2 | tr -d '\n'; done |
        fold -w 60
      echo
    done
  } > "$reference"
  samtools faidx "$reference"
fi

generate() {  # PAIRS NAME SEED
  [ -s "$work/$2.bam" ] && return
  local start=$SECONDS
  bench_generate "$reference" "$work/$2.bam" "$1" --seed "$3" --threads "$threads" \
    --known-sites "$work/$2.known.vcf.gz" 2>&1 | tail -1
  echo "generated $2: $1 pairs in $((SECONDS - start)) s, $(du -h "$work/$2.bam" | cut -f1)" >&2
}
generate $((pairs / 5)) small 11
generate "$pairs" large 12

rows=()
# measure LABEL READS TMPDIR COMMAND...: one table row.
measure() {
  local label=$1 reads=$2 tmp=$3
  shift 3
  local gpu_log=$work/gpu.log
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 > "$gpu_log" &
  local smi=$!
  # Spilled runs are unnamed files (O_TMPFILE): the file system's use, less what it was before.
  local disk_log=$work/disk.log base
  base=$(df -k --output=used "$tmp" | tail -1)
  : > "$disk_log"
  (while sleep 1; do echo $(( $(df -k --output=used "$tmp" | tail -1) - base )) >> "$disk_log"; done) &
  local du_loop=$!
  local start end
  sync  # what earlier commands left dirty is not written back inside this one
  start=$(date +%s.%N)
  env time -f "%M" -o "$work/time.txt" "$@" 2> "$work/$label.log" || { echo "$label failed:" >&2; tail -5 "$work/$label.log" >&2; }
  end=$(date +%s.%N)
  kill "$smi" "$du_loop" 2>/dev/null || true
  wait "$smi" "$du_loop" 2>/dev/null || true
  local rss gpu disk
  rss=$(tail -1 "$work/time.txt")
  gpu=$(sort -n "$gpu_log" | tail -1)
  disk=$(sort -n "$disk_log" | tail -1)
  rows+=("$(awk -v label="$label" -v reads="$reads" -v start="$start" -v end="$end" -v rss="$rss" \
    -v gpu="${gpu:-0}" -v disk="${disk:-0}" 'BEGIN {
      wall = end - start
      printf "| %s | %d | %.1f | %.2f M | %.1f GB | %.1f GB | %.1f GB |", label, reads, wall,
        reads / wall / 1e6, rss / 1048576, gpu / 1024, disk / 1048576 }')")
  grep -E "spilled run [0-9]+ |merging|peak|error|spilling:|marking duplicates:" "$work/$label.log" | tail -7 >&2 || true
}

small_reads=$(( pairs / 5 * 2 ))
large_reads=$(( pairs * 2 ))
mkdir -p "$work/tmp"
rm -rf "$work/out_small" "$work/out_large" "$work/md.bam"
measure "run, in memory" "$small_reads" "$work/tmp" \
  gpu-pipeline run "$work/small.bam" -R "$reference" --known-sites "$work/small.known.vcf.gz" \
  -L "$call_interval" --gpu-write -o "$work/out_small" --prefix s
rm -rf "$work/out_small"
measure "run, --max-memory $memory" "$large_reads" "$work/tmp" \
  gpu-pipeline run "$work/large.bam" -R "$reference" --known-sites "$work/large.known.vcf.gz" \
  -L "$call_interval" --gpu-write --max-memory "$memory" --tmp-dir "$work/tmp" -o "$work/out_large" --prefix s
rm -rf "$work/out_large"
measure "markdup, --max-memory $memory" "$large_reads" "$work/tmp" \
  gpu-pipeline markdup -I "$work/large.bam" -O "$work/md.bam" -M "$work/md.txt" --gpu-write \
  --max-memory "$memory" --tmp-dir "$work/tmp"
rm -f "$work/md.bam"

echo "input: $large_reads reads ($(du -h "$work/large.bam" | cut -f1) BAM) and $small_reads reads; $threads cores, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo
echo "| what | reads | wall s | reads/s | peak RSS | peak GPU memory (nvidia-smi) | disk used at most (runs + outputs) |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
