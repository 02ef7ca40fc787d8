#!/usr/bin/env bash
# Germline calling on a duplicate-marked, sorted BAM: gpu-pipeline call (the GPU when there is
# one, and the CPU backend) and the peer callers installed here (bcftools mpileup | call,
# freebayes) timed on the same input with the same threads, and every caller's accuracy against
# the truth VCF (SNP and indel F1 from vcf_eval.sh, allele-exact after normalisation).
#   bench/call/run.sh MARKED.bam REFERENCE.fa TRUTH.vcf.gz [THREADS]
# vcf_eval.sh is taken from $GPP_SHARED_DATA/scripts (default: ../shared/data beside the repo).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: bench/call/run.sh MARKED.bam REFERENCE.fa TRUTH.vcf.gz [THREADS]" >&2; exit 2; }
for f in "$1" "$2" "$3"; do [ -r "$f" ] || { echo "bench/call/run.sh: error: $f: no such input" >&2; exit 1; }; done
input=$(realpath "$1")
reference=$(realpath "$2")
truth=$(realpath "$3")
threads=${4:-$(nproc)}
shared=${GPP_SHARED_DATA:-$here/../../../shared/data}
work=${GPP_BENCH_DIR:-$here/../out/call}
source "$here/../lib/measure.sh"
bench_enter "$work"
reads=$(samtools view -c -@"$threads" "$input")
[ -e "$input.bai" ] || [ -e "${input%.bam}.bai" ] || samtools index -@"$threads" "$input"

gpp=${GPP_BINARY:-$here/../../build/gpu-pipeline}
callers=()
if ! nvidia-smi -L >/dev/null 2>&1; then
  bench_fact "call: gpu-pipeline on the GPU" "no GPU on this machine"
else
  bench_measure call "gpu-pipeline call (GPU)" ours "$reads" reads/s -- \
    "$gpp" call -I "$input" -R "$reference" -O gpu-pipeline-gpu.vcf.gz --device gpu \
    --threads "$threads" --verbosity WARNING && callers+=(gpu-pipeline-gpu) || true
fi
bench_measure call "gpu-pipeline call (CPU backend)" ours "$reads" reads/s -- \
  "$gpp" call -I "$input" -R "$reference" -O gpu-pipeline-cpu.vcf.gz --device cpu \
  --threads "$threads" --verbosity WARNING && callers+=(gpu-pipeline-cpu) || true
if command -v bcftools >/dev/null 2>&1; then
  bench_measure call "bcftools mpileup | call -mv" peer "$reads" reads/s -- sh -c \
    "bcftools mpileup --threads $threads -a AD,DP -f '$reference' '$input' 2>/dev/null |
     bcftools call --threads $threads -mv -Oz -o bcftools.vcf.gz" && callers+=(bcftools) || true
fi
if command -v freebayes >/dev/null 2>&1; then
  bench_measure call "freebayes" peer "$reads" reads/s -- sh -c \
    "freebayes -f '$reference' '$input' | bgzip > freebayes.vcf.gz" && callers+=(freebayes) || true
  bench_fact "call: freebayes threads" "1 (it has no threads of its own)"
else
  bench_fact "call: freebayes" "not installed"
fi

# Confident regions: every contig of the truth, whole.
bgzip -dc "$truth" | sed -nE 's/^##contig=<ID=([^,>]+),length=([0-9]+).*/\1\t0\t\2/p' >confident.bed
evaluate=$shared/scripts/vcf_eval.sh
for caller in "${callers[@]}"; do
  if [ ! -x "$evaluate" ]; then
    bench_fact "call: VCF F1, $caller" "not computed ($evaluate not found)"
    continue
  fi
  tabix -f -p vcf "$caller.vcf.gz"
  "$evaluate" "$reference" "$truth" confident.bed "$caller.vcf.gz" "eval.$caller" 1 >"eval.$caller.txt" 2>/dev/null || true
  f1=$(awk '$1 == "snps" || $1 == "indels" {printf "%s%s F1 %s (recall %s, precision %s)", sep, $1, $7, $5, $6; sep = "; "}' "eval.$caller.txt")
  bench_fact "call: VCF F1, $caller" "${f1:-evaluation failed (see $PWD/eval.$caller.txt)}"
done
bench_table call
grep '^call' "$GPP_BENCH_FACTS" | sed 's/\t/: /' || true
