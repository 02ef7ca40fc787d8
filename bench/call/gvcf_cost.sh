#!/usr/bin/env bash
# What gVCF mode costs over VCF mode: 30x over GRCh38 chr20:1-10,000,000 generated here
# (bench_generate, as bench/call/gpu_host.sh), duplicates marked, then `call` in VCF and in gVCF
# mode alternately, RUNS times each, with the median wall times and their ratio. With a second
# binary (an earlier build), it runs alternately with this one on the same data, and the records
# of the two are compared.
#   bench/call/gvcf_cost.sh BUNDLE [RUNS] [BASELINE_BINARY] [PAIRS]
set -euo pipefail
bundle=$(realpath "$1"); runs=${2:-5}; baseline=${3:+$(realpath "$3")}; pairs=${4:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$bundle/bin:$PATH
work=${GPP_BENCH_DIR:-/tmp/gpp-gvcf-bench}
mkdir -p "$work"; cd "$work"
threads=$(nproc)
source "$here/generated_set.sh"
[ -s md.bam ] || make_generated_set "$pairs" "$threads"
builds=("new:$bundle/bin/gpu-pipeline")
[ -n "$baseline" ] && builds+=("base:$baseline")
declare -A times
for run in $(seq "$runs"); do
  for build in "${builds[@]}"; do
    name=${build%%:*}; binary=${build#*:}
    times[$name.vcf]+="$(wall "$name.vcf" "$binary" call -I md.bam -R ref.fa -O "$name.vcf.gz") "
    times[$name.gvcf]+="$(wall "$name.gvcf" "$binary" call -I md.bam -R ref.fa -O "$name.g.vcf.gz" --gvcf) "
  done
done
for build in "${builds[@]}"; do
  name=${build%%:*}
  v=$(echo "${times[$name.vcf]}" | median); g=$(echo "${times[$name.gvcf]}" | median)
  echo "$name VCF runs: ${times[$name.vcf]}(median $v s)"
  echo "$name gVCF runs: ${times[$name.gvcf]}(median $g s)"
  echo "$name gVCF / VCF: $(awk -v g="$g" -v v="$v" 'BEGIN {printf "%.3f", g / v}')"
  echo "$name last gVCF $(cat "phases.$name.gvcf")"
done
records() { bgzip -dc "$1" | grep -v '^##gpu-pipelineCommand'; }
if [ -n "$baseline" ]; then
  for f in vcf.gz g.vcf.gz; do
    if cmp -s <(records "new.$f") <(records "base.$f"); then echo "$f: records identical to the baseline's"
    else echo "$f: records DIFFER from the baseline's"; fi
  done
fi
echo "gVCF: $(bgzip -dc new.g.vcf.gz | grep -vc '^#') records, $(stat -c %s new.g.vcf.gz) bytes"
