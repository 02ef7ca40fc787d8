#!/usr/bin/env bash
# What reading one sample from two lane BAMs (-I lane1.bam -I lane2.bam, merged as GATK and
# Picard merge them) costs against one BAM: 30x over GRCh38 chr20:1-10,000,000 generated here
# (bench_generate, as bench/call/options_cost.sh), split by read name into two coordinate-sorted
# lanes. `call` on the marked reads, `markdup` and `run` (with the generator's known sites) on
# the unmarked ones, one input and two alternately, RUNS times each, with the median wall times;
# then whether the two-lane outputs equal the one-file outputs.
#   bench/call/inputs_cost.sh BUNDLE_OR_BUILD_DIR [RUNS] [PAIRS]
set -euo pipefail
bundle=$(realpath "$1"); runs=${2:-3}; pairs=${3:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$bundle/bin:$bundle:$PATH
work=${GPP_BENCH_DIR:-/tmp/gpp-inputs-bench}
mkdir -p "$work"; cd "$work"
threads=$(nproc)
source "$here/generated_set.sh"
[ -s md.bam ] || make_generated_set "$pairs" "$threads"
# Two lanes: the reads whose name ends in an even digit, and the others (mates stay together).
split_lanes() {
  samtools view -@ "$threads" -b -o "$2" -e 'qname =~ "[02468]$"' "$1"
  samtools view -@ "$threads" -b -o "$3" -e '!(qname =~ "[02468]$")' "$1"
  samtools index "$2"; samtools index "$3"
}
[ -s md.lane2.bam ] || split_lanes md.bam md.lane1.bam md.lane2.bam
[ -s sim.lane2.bam ] || split_lanes sim.bam sim.lane1.bam sim.lane2.bam
echo "lanes: $(samtools view -c md.lane1.bam) + $(samtools view -c md.lane2.bam) records"
one="" two="" md1="" md2="" run1="" run2=""
for run in $(seq "$runs"); do
  one+="$(wall one gpu-pipeline call -I md.bam -R ref.fa -O one.vcf.gz) "
  two+="$(wall two gpu-pipeline call -I md.lane1.bam -I md.lane2.bam -R ref.fa -O two.vcf.gz) "
  md1+="$(wall md1 gpu-pipeline markdup -I sim.bam -O md1.bam -M md1.txt) "
  md2+="$(wall md2 gpu-pipeline markdup -I sim.lane1.bam -I sim.lane2.bam -O md2.bam -M md2.txt) "
  run1+="$(wall run1 gpu-pipeline run -I sim.bam -R ref.fa --known-sites known.vcf.gz -o run1 --prefix s) "
  run2+="$(wall run2 gpu-pipeline run -I sim.lane1.bam -I sim.lane2.bam -R ref.fa --known-sites known.vcf.gz -o run2 --prefix s) "
done
echo "call, one BAM:     ${one}(median $(echo "$one" | median) s)"
echo "call, two lanes:   ${two}(median $(echo "$two" | median) s)"
echo "markdup, one BAM:  ${md1}(median $(echo "$md1" | median) s)"
echo "markdup, two lanes: ${md2}(median $(echo "$md2" | median) s)"
echo "run, one BAM:      ${run1}(median $(echo "$run1" | median) s)"
echo "run, two lanes:    ${run2}(median $(echo "$run2" | median) s)"
records() { bgzip -dc "$1" | grep -v '^##gpu-pipelineCommand'; }
same() { if cmp -s "$2" "$3"; then echo "$1: identical"; else echo "$1: DIFFER"; fi; }
same "call VCF records" <(records one.vcf.gz) <(records two.vcf.gz)
same "markdup metrics" <(grep -v '^#' md1.txt) <(grep -v '^#' md2.txt)
same "markdup flags" <(samtools view md1.bam | cut -f 1-4 | LC_ALL=C sort) \
  <(samtools view md2.bam | cut -f 1-4 | LC_ALL=C sort)
same "run VCF records" <(records run1/s.vcf.gz) <(records run2/s.vcf.gz)
same "run recalibration table" run1/s.recal.table run2/s.recal.table
