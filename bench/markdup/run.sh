#!/usr/bin/env bash
# Sort + mark duplicates, BAM in (unsorted, as bwa writes it) -> coordinate-sorted marked BAM out:
# gpu-pipeline markdup vs the peer pipelines on the same input in the same run. Prints a Markdown
# table (wall s, reads/s, peak RSS, ratio to the fastest peer) and the duplicate-flag agreement
# with Picard.
#   bench/markdup/run.sh INPUT.bam [BUILD_DIR] [THREADS] [DEVICE]
set -euo pipefail
input=$(realpath "$1")
build=$(realpath "${2:-$(dirname "$0")/../../build}")
threads=${3:-$(nproc)}
device=${4:-cpu}
work=${GPP_BENCH_DIR:-$(dirname "$0")/../out/markdup}
mkdir -p "$work"
cd "$work"
reads=$(samtools view -c -@"$threads" "$input")

declare -a names seconds memory
measure() {  # name, command...
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o time.txt "$@" > "log.$name.txt" 2>&1 || { echo "$name failed:"; tail -5 "log.$name.txt"; exit 1; }
  names+=("$name")
  seconds+=("$(cut -d' ' -f1 time.txt)")
  memory+=("$(cut -d' ' -f2 time.txt)")
}

measure "gpu-pipeline markdup (--device $device)" \
  "$build/gpu-pipeline" markdup -I "$input" -O ours.bam -M ours.metrics --threads "$threads" --device "$device"
measure "samtools collate|fixmate|sort|markdup" sh -c \
  "samtools collate -@$threads -u -O '$input' tmpcollate | samtools fixmate -@$threads -u -m - - |
   samtools sort -@$threads -u -m 768M - | samtools markdup -@$threads - samtools.bam"
measure "sambamba sort + markdup" sh -c \
  "sambamba sort -t $threads -m 1536M -o sambamba.sorted.bam '$input' && sambamba markdup -t $threads sambamba.sorted.bam sambamba.bam"
if command -v bamsormadup > /dev/null; then
  measure "biobambam2 bamsormadup" sh -c "bamsormadup threads=$threads inputformat=bam < '$input' > bamsormadup.bam"
fi
measure "samtools sort + Picard MarkDuplicates" sh -c \
  "samtools sort -@$threads -m 768M -o picard.sorted.bam '$input' &&
   PicardCommandLine MarkDuplicates I=picard.sorted.bam O=picard.bam M=picard.metrics VALIDATION_STRINGENCY=SILENT"

best_peer=""
for k in "${!names[@]}"; do
  [ "$k" -eq 0 ] && continue
  if [ -z "$best_peer" ] || awk -v a="${seconds[$k]}" -v b="$best_peer" 'BEGIN {exit !(a < b)}'; then best_peer=${seconds[$k]}; fi
done
echo "| pipeline | wall s | reads/s | peak RSS MB | fastest peer s / this s |"
echo "|---|---|---|---|---|"
for k in "${!names[@]}"; do
  awk -v n="${names[$k]}" -v s="${seconds[$k]}" -v m="${memory[$k]}" -v r="$reads" -v b="$best_peer" \
    'BEGIN {printf "| %s | %.2f | %.0f | %.0f | %.2f |\n", n, s, r / s, m / 1024, b / s}'
done
echo
same=$(cmp -s <(samtools view ours.bam | cut -f 1-4) <(samtools view picard.bam | cut -f 1-4) && echo identical || echo DIFFERENT)
echo "input: $input ($reads records, $threads threads); duplicate flags vs Picard, record by record: $same;" \
     "duplicates: ours $(samtools view -c -f 1024 ours.bam), Picard $(samtools view -c -f 1024 picard.bam)"
