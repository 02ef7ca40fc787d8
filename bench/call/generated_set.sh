# Sourced by the caller's GPU-host benchmarks (with wall and median, below): make_generated_set
# PAIRS THREADS makes, in the current directory, 30x-style reads over GRCh38 chr20:1-10,000,000
# (bench_generate, 6% duplicates, with its truth and known sites), duplicates marked and indexed:
# ref.fa, sim.bam, md.bam (+ .bai), truth.vcf.gz, known.vcf.gz. Needs samtools, bench_generate and
# gpu-pipeline on PATH.
make_generated_set() {
  local pairs=$1 threads=$2
  local data
  data=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tests/data" && pwd)
  samtools faidx "$data/grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz" chr20 > ref.fa
  samtools faidx ref.fa
  bench_generate ref.fa sim.bam "$pairs" --sorted --duplicates 0.06 --truth-vcf truth.vcf.gz \
    --known-sites known.vcf.gz --threads "$threads" 2>&1 | tail -1
  gpu-pipeline markdup -I sim.bam -O md.bam -M md.metrics --verbosity WARNING
  samtools index md.bam
}

# wall LABEL COMMAND...: the wall seconds of COMMAND run with --threads $threads, its log kept in
# err.LABEL and its phase line in phases.LABEL.
wall() {
  local label=$1; shift
  local start end
  start=$(date +%s.%N)
  "$@" --threads "$threads" 2> "err.$label" >/dev/null
  end=$(date +%s.%N)
  grep "call phases" "err.$label" > "phases.$label" || true
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}'
}

# median: the median of the numbers on standard input (separated by spaces or lines).
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
