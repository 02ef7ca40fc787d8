#!/usr/bin/env bash
# PairHMM throughput on a batch file: bench_pairhmm's CPU backend (all threads), its GPU engine
# (with transfers, 1m.in x 100) when DEVICES has gpu, and Intel GKL's AVX PairHMM (GATK's) through
# GklPairHmmBench.java when a JDK and Debian's libgkl-java/libgkl-jni are installed. Rows (GCUPS)
# go to $GPP_BENCH_ROWS; the tools' own Markdown goes to pairhmm.md in the work directory.
#   bench/pairhmm/run.sh [BUILD_DIR] [THREADS] [DEVICES=cpu] [INPUT=tests/data/pairhmm_bench/1m.in]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-$here/../../build}")
threads=${2:-$(nproc)}
devices=${3:-cpu}
input=$(realpath "${4:-$here/../../tests/data/pairhmm_bench/1m.in}")
[ -x "$build/bench_pairhmm" ] || { echo "bench/pairhmm/run.sh: error: $build/bench_pairhmm: not built" >&2; exit 1; }
work=${GPP_BENCH_DIR:-$here/../out/pairhmm}
source "$here/../lib/measure.sh"
bench_enter "$work"
name=$(basename "$input")

# Data rows of the Markdown table that follows the heading matching $1 in stdin.
table_rows() { awk -v h="$1" '/^## / {inside = ($0 ~ h)} inside && /^\| [0-9]/' ; }

"$build/bench_pairhmm" --mode c --input "$input" >pairhmm.md 2>pairhmm.log
read -r cpu_threads cpu_s cpu_gcups < <(table_rows '\\(c\\)' <pairhmm.md | head -1 | awk -F'|' '{print $2, $3, $4}')
bench_row pairhmm "gpu-pipeline PairHMM, CPU backend ($cpu_threads threads, $name)" ours "$cpu_s" "$cpu_gcups" GCUPS
if [[ ",$devices," == *,gpu,* ]]; then
  "$build/bench_pairhmm" --mode a --input "$input" >>pairhmm.md 2>>pairhmm.log
  # | cells | pairs | pairs in fp64 | median s (transfers) | TCUPS (transfers) | median s (kernels) | TCUPS (kernels) | pairs off |
  read -r gpu_s gpu_tcups wrong < <(table_rows '\\(a\\)' <pairhmm.md | head -1 | awk -F'|' '{print $5, $6, $9}')
  bench_row pairhmm "gpu-pipeline PairHMM, GPU ($name x 100, transfers included)" ours "$gpu_s" \
    "$(awk -v t="$gpu_tcups" 'BEGIN {print t * 1000}')" GCUPS - - "$wrong pairs off by > 1e-5"
fi

gkl_cp=/usr/share/java/gkl.jar:/usr/share/java/gatk-native-bindings.jar
if command -v javac >/dev/null 2>&1 && [ -r /usr/share/java/gkl.jar ] && ls /usr/lib/jni/libgkl_pairhmm* >/dev/null 2>&1; then
  mkdir -p gkl
  javac -cp "$gkl_cp" -d gkl "$here/GklPairHmmBench.java"
  java -Djava.library.path=/usr/lib/jni -cp "gkl:$gkl_cp" GklPairHmmBench "$input" "$threads" 5 >gkl.txt 2>gkl.log
  # GKL PairHMM (IMPL, T threads): N cells, median S s, G GCUPS
  read -r gkl_s gkl_gcups < <(sed -nE 's/.*median ([0-9.]+) s, ([0-9.]+) GCUPS.*/\1 \2/p' gkl.txt)
  bench_row pairhmm "Intel GKL AVX PairHMM ($threads threads, $name)" peer "$gkl_s" "$gkl_gcups" GCUPS
  cat gkl.txt >>pairhmm.md
else
  bench_fact "pairhmm: Intel GKL peer" "not run (needs javac and Debian libgkl-java, libgkl-jni)"
fi
bench_table pairhmm
