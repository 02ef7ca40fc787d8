#!/usr/bin/env bash
# Baseline I/O speed: read + rewrite a large BAM with THREADS threads, ours vs samtools, same
# input, same run, alternating, REPEATS times each; prints medians as a Markdown table.
#   bench/io/run.sh [BUILD_DIR] [THREADS] [REPEATS]
# GPP_PIN="taskset -c 0,1" runs both on the same two cores (for hosts with more cores).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
threads=${2:-2}
repeats=${3:-3}
work=${GPP_BENCH_DIR:-$here/../out/io}
mkdir -p "$work"
input=$work/large.bam
[ -s "$input" ] || "$here/make_large_bam.sh" "$input" "${GPP_IO_COPIES:-40}"
records=$(samtools view -c -@"$threads" "$input")

ours=(); whole=(); peer=()
seconds_of() { sed -E 's/.*total_s=([0-9.]+).*/\1/' <<<"$1"; }
for _ in $(seq "$repeats"); do
  ours+=("$(seconds_of "$(${GPP_PIN:-} "$build/bench_io" "$input" "$work/ours.bam" "$threads" stream)")")
  whole+=("$(seconds_of "$(${GPP_PIN:-} "$build/bench_io" "$input" "$work/ours.bam" "$threads" whole)")")
  start=$(date +%s.%N)
  ${GPP_PIN:-} samtools view -@"$threads" -b -o "$work/peer.bam" "$input"
  end=$(date +%s.%N)
  peer+=("$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN {print a / b}'; }
mo=$(median "${ours[@]}"); mw=$(median "${whole[@]}"); mp=$(median "${peer[@]}")
same=$(cmp -s <(samtools view "$work/ours.bam") <(samtools view "$work/peer.bam") && echo yes || echo NO)
printf '| tool | threads | records | median s | records/s | ratio (samtools s / ours s) |\n|---|---|---|---|---|---|\n'
printf '| gpu-pipeline read+write, streaming (bench_io stream) | %s | %s | %.2f | %.0f | %.2f |\n' "$threads" "$records" "$mo" "$(div "$records" "$mo")" "$(div "$mp" "$mo")"
printf '| gpu-pipeline read all, then write all (bench_io whole) | %s | %s | %.2f | %.0f | %.2f |\n' "$threads" "$records" "$mw" "$(div "$records" "$mw")" "$(div "$mp" "$mw")"
printf '| samtools view -@%s -b | %s | %s | %.2f | %.0f | 1.00 |\n' "$threads" "$threads" "$records" "$mp" "$(div "$records" "$mp")"
echo
echo "runs (s): stream ${ours[*]}; whole ${whole[*]}; samtools ${peer[*]}; records identical: $same; sizes: ours $(stat -c %s "$work/ours.bam") B, samtools $(stat -c %s "$work/peer.bam") B"
