#!/usr/bin/env bash
# `run` and `markdup` of this build (and of an earlier one, unless BASELINE_BINARY is "-") on the
# same data: `run` in memory on 10 M pairs, twice (20 M reads: the in-memory throughput the bounded
# one is held against) and within --max-memory MEMORY on PAIRS pairs, `markdup` within MEMORY on PAIRS
# pairs (the 500 Mb reference of genome_scale.sh: the first two 10 Mb contigs of tests/data
# repeated 25 times each), --gpu-write, calling restricted to 1 Mb; wall time, reads/s, peak RSS,
# page faults, the bounded outputs' records compared between the builds and this build's phase
# lines.
#   bench/gpu_host/bounded_run_compare.sh BUNDLE BASELINE_BINARY|- [PAIRS=25000000] [MEMORY=8G] [WORK=/tmp/gpp-scale]
# (IN_MEMORY_PAIRS=N in the environment changes the in-memory run's 10 M pairs; RUN_ONLY=1 leaves
# markdup out.)
set -uo pipefail
bundle=$(realpath "$1")
baseline=$2
[ "$baseline" = - ] || baseline=$(realpath "$baseline")
pairs=${3:-25000000}; memory=${4:-8G}
work=${5:-/tmp/gpp-scale}
source_reference=$(cd "$(dirname "$0")/../../tests/data/grch38_chr20_10M" && pwd)/grch38.chr20_and_21_10M.fa.gz
export PATH=$bundle/bin:$PATH
mkdir -p "$work/tmp"; cd "$work"
threads=$(nproc)
if [ ! -s scale.fa.fai ]; then
  mapfile -t contigs < <(cut -f1 "$source_reference.fai" | head -2)
  {
    for k in 0 1; do
      echo ">chr$([ $k = 0 ] && echo A || echo B)"
      for _ in $(seq 25); do samtools faidx "$source_reference" "${contigs[$k]}" | tail -n +2 | tr -d '\n'; done | fold -w 60
      echo
    done
  } > scale.fa
  samtools faidx scale.fa
fi
in_memory_pairs=${IN_MEMORY_PAIRS:-10000000}
[ -s small.bam ] || bench_generate scale.fa small.bam "$in_memory_pairs" --seed 11 --threads "$threads" --known-sites small.known.vcf.gz 2>&1 | tail -1
[ -s large.bam ] || bench_generate scale.fa large.bam "$pairs" --seed 12 --threads "$threads" --known-sites large.known.vcf.gz 2>&1 | tail -1
time_bin() { if [ -x "$bundle/bin/time" ]; then "$bundle/bin/time" "$@"; else /usr/bin/time "$@"; fi; }
measure() {  # LABEL READS BINARY ARGS...
  local label=$1 reads=$2 binary=$3; shift 3
  rm -rf out md.bam md.bam.bai
  sync  # what earlier commands left dirty is not written back inside this one
  local start end
  start=$(date +%s.%N)
  time_bin -f "%M %R %S" -o rss.txt "$binary" "$@" 2> "$label.log"
  local status=$?
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" -v n="$reads" -v l="$label" -v s="$status" '
    { printf "%s: exit %s, %.1f s (%.2f M reads/s), peak RSS %.2f GiB, %d minor faults, %s s system\n",
        l, s, b - a, n / (b - a) / 1e6, $1 / 1048576, $2, $3 }' rss.txt
}
run_args() {  # INPUT
  echo run "$1.bam" -R scale.fa --known-sites "$1.known.vcf.gz" -L chrA:1-1000000 --gpu-write -o out --prefix s
}
records() { samtools view -@ 8 "$1" | md5sum | cut -c1-16; }
builds=(gpu-pipeline)
run_records=()
markdup_records=()
[ "$baseline" = - ] || builds+=("$baseline")
for binary in "${builds[@]}"; do
  name=$([ "$binary" = gpu-pipeline ] && echo "this build" || echo "baseline")
  # shellcheck disable=SC2046
  measure "run in memory, $name" $((2 * in_memory_pairs)) "$binary" $(run_args small)
  # Again: a call's first in-memory run is often the slowest (10-12 s where later ones take 8-10 s
  # on one host); the ratio is taken against both.
  # shellcheck disable=SC2046
  measure "run in memory again, $name" $((2 * in_memory_pairs)) "$binary" $(run_args small)
  # shellcheck disable=SC2046
  measure "run within $memory, $name" $((2 * pairs)) "$binary" $(run_args large) --max-memory "$memory" --tmp-dir tmp
  run_records[${#run_records[@]}]=$(records out/s.md.bqsr.bam)
  if [ -z "${RUN_ONLY:-}" ]; then
    measure "markdup within $memory, $name" $((2 * pairs)) "$binary" markdup -I large.bam -O md.bam -M md.txt \
      --gpu-write --max-memory "$memory" --tmp-dir tmp
    markdup_records[${#markdup_records[@]}]=$(records md.bam)
  fi
  if [ "$name" = "this build" ]; then  # before the baseline's runs: kept if the call's time runs out
    grep -hE "spilling:|marking duplicates: e|(counting covariates[^:]*|writing and calling): .*[0-9] s$" "run within $memory, this build.log"
    [ -n "${RUN_ONLY:-}" ] || grep -h "writing: " "markdup within $memory, this build.log"
  fi
done
if [ "$baseline" != - ]; then
  [ "${run_records[0]}" = "${run_records[1]}" ] && echo "bounded run: BAM records identical" || echo "bounded run: BAM records DIFFER"
  [ -n "${RUN_ONLY:-}" ] || { [ "${markdup_records[0]}" = "${markdup_records[1]}" ] && echo "bounded markdup: BAM records identical" || echo "bounded markdup: BAM records DIFFER"; }
fi
