#!/usr/bin/env bash
# Sort + mark duplicates, BAM in (unsorted, as bwa writes it) -> coordinate-sorted marked BAM out:
# gpu-pipeline markdup on each DEVICE vs the peer pipelines installed here, on the same input in
# the same run. Prints a Markdown table (wall s, reads/s, peak RSS, ratio to the fastest peer), the
# duplicate-flag agreement with Picard (when Picard is installed) and between devices.
#   bench/markdup/run.sh INPUT.bam [BUILD_DIR] [THREADS] [DEVICES=cpu]   (DEVICES: cpu, gpu or gpu,cpu)
# BUILD_DIR holds gpu-pipeline (a build tree or a bundle's bin/). Rows also go to $GPP_BENCH_ROWS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: bench/markdup/run.sh INPUT.bam [BUILD_DIR] [THREADS] [DEVICES]" >&2; exit 2; }
[ -r "$1" ] || { echo "bench/markdup/run.sh: error: $1: no such input" >&2; exit 1; }
input=$(realpath "$1")
build=$(realpath "${2:-$here/../../build}")
threads=${3:-$(nproc)}
devices=${4:-cpu}
work=${GPP_BENCH_DIR:-$here/../out/markdup}
source "$here/../lib/measure.sh"
bench_enter "$work"
reads=$(samtools view -c -@"$threads" "$input")
have() { command -v "$1" >/dev/null 2>&1; }

for device in ${devices//,/ }; do
  bench_measure markdup "gpu-pipeline markdup --device $device" ours "$reads" reads/s -- \
    "$build/gpu-pipeline" markdup -I "$input" -O "ours.$device.bam" -M "ours.$device.metrics" --threads "$threads" \
    --device "$device" || true
done
first=${devices%%,*}
bench_measure markdup "gpu-pipeline markdup --device $first --compression-level 1" ours "$reads" reads/s -- \
  "$build/gpu-pipeline" markdup -I "$input" -O ours.level1.bam -M ours.level1.metrics --threads "$threads" \
  --device "$first" --compression-level 1 || true
if [[ ",$devices," == *,gpu,* ]]; then  # BGZF blocks deflated on the GPU too
  bench_measure markdup "gpu-pipeline markdup --device gpu --gpu-write" ours "$reads" reads/s -- \
    "$build/gpu-pipeline" markdup -I "$input" -O ours.gpuwrite.bam -M ours.gpuwrite.metrics --threads "$threads" \
    --device gpu --gpu-write || true
fi
bench_measure markdup "samtools collate|fixmate|sort|markdup" peer "$reads" reads/s -- sh -c \
  "samtools collate -@$threads -u -O '$input' tmpcollate | samtools fixmate -@$threads -u -m - - |
   samtools sort -@$threads -u -m 768M - | samtools markdup -@$threads - samtools.bam" || true
if have sambamba; then
  bench_measure markdup "sambamba sort + markdup" peer "$reads" reads/s -- sh -c \
    "sambamba sort -t $threads -m 1536M -o sambamba.sorted.bam '$input' && sambamba markdup -t $threads sambamba.sorted.bam sambamba.bam" || true
fi
if have bamsormadup; then
  bench_measure markdup "biobambam2 bamsormadup" peer "$reads" reads/s -- sh -c \
    "bamsormadup threads=$threads inputformat=bam < '$input' > bamsormadup.bam" || true
fi
if have PicardCommandLine; then
  bench_measure markdup "samtools sort + Picard MarkDuplicates" peer "$reads" reads/s -- sh -c \
    "samtools sort -@$threads -m 768M -o picard.sorted.bam '$input' &&
     PicardCommandLine MarkDuplicates I=picard.sorted.bam O=picard.bam M=picard.metrics VALIDATION_STRINGENCY=SILENT" || true
fi

bench_table markdup
echo
[ -s "ours.$first.bam" ] || { echo "gpu-pipeline markdup produced no output" >&2; exit 1; }
ours_dups=$(samtools view -c -f 1024 "ours.$first.bam")
if [ -s picard.bam ]; then
  same=$(cmp -s <(samtools view "ours.$first.bam" | cut -f 1-4) <(samtools view picard.bam | cut -f 1-4) && echo identical || echo DIFFERENT)
  bench_fact "markdup: duplicate flags vs Picard, record by record" \
    "$same (duplicates: ours $ours_dups, Picard $(samtools view -c -f 1024 picard.bam))"
else
  bench_fact "markdup: duplicate flags vs Picard" "n/a (Picard not installed here; ours: $ours_dups duplicates)"
fi
if [ -s samtools.bam ]; then
  bench_fact "markdup: duplicates found by samtools markdup" "$(samtools view -c -f 1024 samtools.bam)"
fi
for device in ${devices//,/ }; do
  [ "$device" = "$first" ] || [ ! -s "ours.$device.bam" ] && continue
  same=$(cmp -s <(samtools view "ours.$first.bam") <(samtools view "ours.$device.bam") &&
         cmp -s <(tail -n +6 "ours.$first.metrics") <(tail -n +6 "ours.$device.metrics") && echo identical || echo DIFFERENT)
  bench_fact "markdup: --device $device vs --device $first (records and metrics)" "$same"
done
if [ -s ours.gpuwrite.bam ] && [ -s ours.gpu.bam ]; then
  same=$(cmp -s <(samtools view ours.gpuwrite.bam) <(samtools view ours.gpu.bam) && echo identical || echo DIFFERENT)
  bench_fact "markdup: --gpu-write records vs the default output" "$same"
fi
echo "input: $input ($reads records, $threads threads)"
tail -n +1 "$GPP_BENCH_FACTS" | grep '^markdup' | sed 's/\t/: /'
