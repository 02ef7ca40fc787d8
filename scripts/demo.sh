#!/usr/bin/env bash
# The README's demo command: installs dependencies, builds, and runs the pipeline on a small real
# dataset kept in the repository (nf-core PRJEB39899 reads on GRCh38 chr22:16.57-16.61 Mb, with
# dbSNP 146 and Mills/1000G indels as known sites; see tests/data/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh

data=tests/data/nfcore_chr22_40kb
out=${1:-demo-out}
mkdir -p "$out"
build/gpu-pipeline run "$data/test.paired_end.sorted.bam" \
  -R "$data/genome.fasta" \
  --known-sites "$data/dbsnp_146.hg38.vcf.gz" \
  --known-sites "$data/mills_and_1000G.indels.vcf.gz" \
  --out-dir "$out"

echo
echo "outputs in $out/:"
ls -l "$out"
