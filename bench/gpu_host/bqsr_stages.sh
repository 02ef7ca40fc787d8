#!/usr/bin/env bash
# bqsr and applybqsr at scale on the GPU host, from the bundle: generates PAIRS read pairs
# (coordinate-sorted) with bench_generate and a known-sites VCF (a SNP every 997 bp, every fifth a
# 1-bp deletion, on the generated contigs), then times on the same input in the same run:
# gpu-pipeline bqsr on the GPU (dense atomics, sort-reduce) and on the CPU backend, and applybqsr
# on the GPU and the CPU, all cores. Prints a Markdown table (wall s, reads/s, the stage's own
# time from the log, peak host memory) and whether the outputs are identical.
#   bench/gpu_host/bqsr_stages.sh BUNDLE_DIR REFERENCE.fa.gz [PAIRS=10000000] [WORK=/tmp/gpp-bqsr]
set -euo pipefail
bundle=$(realpath "$1")
reference=$(realpath "$2")
pairs=${3:-10000000}
work=${4:-/tmp/gpp-bqsr}
threads=$(nproc)
mkdir -p "$work"
cd "$work"
export PATH="$bundle/bin:$PATH"
input=generated.sorted.bam
[ -s "$input" ] || bench_generate "$reference" "$input" "$pairs" --sorted --threads "$threads" 2>&1 | tail -1
reads=$((pairs * 2))
if [ ! -s sites.vcf ]; then
  {
    printf '##fileformat=VCFv4.2\n'
    samtools view -H "$input" | awk -F'\t' '$1 == "@SQ" {sub("SN:", "", $2); sub("LN:", "", $3); print "##contig=<ID=" $2 ",length=" $3 ">"}'
    printf '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n'
    samtools view -H "$input" | awk -F'\t' '$1 == "@SQ" {
      sub("SN:", "", $2); sub("LN:", "", $3); length_bp = $3 + 0
      for (p = 1000; p < length_bp; p += 997) print $2 "\t" p "\t.\t" (p % 5 == 0 ? "AC\tA" : "A\tG") "\t.\tPASS\t."
    }'
  } > sites.vcf
fi

row() {  # name, log file, stage-time pattern, command...
  local name=$1 log=$2 pattern=$3
  shift 3
  local start end
  start=$(date +%s.%N)
  "$@" > "$log" 2>&1 || { echo "| $name | failed: $(tail -1 "$log") |"; return; }
  end=$(date +%s.%N)
  local stage host_mb
  stage=$(grep -o "$pattern in [0-9.]* s" "$log" | sed 's/.* in \([0-9.]*\) s$/\1/' || echo "-")
  host_mb=$(grep -o 'peak memory [0-9]* MB' "$log" | grep -o '[0-9]*' || echo "-")
  awk -v n="$name" -v a="$start" -v b="$end" -v r="$reads" -v s="$stage" -v h="$host_mb" \
    'BEGIN {printf "| %s | %.2f | %.0f | %s | %s |\n", n, b - a, r / (b - a), s, h}'
}

common=(-R "$reference" --known-sites sites.vcf --threads "$threads" --verbosity DEBUG)
echo "input: $pairs generated pairs ($reads records, sorted), $(grep -vc '^#' sites.vcf) known sites, $threads cores, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo
echo "| run | wall s | reads/s | stage s (log) | peak host MB |"
echo "|---|---|---|---|---|"
row "bqsr --device gpu (dense)" bqsr.gpu.log "counted covariates ([a-z, -]*)" \
  gpu-pipeline bqsr -I "$input" "${common[@]}" -O recal.gpu.table --device gpu
row "bqsr --device gpu --counting-method sort-reduce" bqsr.gpusort.log "counted covariates ([a-z, -]*)" \
  gpu-pipeline bqsr -I "$input" "${common[@]}" -O recal.gpusort.table --device gpu --counting-method sort-reduce
row "bqsr --device cpu" bqsr.cpu.log "counted covariates ([a-z, -]*)" \
  gpu-pipeline bqsr -I "$input" "${common[@]}" -O recal.cpu.table --device cpu
row "applybqsr --device gpu" apply.gpu.log "recalibrated [0-9]* records ([a-z]*)" \
  gpu-pipeline applybqsr -I "$input" --bqsr-recal-file recal.cpu.table -O apply.gpu.bam --threads "$threads" --verbosity DEBUG --device gpu
row "applybqsr --device cpu" apply.cpu.log "recalibrated [0-9]* records ([a-z]*)" \
  gpu-pipeline applybqsr -I "$input" --bqsr-recal-file recal.cpu.table -O apply.cpu.bam --threads "$threads" --verbosity DEBUG --device cpu
echo
cmp -s recal.gpu.table recal.cpu.table && echo "bqsr: GPU (dense) table identical to the CPU's" || echo "bqsr: GPU (dense) table DIFFERS"
cmp -s recal.gpusort.table recal.cpu.table && echo "bqsr: GPU (sort-reduce) table identical to the CPU's" || echo "bqsr: GPU (sort-reduce) table DIFFERS"
cmp -s <(samtools view -@"$threads" apply.gpu.bam) <(samtools view -@"$threads" apply.cpu.bam) \
  && echo "applybqsr: GPU and CPU records identical" || echo "applybqsr: GPU and CPU records DIFFER"
grep -h "counted covariates\|recalibrated\|phases\|read [0-9]* records" ./*.log
