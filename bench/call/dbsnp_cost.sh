#!/usr/bin/env bash
# What --dbsnp costs `call`: 30x over GRCh38 chr20:1-10,000,000 generated here (bench_generate, as
# bench/call/gpu_host.sh), duplicates marked, and a dbSNP-like file over the same 10 Mb: the
# generator's truth variants (IDs t<POS>) among a record every third base with a 250-byte INFO
# column (dbSNP b156 holds about 0.35 records per base of GRCh38). `call` without and with
# --dbsnp alternately, RUNS times each, with the median wall times; the records of the two runs
# must differ in the ID column and the flag DB alone.
#   bench/call/dbsnp_cost.sh BUNDLE_OR_BUILD_DIR [RUNS] [PAIRS]
set -euo pipefail
bundle=$(realpath "$1"); runs=${2:-3}; pairs=${3:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$bundle/bin:$bundle:$PATH
work=${GPP_BENCH_DIR:-/tmp/gpp-dbsnp-bench}
mkdir -p "$work"; cd "$work"
threads=$(nproc)
source "$here/generated_set.sh"
[ -s md.bam ] || make_generated_set "$pairs" "$threads"
if [ ! -s dbsnp.vcf.gz ]; then
  info="RS=1;RSPOS=1;dbSNPBuildID=150;SSR=0;SAO=0;VP=0x050000000005040024000100;GENEINFO=X:1;"
  info+="WGT=1;VC=SNV;SLO;INT;R5;ASP;VLD;KGPhase3;CAF=0.9994,0.000599;COMMON=0;TOPMED=0.99,0.01;"
  info+="FREQ=1000Genomes:0.99,0.01|GnomAD:0.99,0.01|TOPMED:0.99,0.01"
  awk -v info="$info" 'BEGIN {OFS="\t"; for (p = 2; p < 10000000; p += 3)
      print "chr20", p, "rs" p, "N", "A", ".", ".", info}' > dense.txt
  bgzip -dc truth.vcf.gz | grep -v '^#' | awk 'BEGIN {OFS="\t"} {print $1, $2, "t" $2, $4, $5, ".", "PASS", "."}' > truth.txt
  { printf '##fileformat=VCFv4.2\n##contig=<ID=chr20,length=64444167>\n'
    printf '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n'
    sort -m -s -k2,2n truth.txt dense.txt; } | bgzip -@ "$threads" > dbsnp.vcf.gz
  tabix -p vcf dbsnp.vcf.gz
  rm dense.txt truth.txt
fi
plain="" annotated=""
for run in $(seq "$runs"); do
  plain+="$(wall plain gpu-pipeline call -I md.bam -R ref.fa -O plain.vcf.gz) "
  annotated+="$(wall dbsnp gpu-pipeline call -I md.bam -R ref.fa -O dbsnp.out.vcf.gz --dbsnp dbsnp.vcf.gz) "
done
echo "dbSNP-like records: $(bgzip -dc dbsnp.vcf.gz | grep -vc '^#'), $(du -h dbsnp.vcf.gz | cut -f1) compressed"
echo "without --dbsnp: ${plain}(median $(echo "$plain" | median) s)"
echo "with --dbsnp:    ${annotated}(median $(echo "$annotated" | median) s)"
records() { bgzip -dc "$1" | grep -v '^#' | cut -f1,2,4- | sed -e 's/;DB;/;/' -e 's/\tDB;/\t/'; }
if cmp -s <(records plain.vcf.gz) <(records dbsnp.out.vcf.gz); then
  echo "records equal but for ID and DB; calls with an ID: $(bgzip -dc dbsnp.out.vcf.gz | grep -v '^#' | awk '$3 != "."' | wc -l) of $(bgzip -dc plain.vcf.gz | grep -vc '^#')"
else
  echo "RECORDS DIFFER beyond ID and DB"; exit 1
fi
