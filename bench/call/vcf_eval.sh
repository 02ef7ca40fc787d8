#!/usr/bin/env bash
# From the project's shared data set (data/scripts/vcf_eval.sh), unchanged below this line.
# vcf_eval.sh REF.fa TRUTH.vcf.gz CONF.bed QUERY.vcf[.gz] OUTDIR [PASS_ONLY=1]
# Allele-exact small-variant comparison with bcftools (Debian bookworm: bcftools 1.16).
# Both VCFs: keep non-ref GTs, split multiallelics, atomize MNPs/complex alleles,
# left-align + normalize against REF, dedup, restrict to CONF.bed, then bcftools isec.
# Reports TP/FP/FN, recall, precision, F1 for SNP and INDEL, plus genotype-match rate on TPs.
# Not haplotype-aware (unlike hap.py / rtg vcfeval): differently-represented complex
# variants in repeats can count as FP+FN.
set -euo pipefail
REF=$1 TRUTH=$2 BED=$3 QUERY=$4 OUT=$5 PASS_ONLY=${6:-1}
mkdir -p "$OUT"
prep() { # in out filter
  local f=(-i 'GT="alt"')
  bcftools view "${f[@]}" $3 "$1" -Ou 2>/dev/null \
  | bcftools norm -m -any -Ou 2>/dev/null \
  | bcftools norm -a --atom-overlaps . -Ou 2>/dev/null \
  | bcftools norm -f "$REF" -c s -Ou 2>/dev/null \
  | bcftools norm -d exact -Ou 2>/dev/null \
  | bcftools sort -Oz -o "$2" 2>/dev/null
  bcftools index -f -t "$2"
}
pf=""; [ "$PASS_ONLY" = 1 ] && pf="-f PASS,."
prep "$TRUTH" "$OUT/truth.norm.vcf.gz" ""
prep "$QUERY" "$OUT/query.norm.vcf.gz" "$pf"
printf "%-6s %7s %7s %7s %8s %9s %7s %8s\n" TYPE TP FP FN RECALL PRECISION F1 GT_MATCH
for T in snps indels; do
  d="$OUT/isec_$T"
  bcftools view -v $T -T "$BED" "$OUT/truth.norm.vcf.gz" -Oz -o "$OUT/t.$T.vcf.gz"; bcftools index -f -t "$OUT/t.$T.vcf.gz"
  bcftools view -v $T -T "$BED" "$OUT/query.norm.vcf.gz" -Oz -o "$OUT/q.$T.vcf.gz"; bcftools index -f -t "$OUT/q.$T.vcf.gz"
  bcftools isec -c none -p "$d" "$OUT/t.$T.vcf.gz" "$OUT/q.$T.vcf.gz"
  FN=$(grep -vc '^#' "$d/0000.vcf" || true); FP=$(grep -vc '^#' "$d/0001.vcf" || true)
  TP=$(grep -vc '^#' "$d/0002.vcf" || true)
  # genotype concordance on TPs (unphased, allele order ignored)
  GTM=$(paste <(bcftools query -f '[%GT]\n' "$d/0002.vcf") <(bcftools query -f '[%GT]\n' "$d/0003.vcf") \
        | awk '{a=$1;b=$2;gsub(/\|/,"/",a);gsub(/\|/,"/",b);split(a,x,"/");split(b,y,"/");
                if(x[1]>x[2]){t=x[1];x[1]=x[2];x[2]=t} if(y[1]>y[2]){t=y[1];y[1]=y[2];y[2]=t}
                if(x[1]==y[1]&&x[2]==y[2])m++; n++} END{printf "%.4f", n?m/n:0}')
  awk -v t=$T -v tp=$TP -v fp=$FP -v fn=$FN -v g=$GTM 'BEGIN{r=(tp+fn)?tp/(tp+fn):0; p=(tp+fp)?tp/(tp+fp):0;
       f=(r+p)?2*r*p/(r+p):0; printf "%-6s %7d %7d %7d %8.4f %9.4f %7.4f %8s\n", t,tp,fp,fn,r,p,f,g}'
done | tee "$OUT/summary.txt"
