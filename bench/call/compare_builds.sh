#!/usr/bin/env bash
# `call` (VCF mode) of this build and an earlier one, alternately, on the generated 30x set over
# GRCh38 chr20:1-10,000,000 (generated_set.sh): wall times, the phase line, the CPU time of one run
# each, the CPU backend of both, and the records compared (GPU, CPU, and 1, 3 and 8 threads).
#   bench/call/compare_builds.sh BUNDLE BASELINE_BINARY [RUNS=3] [PAIRS=1000000]
set -euo pipefail
bundle=$(realpath "$1"); baseline=$(realpath "$2"); runs=${3:-3}; pairs=${4:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$bundle/bin:$PATH
work=${GPP_BENCH_DIR:-/tmp/gpp-call-compare}
mkdir -p "$work"; cd "$work"
threads=$(nproc)
time_bin() { if [ -x "$bundle/bin/time" ]; then "$bundle/bin/time" "$@"; else /usr/bin/time "$@"; fi; }
source "$here/generated_set.sh"
[ -s md.bam ] || make_generated_set "$pairs" "$threads" > generate.log 2>&1
seconds() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN {printf "%.2f", b - a}'; }
for run in $(seq "$runs"); do
  echo "run $run: this build $(seconds gpu-pipeline call -I md.bam -R ref.fa -O new.vcf.gz 2> err.new) s," \
    "baseline $(seconds "$baseline" call -I md.bam -R ref.fa -O base.vcf.gz 2> err.base) s"
done
grep "call phases" err.new
time_bin -f "this build: %e s wall, %U s user, %S s system, %M KB" gpu-pipeline call -I md.bam -R ref.fa -O new.vcf.gz 2>&1 | tail -1
time_bin -f "baseline: %e s wall, %U s user, %S s system, %M KB" "$baseline" call -I md.bam -R ref.fa -O base.vcf.gz 2>&1 | tail -1
echo "CPU backend: this build $(seconds gpu-pipeline call -I md.bam -R ref.fa -O cpu.vcf.gz --device cpu 2> err.cpu) s," \
  "baseline $(seconds "$baseline" call -I md.bam -R ref.fa -O cpu.base.vcf.gz --device cpu 2> /dev/null) s"
records() { bgzip -dc "$1" | grep -v '^##'; }
same() { if cmp -s <(records "$1") <(records "$2"); then echo "$3: identical"; else echo "$3: DIFFER ($(diff <(records "$1") <(records "$2") | grep -c '^<') lines)"; fi; }
same new.vcf.gz base.vcf.gz "GPU records, this build and the baseline"
same cpu.vcf.gz cpu.base.vcf.gz "CPU records, this build and the baseline"
same new.vcf.gz cpu.vcf.gz "GPU and CPU records"
for t in 1 3 8; do
  gpu-pipeline call -I md.bam -R ref.fa -O "t$t.vcf.gz" --threads "$t" 2> /dev/null
  same new.vcf.gz "t$t.vcf.gz" "$t threads and $threads"
done
