#!/usr/bin/env bash
# Builds the simulated benchmark input once: GRCh38 chr20:1-10,000,000 (tests/data), dwgsim reads
# at COVERAGE (default 30x, ~2.1 M reads with duplicates), PCR duplicates added by add_dups.py
# (6%), aligned with bwa mem. Output: WORKDIR/aligned.unsorted.bam (bwa order, unsorted).
#   bench/markdup/make_sim.sh WORKDIR [COVERAGE]
# Needs dwgsim, bwa, samtools, python3 (GPP_PEERS=1 scripts/install_deps.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
coverage=${2:-30}
threads=${THREADS:-$(nproc)}
mkdir -p "$work"
cd "$work"
[ -s aligned.unsorted.bam ] && exit 0
if [ ! -s ref.fa.bwt ]; then
  samtools faidx "$here/../../tests/data/grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz" chr20 > ref.fa
  samtools faidx ref.fa
  bwa index ref.fa 2>/dev/null
fi
dwgsim -e 0.001-0.01 -E 0.002-0.015 -1 150 -2 150 -d 400 -s 60 -r 0.001 -R 0.12 -X 0.3 -y 0 -z 7 -o 1 \
  -C "$coverage" ref.fa sim > dwgsim.log 2>&1
python3 "$here/add_dups.py" sim.bwa.read1.fastq.gz sim.bwa.read2.fastq.gz reads 0.06 11 2> dups.log
bwa mem -t "$threads" -R '@RG\tID:sim\tSM:SIM\tPL:ILLUMINA\tLB:simlib\tPU:sim.1' ref.fa reads_1.fq.gz reads_2.fq.gz 2> bwa.log |
  samtools view -b -o aligned.unsorted.bam.tmp -
mv aligned.unsorted.bam.tmp aligned.unsorted.bam
rm -f sim.bwa.read*.fastq.gz sim.bfast.* reads_1.fq.gz reads_2.fq.gz
