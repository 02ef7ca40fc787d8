#!/usr/bin/env bash
# Base quality recalibration on a duplicate-marked BAM: gpu-pipeline bqsr (table) and applybqsr
# (recalibrated BAM, from the first device's table) on each DEVICE, same input, same run. Prints a
# Markdown table and whether the devices' tables and BAMs are identical. No peer runs here: GATK is
# not a Debian package (the conformance tests check our tables and qualities against its goldens).
#   bench/bqsr/run.sh MARKED.bam REFERENCE.fa KNOWN.vcf.gz [BUILD_DIR] [THREADS] [DEVICES=cpu]
# BUILD_DIR holds gpu-pipeline (a build tree or a bundle's bin/). Rows also go to $GPP_BENCH_ROWS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: bench/bqsr/run.sh MARKED.bam REFERENCE.fa KNOWN.vcf.gz [BUILD_DIR] [THREADS] [DEVICES]" >&2; exit 2; }
for f in "$1" "$2" "$3"; do [ -r "$f" ] || { echo "bench/bqsr/run.sh: error: $f: no such input" >&2; exit 1; }; done
input=$(realpath "$1")
reference=$(realpath "$2")
known=$(realpath "$3")
build=$(realpath "${4:-$here/../../build}")
threads=${5:-$(nproc)}
devices=${6:-cpu}
work=${GPP_BENCH_DIR:-$here/../out/bqsr}
source "$here/../lib/measure.sh"
bench_enter "$work"
reads=$(samtools view -c -@"$threads" "$input")

first=${devices%%,*}
for device in ${devices//,/ }; do
  bench_measure bqsr "gpu-pipeline bqsr --device $device" ours "$reads" reads/s -- \
    "$build/gpu-pipeline" bqsr -I "$input" -R "$reference" --known-sites "$known" -O "recal.$device.table" \
    --threads "$threads" --device "$device" || true
done
[ -s "recal.$first.table" ] || { echo "bench/bqsr/run.sh: error: no recalibration table from --device $first" >&2; exit 1; }
for device in ${devices//,/ }; do
  bench_measure applybqsr "gpu-pipeline applybqsr --device $device" ours "$reads" reads/s -- \
    "$build/gpu-pipeline" applybqsr -I "$input" --bqsr-recal-file "recal.$first.table" -O "recal.$device.bam" \
    --threads "$threads" --device "$device" || true
done

bench_table bqsr
bench_table applybqsr | tail -n +3
echo
for device in ${devices//,/ }; do
  [ "$device" = "$first" ] && continue
  same=$(cmp -s "recal.$first.table" "recal.$device.table" && echo identical || echo DIFFERENT)
  bench_fact "bqsr: --device $device table vs --device $first" "$same"
  same=$(cmp -s <(samtools view "recal.$first.bam") <(samtools view "recal.$device.bam") && echo identical || echo DIFFERENT)
  bench_fact "applybqsr: --device $device records vs --device $first" "$same"
done
bench_fact "bqsr/applybqsr: peer" "none run (GATK is not installed; tables and qualities equal GATK's goldens in the conformance tests)"
echo "input: $input ($reads records, $threads threads), known sites $known"
grep -E '^(bqsr|applybqsr)' "$GPP_BENCH_FACTS" | sed 's/\t/: /' || true
