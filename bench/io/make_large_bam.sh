#!/usr/bin/env bash
# Writes a large BAM of real reads by concatenating COPIES copies of a real BAM from tests/data
# (NA12878 chr20, 52,035 reads each; 40 copies = 2.08 M records).
#   bench/io/make_large_bam.sh OUT.bam [COPIES]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
copies=${2:-40}
src=${GPP_IO_BENCH_SOURCE:-$here/../../tests/data/real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam}
args=()
for _ in $(seq "$copies"); do args+=("$src"); done
samtools cat -o "$out" "${args[@]}"
