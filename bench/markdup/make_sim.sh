#!/usr/bin/env bash
# Builds the simulated benchmark inputs once (the data sets of ../shared/data/scripts/run_sim.sh,
# without its peer runs): GRCh38 chr20:1-10,000,000 (tests/data), dwgsim reads at COVERAGE (default
# 30x, ~2.1 M reads with duplicates), PCR duplicates added by add_dups.py (6%), aligned with bwa mem;
# the genotyped truth of dwgsim's mutations (sim_truth.sh) and known sites (a random 90% of it).
# Output in WORKDIR: aligned.unsorted.bam (bwa order), ref.fa, truth.vcf.gz, known.vcf.gz (indexed).
#   bench/markdup/make_sim.sh WORKDIR [COVERAGE]
# Needs dwgsim, bwa, samtools, bcftools, tabix, python3 (GPP_PEERS=1 scripts/install_deps.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${GPP_SHARED_DATA:-$here/../../../shared/data}
work=$1
coverage=${2:-30}
threads=${THREADS:-$(nproc)}
mkdir -p "$work"
cd "$work"
if [ ! -s ref.fa.bwt ]; then
  samtools faidx "$here/../../tests/data/grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz" chr20 > ref.fa
  samtools faidx ref.fa
  bwa index ref.fa 2>/dev/null
fi
if [ ! -s aligned.unsorted.bam ]; then
  dwgsim -e 0.001-0.01 -E 0.002-0.015 -1 150 -2 150 -d 400 -s 60 -r 0.001 -R 0.12 -X 0.3 -y 0 -z 7 -o 1 \
    -C "$coverage" ref.fa sim > dwgsim.log 2>&1
  python3 "$here/add_dups.py" sim.bwa.read1.fastq.gz sim.bwa.read2.fastq.gz reads 0.06 11 2> dups.log
  bwa mem -t "$threads" -R '@RG\tID:sim\tSM:SIM\tPL:ILLUMINA\tLB:simlib\tPU:sim.1' ref.fa reads_1.fq.gz reads_2.fq.gz 2> bwa.log |
    samtools view -b -o aligned.unsorted.bam.tmp -
  mv aligned.unsorted.bam.tmp aligned.unsorted.bam
  rm -f sim.bwa.read*.fastq.gz sim.bfast.* reads_1.fq.gz reads_2.fq.gz
fi
if [ ! -s known.vcf.gz ]; then
  [ -s sim.mutations.vcf ] || { echo "make_sim.sh: error: $work/sim.mutations.vcf missing (remove aligned.unsorted.bam to rebuild)" >&2; exit 1; }
  [ -x "$shared/scripts/sim_truth.sh" ] || { echo "make_sim.sh: error: $shared/scripts/sim_truth.sh not found (set GPP_SHARED_DATA)" >&2; exit 1; }
  "$shared/scripts/sim_truth.sh" ref.fa sim truth.vcf.gz SIM
  # As run_sim.sh: known sites are a random 90% of the truth sites (10% play "novel").
  bcftools view -G truth.vcf.gz | awk 'BEGIN {srand(5)} /^#/ || rand() < 0.9' | bgzip > known.vcf.gz.tmp
  mv known.vcf.gz.tmp known.vcf.gz
  tabix -f -p vcf known.vcf.gz
fi
