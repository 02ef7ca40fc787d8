#!/usr/bin/env bash
# What caller options cost `call` and what they change: 30x over GRCh38 chr20:1-10,000,000
# generated here (bench_generate, as bench/call/gpu_host.sh), duplicates marked. `call` plain,
# with --adaptive-pruning and with -bamout, alternately, RUNS times each, with the median wall
# times; then each VCF's SNP and indel TP/FP/FN and F1 against the generator's truth
# (vcf_eval.sh over the 10 Mb), the records the haplotype BAM holds, and whether -bamout left the
# calls as they were.
#   bench/call/options_cost.sh BUNDLE_OR_BUILD_DIR [RUNS] [PAIRS]
set -euo pipefail
bundle=$(realpath "$1"); runs=${2:-3}; pairs=${3:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$bundle/bin:$bundle:$PATH
work=${GPP_BENCH_DIR:-/tmp/gpp-options-bench}
mkdir -p "$work"; cd "$work"
threads=$(nproc)
source "$here/generated_set.sh"
[ -s md.bam ] || make_generated_set "$pairs" "$threads"
plain="" adaptive="" bamout=""
for run in $(seq "$runs"); do
  plain+="$(wall plain gpu-pipeline call -I md.bam -R ref.fa -O plain.vcf.gz) "
  adaptive+="$(wall adaptive gpu-pipeline call -I md.bam -R ref.fa -O adaptive.vcf.gz --adaptive-pruning) "
  bamout+="$(wall bamout gpu-pipeline call -I md.bam -R ref.fa -O bamout.vcf.gz -bamout hc.bam) "
done
echo "plain:              ${plain}(median $(echo "$plain" | median) s)"
echo "--adaptive-pruning: ${adaptive}(median $(echo "$adaptive" | median) s)"
echo "-bamout:            ${bamout}(median $(echo "$bamout" | median) s)"
printf 'chr20\t0\t10000000\n' > whole.bed
if command -v bcftools > /dev/null; then
  for vcf in plain adaptive; do
    echo "$vcf:"
    bash "$here/vcf_eval.sh" ref.fa truth.vcf.gz whole.bed "$vcf.vcf.gz" "eval.$vcf" 2>/dev/null | sed 's/^/  /'
  done
else
  echo "no bcftools here: evaluate $work/{plain,adaptive}.vcf.gz against $work/truth.vcf.gz elsewhere"
fi
echo "haplotype BAM: $(samtools view -c hc.bam) records, $(samtools view hc.bam | cut -f1 | grep -c '^HC_') haplotypes, $(du -h hc.bam | cut -f1)"
records() { bgzip -dc "$1" | grep -v '^##gpu-pipelineCommand'; }
if cmp -s <(records plain.vcf.gz) <(records bamout.vcf.gz); then
  echo "-bamout: calls identical to the plain run"
else
  echo "-bamout: CALLS DIFFER from the plain run"
fi
