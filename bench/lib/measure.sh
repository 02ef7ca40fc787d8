# shellcheck shell=bash
# Sourced by the benchmark scripts: timing a command (wall seconds, peak RSS, peak GPU memory in
# use) and recording one result row per run, so that every script prints the same table and
# bench/run.sh can gather all stages into one report.
#
#   source "$(dirname "$0")/../lib/measure.sh"
#   bench_enter WORK_DIR                                          # cd there; fresh rows if alone
#   bench_measure STAGE TOOL ROLE UNITS UNIT_NAME -- COMMAND...   # ROLE: ours | peer
#   bench_row STAGE TOOL ROLE SECONDS THROUGHPUT UNIT [RSS_MB] [GPU_MIB] [NOTE]
#   bench_fact KEY VALUE                                          # accuracy / context lines
#   bench_table [STAGE]                                           # Markdown table of the rows
#
# Rows go to $GPP_BENCH_ROWS (tab-separated; default: rows.tsv in the current directory), facts to
# $GPP_BENCH_FACTS. Peak RSS comes from /usr/bin/time (GNU time) when present, otherwise from
# getrusage in python3 (same meaning: the largest process of the command); peak GPU memory from
# nvidia-smi sampled every 0.2 s when it is present. A failed command is recorded as failed and
# bench_measure returns 1; its log stays in log.<stage>.<n>.txt.

_bench_rows_given=${GPP_BENCH_ROWS:+1}
: "${GPP_BENCH_ROWS:=$PWD/rows.tsv}"
: "${GPP_BENCH_FACTS:=$PWD/facts.tsv}"
export GPP_BENCH_ROWS GPP_BENCH_FACTS
_bench_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_bench_runs=0

# Makes DIR the working directory. A stage script run on its own (not from bench/run.sh, which
# sets GPP_BENCH_ROWS) starts fresh rows and facts files there.
bench_enter() {  # DIR
  mkdir -p "$1"
  cd "$1"
  if [ -z "$_bench_rows_given" ]; then
    export GPP_BENCH_ROWS=$PWD/rows.tsv GPP_BENCH_FACTS=$PWD/facts.tsv
    : >"$GPP_BENCH_ROWS"
    : >"$GPP_BENCH_FACTS"
  fi
}

# Wall seconds and peak RSS (kB) of COMMAND, written as "SECONDS KB" to FILE; COMMAND's status.
_bench_time() {  # FILE COMMAND...
  local file=$1
  shift
  if [ -x /usr/bin/time ] && /usr/bin/time -f x true 2>/dev/null; then
    /usr/bin/time -f "%e %M" -o "$file" "$@"
  else
    python3 "$_bench_lib_dir/rusage.py" "$file" "$@"
  fi
}

_bench_gpu_sampler() {  # FILE: prints the sampler's pid, or nothing without nvidia-smi
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  (while true; do
     nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1
     sleep 0.2
   done) >"$1" &
  echo $!
}

bench_row() {  # STAGE TOOL ROLE SECONDS THROUGHPUT UNIT [RSS_MB] [GPU_MIB] [NOTE]
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:--}" "${8:--}" "${9:-}" \
    >>"$GPP_BENCH_ROWS"
}

bench_fact() {  # KEY VALUE
  printf '%s\t%s\n' "$1" "$2" >>"$GPP_BENCH_FACTS"
}

bench_measure() {  # STAGE TOOL ROLE UNITS UNIT_NAME -- COMMAND...
  local stage=$1 tool=$2 role=$3 units=$4 unit=$5
  shift 5
  [ "$1" = "--" ] && shift
  _bench_runs=$((_bench_runs + 1))
  local log="log.$stage.$_bench_runs.txt" timing="time.$stage.$_bench_runs.txt" gpu="gpu.$stage.$_bench_runs.txt"
  local sampler
  sampler=$(_bench_gpu_sampler "$gpu")
  local status=0
  _bench_time "$timing" "$@" >"$log" 2>&1 || status=$?
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null && wait "$sampler" 2>/dev/null
  local gpu_mib="-"
  [ -n "$sampler" ] && [ -s "$gpu" ] && gpu_mib=$(sort -n "$gpu" | tail -1)
  if [ "$status" -ne 0 ]; then
    bench_row "$stage" "$tool" "$role" "-" "-" "$unit" "-" "-" "failed (exit $status): $(tail -1 "$log" | cut -c1-120)"
    echo "$tool failed (exit $status), see $PWD/$log:" >&2
    tail -3 "$log" >&2
    return 1
  fi
  local seconds kb
  read -r seconds kb < <(tail -1 "$timing")
  awk -v s="$seconds" 'BEGIN {exit !(s < 0.01)}' && seconds=0.01  # below time's resolution
  bench_row "$stage" "$tool" "$role" "$seconds" "$(awk -v u="$units" -v s="$seconds" 'BEGIN {printf "%.6g", u / s}')" \
    "$unit" "$(awk -v k="$kb" 'BEGIN {printf "%.0f", k / 1024}')" "$gpu_mib"
}

bench_table() {  # [STAGE]: Markdown table of the rows recorded so far (of STAGE only, if given)
  python3 "$_bench_lib_dir/report.py" --rows "$GPP_BENCH_ROWS" ${1:+--stage "$1"} --markdown -
}
