#!/usr/bin/env bash
# What --alleles (force-calling) costs `call`: 30x over GRCh38 chr20:1-10,000,000 generated here
# (bench_generate, as bench/call/gpu_host.sh), duplicates marked, and a given-alleles file of the
# generator's truth variants plus a SNP every 100 bases (an array's or a population panel's
# sites, almost all hom-ref here: each is made active and written as a forced record).
# `call` without and with --alleles alternately, RUNS times each, with the median wall times;
# then what the forced output holds: the given records with a call at their start, and the calls
# made without --alleles that it lacks (none expected).
#   bench/call/alleles_cost.sh BUNDLE_OR_BUILD_DIR [RUNS] [PAIRS]
set -euo pipefail
bundle=$(realpath "$1"); runs=${2:-3}; pairs=${3:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$bundle/bin:$bundle:$PATH
work=${GPP_BENCH_DIR:-/tmp/gpp-alleles-bench}
mkdir -p "$work"; cd "$work"
threads=$(nproc)
source "$here/generated_set.sh"
[ -s md.bam ] || make_generated_set "$pairs" "$threads"
if [ ! -s given.vcf.gz ]; then
  samtools faidx ref.fa chr20:1-10000000 | grep -v '^>' | tr -d '\n' |
    awk '{for (p = 50; p < length($0); p += 100) {b = substr($0, p, 1); if (b ~ /[ACGT]/)
          print "chr20\t" p "\t.\t" b "\t" (b == "A" ? "G" : "A") "\t.\t.\t."}}' > panel.txt
  bgzip -dc truth.vcf.gz | grep -v '^#' | cut -f1-5 | awk 'BEGIN {OFS="\t"} {print $0, ".", ".", "."}' > truth.txt
  { printf '##fileformat=VCFv4.2\n##contig=<ID=chr20,length=64444167>\n'
    printf '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n'
    sort -s -k2,2n truth.txt panel.txt | awk '!seen[$2]++'; } | bgzip -@ "$threads" > given.vcf.gz
  tabix -p vcf given.vcf.gz
  rm panel.txt truth.txt
fi
plain="" forced=""
for run in $(seq "$runs"); do
  plain+="$(wall plain gpu-pipeline call -I md.bam -R ref.fa -O plain.vcf.gz) "
  forced+="$(wall forced gpu-pipeline call -I md.bam -R ref.fa -O forced.vcf.gz --alleles given.vcf.gz) "
done
given=$(bgzip -dc given.vcf.gz | grep -vc '^#')
echo "given records: $given"
echo "without --alleles: ${plain}(median $(echo "$plain" | median) s)"
echo "with --alleles:    ${forced}(median $(echo "$forced" | median) s)"
grep -h "call:.*variants" err.plain err.forced | sed 's/^/  /'
sites() { bgzip -dc "$1" | grep -v '^#' | cut -f2 | sort -u; }
echo "given records with a record at their start: $(comm -12 <(sites given.vcf.gz) <(sites forced.vcf.gz) | wc -l) of $given"
echo "forced records 0/0: $(bgzip -dc forced.vcf.gz | grep -v '^#' | awk '{split($10, g, ":"); if (g[1] == "0/0") n++} END {print n + 0}')"
missing=$(comm -23 <(bgzip -dc plain.vcf.gz | grep -v '^#' | cut -f2 | sort) <(sites forced.vcf.gz))
echo "call positions without --alleles with no record with it: $(echo -n "$missing" | grep -c . || true)"
for pos in $missing; do
  echo "  $(bgzip -dc plain.vcf.gz | grep -v '^#' | awk -v p="$pos" '$2 == p' | cut -f2,4,5,6,10 | cut -c1-80)"
  echo "    given within 300 bp: $(bgzip -dc given.vcf.gz | grep -v '^#' | awk -v p="$pos" '$2 > p - 300 && $2 < p + 300' | cut -f2,4,5 | tr '\t\n' ' ,')"
  echo "    forced output within 300 bp: $(bgzip -dc forced.vcf.gz | grep -v '^#' | awk -v p="$pos" '$2 > p - 300 && $2 < p + 300 && $10 !~ /^0\/0/' | cut -f2,4,5 | tr '\t\n' ' ,')"
done
grep -h "call phases" err.plain err.forced | sed 's/^/  /'
