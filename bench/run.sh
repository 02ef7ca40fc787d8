#!/usr/bin/env bash
# One entry point for the benchmarks: every stage against its peers on the same inputs, gathered
# into one table (wall time, throughput, peak RSS, peak GPU memory, ratio to the best peer) and the
# accuracy checks, written as OUT/report.md and OUT/report.json.
#
#   bench/run.sh dev [--quick] [--build DIR] [--threads N] [--out DIR]
#   bench/run.sh gpu-host BUNDLE_DIR [PAIRS=10000000] [--threads N] [--out DIR] [--work DIR] [--devices gpu,cpu]
#
# dev: this repository's CPU build (default build-cpu/, else build/) against the Debian peers.
#   Full: the 30x simulated chr20 set of ../shared/data/scripts/run_sim.sh (dwgsim + bwa, with its
#   truth and known sites; built once by bench/markdup/make_sim.sh into bench/data/sim30).
#   --quick: 200,000 pairs from bench_generate on the test reference instead (a few minutes on 2 cores).
# gpu-host: from a bundle made by scripts/bundle.sh (run as BUNDLE_DIR/bench-scripts/run.sh):
#   bench_generate makes PAIRS pairs with truth and known sites on the GPU host itself, then sort,
#   markdup, bqsr and applybqsr run on the GPU and on the CPU backend, next to the bundled samtools;
#   bench_pairhmm and bench_sw when bundled.
# Stages: bench/{sort,markdup,bqsr,call,pairhmm,sw}/run.sh (each also runs alone); rows through
# bench/lib/measure.sh, report by bench/lib/report.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: bench/run.sh dev [--quick] [--build DIR] [--threads N] [--out DIR] | bench/run.sh gpu-host BUNDLE_DIR [PAIRS] [--threads N] [--out DIR] [--work DIR] [--devices gpu,cpu]"
fail() { echo "bench/run.sh: error: $*" >&2; exit 2; }

mode=${1:-}
[ "$mode" = dev ] || [ "$mode" = gpu-host ] || fail "expected mode dev or gpu-host ($usage)"
shift
quick=0 build="" threads=$(nproc) out=$here/out work="" bundle="" pairs=10000000 devices=""
if [ "$mode" = gpu-host ]; then
  [ $# -ge 1 ] && [ "${1#--}" = "$1" ] || fail "gpu-host needs BUNDLE_DIR ($usage)"
  bundle=$(realpath "$1")
  shift
  if [ $# -ge 1 ] && [ "${1#--}" = "$1" ]; then pairs=$1; shift; fi
  [[ "$pairs" =~ ^[1-9][0-9]*$ ]] || fail "PAIRS must be a positive integer, got '$pairs'"
fi
while [ $# -gt 0 ]; do
  case $1 in
    --quick) [ "$mode" = dev ] || fail "--quick is for dev mode"; quick=1; shift ;;
    --build) [ $# -ge 2 ] || fail "--build needs a directory"; build=$(realpath "$2"); shift 2 ;;
    --threads) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || fail "--threads needs a positive integer"; threads=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || fail "--out needs a directory"; out=$2; shift 2 ;;
    --work) [ $# -ge 2 ] || fail "--work needs a directory"; work=$2; shift 2 ;;
    --devices) [[ "${2:-}" =~ ^(gpu|cpu)(,(gpu|cpu))*$ ]] || fail "--devices takes gpu, cpu or gpu,cpu"; devices=$2; shift 2 ;;
    *) fail "unknown argument '$1' ($usage)" ;;
  esac
done

