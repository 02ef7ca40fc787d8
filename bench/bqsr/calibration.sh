#!/usr/bin/env bash
# Shows that recalibration fixes wrong qualities: dwgsim reads whose every base is reported at one
# fixed quality (Q40) while the simulated error rate climbs along the read (0.1% -> 1% on read 1,
# 0.2% -> 1.5% on read 2), aligned with bwa mem, duplicate-marked, then recalibrated with
# dwgsim's own mutations as known sites. The table of the recalibrated BAM (the "after" pass, as
# GATK's AnalyzeCovariates uses it) is compared with the first one: RMSE of empirical vs reported
# quality by reported quality and by cycle, and a plot (calibration.svg).
#   bench/bqsr/calibration.sh [WORKDIR] [BUILD_DIR] [COVERAGE]
# Needs dwgsim, bwa, samtools, tabix, python3 (GPP_PEERS=1 scripts/install_deps.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$here/../out/bqsr_calibration}
build=$(realpath "${2:-$here/../../build}")
coverage=${3:-8}
threads=${THREADS:-$(nproc)}
mkdir -p "$work"
cd "$work"
if [ ! -s ref.fa.bwt ]; then
  samtools faidx "$here/../../tests/data/grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz" chr20 > ref.fa
  samtools faidx ref.fa
  samtools dict ref.fa > ref.dict
  bwa index ref.fa 2> /dev/null
fi
if [ ! -s aligned.bam ]; then
  dwgsim -q I -e 0.001-0.01 -E 0.002-0.015 -1 150 -2 150 -d 400 -s 60 -r 0.001 -R 0.12 -y 0 -z 11 -o 1 \
    -C "$coverage" ref.fa sim > dwgsim.log 2>&1
  bwa mem -t "$threads" -R '@RG\tID:sim\tSM:SIM\tPL:ILLUMINA\tLB:simlib' ref.fa \
    sim.bwa.read1.fastq.gz sim.bwa.read2.fastq.gz 2> bwa.log | samtools view -b -o aligned.bam.tmp -
  mv aligned.bam.tmp aligned.bam
  # dwgsim's mutations (the simulated sample's variants) serve as known sites.
  grep -v '^##contig' sim.mutations.vcf | sed 's/^#CHROM/##contig=<ID=chr20,length=10000000>\n#CHROM/' |
    bgzip > known.vcf.gz
  tabix -f -p vcf known.vcf.gz
  rm -f sim.bwa.read*.fastq.gz sim.bfast.fastq.gz
fi
gpp=("$build/gpu-pipeline")
"${gpp[@]}" markdup -I aligned.bam -O marked.bam -M marked.metrics --threads "$threads" --verbosity warning
"${gpp[@]}" bqsr -I marked.bam -R ref.fa --known-sites known.vcf.gz -O before.table --threads "$threads" --verbosity warning
"${gpp[@]}" applybqsr -I marked.bam --bqsr-recal-file before.table -O recalibrated.bam --threads "$threads" --verbosity warning
"${gpp[@]}" bqsr -I recalibrated.bam -R ref.fa --known-sites known.vcf.gz -O after.table --threads "$threads" --verbosity warning
python3 "$here/calibration_report.py" before.table after.table calibration.svg
