#!/usr/bin/env bash
# bqsr of the nfcore chr22 reads spread over GROUPS read groups (each read takes the next group),
# on the GPU and on the CPU backend, unbounded and within --max-memory MEMORY: wall time, peak RSS
# and whether every table equals the first.
#   bench/gpu_host/many_read_groups.sh BUNDLE [GROUPS=1000] [MEMORY=2G] [WORK=/tmp/gpp-groups]
set -uo pipefail
bundle=$(realpath "$1")
groups=${2:-1000}; memory=${3:-2G}; work=${4:-/tmp/gpp-groups}
data=$(cd "$(dirname "$0")/../../tests/data/nfcore_chr22_40kb" && pwd)
export PATH=$bundle/bin:$PATH
mkdir -p "$work"; cd "$work"
samtools view -h "$data/test.paired_end.sorted.bam" | awk -v n="$groups" '
  /^@RG/ { for (g = 0; g < n; g++) printf "@RG\tID:rg%d\tSM:s\tLB:l%d\tPL:illumina\n", g, g % 3; next }
  /^@/ { print; next }
  { sub(/\tRG:Z:1/, "\tRG:Z:rg" (r++ % n)); print }' > groups.sam
time_bin() { if [ -x "$bundle/bin/time" ]; then "$bundle/bin/time" "$@"; else /usr/bin/time "$@"; fi; }
first=""
for device in gpu cpu; do
  for budget in "" "$memory"; do
    label="$device${budget:+ within $budget}"
    rm -f t.table
    start=$(date +%s.%N)
    time_bin -f "%M" -o rss.txt gpu-pipeline bqsr -I groups.sam -R "$data/genome.fasta" \
      --known-sites "$data/dbsnp_146.hg38.vcf.gz" --device "$device" -O t.table \
      ${budget:+--max-memory $budget} 2> err.txt
    status=$?
    end=$(date +%s.%N)
    sum=$([ "$status" = 0 ] && md5sum < t.table | cut -c1-12)
    [ -n "$first" ] || first=$sum
    verdict=$([ "$status" != 0 ] && echo none || { [ "$sum" = "$first" ] && echo same || echo DIFFERS; })
    tail -1 rss.txt | awk -v l="$label" -v s="$status" -v a="$start" -v b="$end" -v same="$verdict" \
      '{ printf "%d read groups, %s: exit %s, %.2f s, peak RSS %.0f MB, table %s\n", '"$groups"', l, s, b - a, $1 / 1024, same }'
    [ "$status" = 0 ] || tail -2 err.txt
  done
done
