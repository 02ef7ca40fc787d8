#!/usr/bin/env bash
# The caller on a GPU host, from a bundle (scripts/bundle.sh) and the repository's tests/data:
# 30x over GRCh38 chr20:1-10,000,000 generated there (bench_generate, 1 M pairs, 6% duplicates,
# with its truth), duplicates marked, then `call` on the GPU (twice) and on the CPU backend with
# every core, in VCF and in gVCF mode, the records compared, accuracy against the generator's
# truth, peak GPU memory.
#   bench/call/gpu_host.sh BUNDLE OUT_DIR [PAIRS]
set -euo pipefail
bundle=$(realpath "$1"); out=$(realpath "$2"); pairs=${3:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$bundle/bin:$PATH
work=${GPP_BENCH_DIR:-/tmp/gpp-call-bench}
mkdir -p "$work" "$out"; cd "$work"
threads=$(nproc)
time_bin() { if [ -x "$bundle/bin/time" ]; then "$bundle/bin/time" "$@"; else /usr/bin/time "$@"; fi; }
source "$here/generated_set.sh"
make_generated_set "$pairs" "$threads"
echo "reads: $(samtools view -c md.bam)"
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > gpu_mem.txt &
sampler=$!
for run in 1 2; do
  time_bin -f "gpu run $run: %e s wall, %M KB peak RSS" \
    gpu-pipeline call -I md.bam -R ref.fa -O gpu.$run.vcf.gz --device gpu 2>&1 | grep -v "^gpu-pipeline: peak"
done
kill $sampler
echo "peak GPU memory: $(sort -n gpu_mem.txt | tail -1) MiB (nvidia-smi, 0.1 s samples)"
time_bin -f "cpu backend ($threads threads): %e s wall, %M KB peak RSS" \
  gpu-pipeline call -I md.bam -R ref.fa -O cpu.vcf.gz --device cpu 2>&1 | grep -v "^gpu-pipeline: peak"
records() { bgzip -dc "$1" | grep -v '^##gpu-pipelineCommand'; }
if cmp -s <(records gpu.1.vcf.gz) <(records cpu.vcf.gz); then echo "GPU and CPU records identical"; else
  echo "GPU and CPU records DIFFER: $(diff <(records gpu.1.vcf.gz) <(records cpu.vcf.gz) | grep -c '^[<>]') lines"; fi
if cmp -s <(records gpu.1.vcf.gz) <(records gpu.2.vcf.gz); then echo "GPU runs identical"; else echo "GPU runs DIFFER"; fi
echo "calls: $(bgzip -dc gpu.1.vcf.gz | grep -vc '^#')"
# gVCF mode (GATK -ERC GVCF): the same reads, every base of the contig reported.
for run in 1 2; do
  time_bin -f "gvcf gpu run $run: %e s wall, %M KB peak RSS" \
    gpu-pipeline call -I md.bam -R ref.fa -O gpu.$run.g.vcf.gz --gvcf --device gpu 2>&1 | grep -v "^gpu-pipeline: peak"
done
time_bin -f "gvcf cpu backend ($threads threads): %e s wall, %M KB peak RSS" \
  gpu-pipeline call -I md.bam -R ref.fa -O cpu.g.vcf.gz --gvcf --device cpu 2>&1 | grep -v "^gpu-pipeline: peak"
if cmp -s <(records gpu.1.g.vcf.gz) <(records cpu.g.vcf.gz); then echo "gVCF: GPU and CPU records identical"; else
  echo "gVCF: GPU and CPU records DIFFER: $(diff <(records gpu.1.g.vcf.gz) <(records cpu.g.vcf.gz) | grep -c '^[<>]') lines"; fi
if cmp -s <(records gpu.1.g.vcf.gz) <(records gpu.2.g.vcf.gz); then echo "gVCF: GPU runs identical"; else echo "gVCF: GPU runs DIFFER"; fi
echo "gVCF records: $(bgzip -dc gpu.1.g.vcf.gz | grep -vc '^#') ($(bgzip -dc gpu.1.g.vcf.gz | grep -v '^#' | grep -c 'END=') blocks), $(stat -c %s gpu.1.g.vcf.gz) bytes"
# The whole chain in one process: sort, markdup, BQSR, ApplyBQSR, BAM, call.
rm -rf run_out; sync
time_bin -f "run (markdup, bqsr, bam, call), gpu: %e s wall, %M KB peak RSS" \
  gpu-pipeline run sim.bam -R ref.fa --known-sites known.vcf.gz --out-dir run_out --gpu-write 2>&1 |
  grep -E "call:|call phases|wall"
cp gpu.1.vcf.gz truth.vcf.gz "$out/" 2>/dev/null || true
