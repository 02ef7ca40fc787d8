#!/usr/bin/env bash
# `run` of this build and an earlier one on the same data, in memory on PAIRS/5 pairs and within
# --max-memory MEMORY on PAIRS pairs (the 500 Mb reference of genome_scale.sh: the first two 10 Mb
# contigs of tests/data repeated 25 times each), --gpu-write, calling restricted to 1 Mb; wall
# time, peak RSS, the bounded runs' records compared and this build's phase lines.
#   bench/gpu_host/bounded_run_compare.sh BUNDLE BASELINE_BINARY [PAIRS=25000000] [MEMORY=8G] [WORK=/tmp/gpp-scale]
set -uo pipefail
bundle=$(realpath "$1"); baseline=$(realpath "$2"); pairs=${3:-25000000}; memory=${4:-8G}
work=${5:-/tmp/gpp-scale}
source_reference=$(cd "$(dirname "$0")/../../tests/data/grch38_chr20_10M" && pwd)/grch38.chr20_and_21_10M.fa.gz
export PATH=$bundle/bin:$PATH
mkdir -p "$work/tmp"; cd "$work"
threads=$(nproc)
if [ ! -s scale.fa.fai ]; then
  mapfile -t contigs < <(cut -f1 "$source_reference.fai" | head -2)
  {
    for k in 0 1; do
      echo ">chr$([ $k = 0 ] && echo A || echo B)"
      for _ in $(seq 25); do samtools faidx "$source_reference" "${contigs[$k]}" | tail -n +2 | tr -d '\n'; done | fold -w 60
      echo
    done
  } > scale.fa
  samtools faidx scale.fa
fi
[ -s small.bam ] || bench_generate scale.fa small.bam $((pairs / 5)) --seed 11 --threads "$threads" --known-sites small.known.vcf.gz 2>&1 | tail -1
[ -s large.bam ] || bench_generate scale.fa large.bam "$pairs" --seed 12 --threads "$threads" --known-sites large.known.vcf.gz 2>&1 | tail -1
time_bin() { if [ -x "$bundle/bin/time" ]; then "$bundle/bin/time" "$@"; else /usr/bin/time "$@"; fi; }
measure() {  # LABEL BINARY INPUT [ARGS...]
  local label=$1 binary=$2 input=$3; shift 3
  rm -rf out
  local start end
  start=$(date +%s.%N)
  time_bin -f "%M" -o rss.txt "$binary" run "$input.bam" -R scale.fa --known-sites "$input.known.vcf.gz" \
    -L chrA:1-1000000 --gpu-write -o out --prefix s "$@" 2> "$label.log"
  local status=$?
  end=$(date +%s.%N)
  echo "$label: exit $status, $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}') s, peak RSS $(awk '{printf "%.1f GB", $1 / 1048576}' rss.txt)"
}
measure "in memory, this build" gpu-pipeline small
measure "in memory, baseline" "$baseline" small
measure "within $memory, this build" gpu-pipeline large --max-memory "$memory" --tmp-dir tmp
new=$(samtools view -@ 8 out/s.md.bqsr.bam | md5sum | cut -c1-16)
measure "within $memory, baseline" "$baseline" large --max-memory "$memory" --tmp-dir tmp
base=$(samtools view -@ 8 out/s.md.bqsr.bam | md5sum | cut -c1-16)
[ "$new" = "$base" ] && echo "bounded BAM records identical" || echo "bounded BAM records DIFFER"
grep -hE "spilling:|marking duplicates:|counting covariates:|writing and calling:" "within $memory, this build.log"