if [ "$mode" = dev ]; then
  repo=$(cd "$here/.." && pwd)
  if [ -z "$build" ]; then
    for candidate in "$repo/build-cpu" "$repo/build"; do [ -x "$candidate/gpu-pipeline" ] && { build=$candidate; break; }; done
  fi
  [ -n "$build" ] && [ -x "$build/gpu-pipeline" ] || fail "no build with gpu-pipeline (scripts/build.sh, or --build DIR)"
  data=$repo/tests/data
  devices=${devices:-cpu}
  work=${work:-$out/dev-work}
  if [ ! -x /usr/bin/time ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq time >/dev/null 2>&1 || true  # GNU time for peak RSS (python3 otherwise)
  fi
else
  [ -x "$bundle/bin/gpu-pipeline" ] || fail "$bundle: not a bundle (no bin/gpu-pipeline; scripts/bundle.sh makes one)"
  build=$bundle/bin
  data=$bundle/data
  devices=${devices:-gpu,cpu}
  work=${work:-/tmp/gpp-bench}
  export PATH="$bundle/bin:$PATH"
fi
reference=$data/grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz
mkdir -p "$out" "$work"
out=$(realpath "$out")
work=$(realpath "$work")
export GPP_BENCH_ROWS=$out/rows.tsv GPP_BENCH_FACTS=$out/facts.tsv
: >"$GPP_BENCH_ROWS"
: >"$GPP_BENCH_FACTS"
source "$here/lib/measure.sh"

# Inputs: INPUT (unsorted BAM), REF, KNOWN, TRUTH.
if [ "$mode" = dev ] && [ "$quick" = 0 ]; then
  sim=$here/data/sim30
  THREADS=$threads "$here/markdup/make_sim.sh" "$sim" 30
  input=$sim/aligned.unsorted.bam ref=$sim/ref.fa known=$sim/known.vcf.gz truth=$sim/truth.vcf.gz
  bench_fact "input" "30x simulated GRCh38 chr20:1-10,000,000 (dwgsim, 6% PCR duplicates, bwa mem): $input"
else
  [ "$mode" = dev ] && pairs=200000
  [ -x "$build/bench_generate" ] || fail "$build/bench_generate: not built"
  (cd "$work" && bench_measure generate "bench_generate ($pairs pairs, truth and known sites)" ours "$pairs" pairs/s -- \
    "$build/bench_generate" "$reference" generated.unsorted.bam "$pairs" --truth-vcf truth.vcf.gz \
    --known-sites known.vcf.gz) || fail "bench_generate failed (see $work)"
  input=$work/generated.unsorted.bam ref=$reference known=$work/known.vcf.gz truth=$work/truth.vcf.gz
  bench_fact "input" "$pairs pairs from bench_generate on GRCh38 chr20/chr21 1-10 Mb (diploid truth, 8% duplicates): $input"
fi
bench_fact "machine" "$(nproc) cores, $threads threads used$(command -v nvidia-smi >/dev/null 2>&1 &&
  nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/^/, GPU: /')"

stage_dir() { mkdir -p "$work/$1" && echo "$work/$1"; }
GPP_BENCH_DIR=$(stage_dir sort) "$here/sort/run.sh" "$input" "$build" "$threads" "$devices" || echo "sort stage failed" >&2
GPP_BENCH_DIR=$(stage_dir markdup) "$here/markdup/run.sh" "$input" "$build" "$threads" "$devices" || echo "markdup stage failed" >&2
marked=$work/markdup/ours.${devices%%,*}.bam
if [ -s "$marked" ]; then
  GPP_BENCH_DIR=$(stage_dir bqsr) "$here/bqsr/run.sh" "$marked" "$ref" "$known" "$build" "$threads" "$devices" ||
    echo "bqsr stage failed" >&2
  GPP_BENCH_DIR=$(stage_dir call) "$here/call/run.sh" "$marked" "$ref" "$truth" "$threads" || echo "call stage failed" >&2
fi
if [ -x "$build/bench_pairhmm" ]; then
  GPP_BENCH_DIR=$(stage_dir pairhmm) "$here/pairhmm/run.sh" "$build" "$threads" "$devices" \
    "$data/pairhmm_bench/1m.in" || echo "pairhmm stage failed" >&2
fi
if [ -x "$build/bench_sw" ]; then
  sw_pairs=(1000000 100000)
  [ "$mode" = dev ] && sw_pairs=(20000 20000)
  GPP_BENCH_DIR=$(stage_dir sw) "$here/sw/run.sh" "$build" "${sw_pairs[@]}" || echo "sw stage failed" >&2
fi

if [ "$mode" = gpu-host ]; then commit=$(cat "$bundle/COMMIT" 2>/dev/null || echo unknown); else commit=$(git -C "$here/.." rev-parse --short HEAD); fi
title="Benchmark report: $mode$([ "$quick" = 1 ] && echo ' --quick'), $(date -u +%F), commit $commit"
python3 "$here/lib/report.py" --rows "$GPP_BENCH_ROWS" --facts "$GPP_BENCH_FACTS" --title "$title" \
  --markdown "$out/report.md" --json "$out/report.json" --meta "mode=$mode" --meta "quick=$quick" \
  --meta "commit=$commit" --meta "threads=$threads" --meta "date=$(date -u +%FT%TZ)" --meta "work=$work"
echo
cat "$out/report.md"
echo
echo "written: $out/report.md, $out/report.json (logs and outputs under $work)"
