#!/usr/bin/env bash
# Coordinate sort, unsorted BAM in -> sorted BAM out: gpu-pipeline sort on each DEVICE (and at
# --compression-level 1 on the first, with --gpu-write on the GPU) vs samtools sort and sambamba
# sort when installed, same input, same run. Prints a Markdown table and whether our records equal
# samtools sort's.
#   bench/sort/run.sh INPUT.bam [BUILD_DIR] [THREADS] [DEVICES=cpu]   (DEVICES: cpu, gpu or gpu,cpu)
# BUILD_DIR holds gpu-pipeline (a build tree or a bundle's bin/). Rows also go to $GPP_BENCH_ROWS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: bench/sort/run.sh INPUT.bam [BUILD_DIR] [THREADS] [DEVICES]" >&2; exit 2; }
[ -r "$1" ] || { echo "bench/sort/run.sh: error: $1: no such input" >&2; exit 1; }
input=$(realpath "$1")
build=$(realpath "${2:-$here/../../build}")
threads=${3:-$(nproc)}
devices=${4:-cpu}
work=${GPP_BENCH_DIR:-$here/../out/sort}
source "$here/../lib/measure.sh"
bench_enter "$work"
reads=$(samtools view -c -@"$threads" "$input")

first=${devices%%,*}
for device in ${devices//,/ }; do
  bench_measure sort "gpu-pipeline sort --device $device" ours "$reads" reads/s -- \
    "$build/gpu-pipeline" sort -I "$input" -O "ours.$device.bam" --threads "$threads" --device "$device" || true
done
bench_measure sort "gpu-pipeline sort --device $first --compression-level 1" ours "$reads" reads/s -- \
  "$build/gpu-pipeline" sort -I "$input" -O ours.level1.bam --threads "$threads" --device "$first" \
  --compression-level 1 || true
if [[ ",$devices," == *,gpu,* ]]; then  # BGZF blocks deflated on the GPU too
  bench_measure sort "gpu-pipeline sort --device gpu --gpu-write" ours "$reads" reads/s -- \
    "$build/gpu-pipeline" sort -I "$input" -O ours.gpuwrite.bam --threads "$threads" --device gpu --gpu-write || true
fi
bench_measure sort "samtools sort -@$threads" peer "$reads" reads/s -- \
  samtools sort -@"$threads" -m 768M -o samtools.bam "$input" || true
if command -v sambamba >/dev/null 2>&1; then
  bench_measure sort "sambamba sort -t $threads" peer "$reads" reads/s -- \
    sambamba sort -t "$threads" -m 1536M -o sambamba.bam "$input" || true
fi

bench_table sort
echo
for device in ${devices//,/ }; do
  [ -s "ours.$device.bam" ] && [ -s samtools.bam ] || continue
  same=$(cmp -s <(samtools view "ours.$device.bam") <(samtools view samtools.bam) && echo identical || echo DIFFERENT)
  bench_fact "sort: --device $device records vs samtools sort" "$same"
done
if [ -s ours.gpuwrite.bam ] && [ -s ours.gpu.bam ]; then
  same=$(cmp -s <(samtools view ours.gpuwrite.bam) <(samtools view ours.gpu.bam) && echo identical || echo DIFFERENT)
  bench_fact "sort: --gpu-write records vs the default output" "$same"
fi
sizes=$(for f in ours.*.bam samtools.bam; do [ -s "$f" ] && printf '%s %.1f; ' "$f" "$(stat -c %s "$f" | awk '{print $1 / 1e6}')"; done)
bench_fact "sort: output sizes (MB)" "$sizes"
echo "input: $input ($reads records, $threads threads)"
grep '^sort' "$GPP_BENCH_FACTS" | sed 's/\t/: /' || true
