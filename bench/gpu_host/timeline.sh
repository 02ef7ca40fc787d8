#!/usr/bin/env bash
# Runs one command and samples it every INTERVAL seconds (default 0.25): seconds since start,
# resident memory (anonymous, file-backed and shared GiB, from /proc/PID/status), the CPU cores it
# kept busy since the last sample, and the last line its standard error has shown by then — where
# a command's memory peaks and which of its phases leave the cores idle. With WCHAN=1 in the
# environment, each sample also counts the command's threads by the kernel function they sleep in
# (/proc/PID/task/*/wchan; futex, poll and timer sleeps left out): what an idle phase waits for.
# With DIRTY=1, each sample also gives the machine's dirty and under-writeback page cache (GiB, from
# /proc/meminfo): whether a phase waits for the kernel to write files to the disk.
#   bench/gpu_host/timeline.sh LOG [INTERVAL] -- COMMAND ARGS...
# The command's standard error goes to LOG; the samples to standard output, then the peak.
set -uo pipefail
log=$1; shift
interval=0.25
if [ "$1" != -- ]; then interval=$1; shift; fi
[ "$1" = -- ] && shift
ticks=$(getconf CLK_TCK)
"$@" 2> "$log" &
pid=$!
start=$(date +%s.%N)
last_cpu=0; last_t=0
peak=0; peak_line=
printf '%7s %6s %6s %6s %6s  %s\n' "s" "anon" "file" "shmem" "cores" "last log line"
while kill -0 "$pid" 2> /dev/null; do
  status=$(cat "/proc/$pid/status" 2> /dev/null) || break
  stat=$(cat "/proc/$pid/stat" 2> /dev/null) || break
  now=$(date +%s.%N)
  line=$(tail -n 1 "$log" 2> /dev/null | cut -c1-110)
  sample=$(awk -v now="$now" -v start="$start" -v ticks="$ticks" -v last_cpu="$last_cpu" \
    -v last_t="$last_t" -v stat="$stat" '
    /^RssAnon:/ { anon = $2 } /^RssFile:/ { file = $2 } /^RssShmem:/ { shmem = $2 }
    END {
      sub(/^.*\) /, "", stat); split(stat, f, " ")  # field 1 is now the state (stat field 3)
      cpu = (f[12] + f[13]) / ticks                  # utime + stime
      t = now - start
      cores = t > last_t ? (cpu - last_cpu) / (t - last_t) : 0
      printf "%7.2f %6.2f %6.2f %6.2f %6.1f %.6f %.3f\n", t, anon / 1048576, file / 1048576,
        shmem / 1048576, cores, cpu, t
    }' <<< "$status")
  read -r t anon file shmem cores last_cpu last_t <<< "$sample"
  printf '%7s %6s %6s %6s %6s  %s\n' "$t" "$anon" "$file" "$shmem" "$cores" "$line"
  if [ "${DIRTY:-0}" = 1 ]; then
    awk '/^Dirty:/ { d = $2 } /^Writeback:/ { w = $2 }
      END { printf "%7s dirty %.2f GiB, writeback %.2f GiB\n", "", d / 1048576, w / 1048576 }' /proc/meminfo
  fi
  if [ "${WCHAN:-0}" = 1 ]; then
    waits=$(for f in /proc/"$pid"/task/*/wchan; do cat "$f" 2> /dev/null; echo; done |
      grep -vE '^(0|futex.*|do_epoll_wait|ep_poll|do_select|do_poll.*|do_sys_poll|hrtimer_nanosleep|do_nanosleep|pipe_read)$' |
      sort | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }')
    [ -n "$waits" ] && printf '%7s waits: %s\n' "" "$waits"
  fi
  total=$(awk -v a="$anon" -v b="$file" -v c="$shmem" 'BEGIN { printf "%.2f", a + b + c }')
  if awk -v x="$total" -v y="$peak" 'BEGIN { exit !(x > y) }'; then
    peak=$total; peak_line="$t s: anon $anon, file $file, shmem $shmem GiB; $line"
  fi
  sleep "$interval"
done
wait "$pid"
status=$?
echo "exit $status; sampled peak $peak GiB at $peak_line"
exit "$status"
