#!/usr/bin/env python3
"""Runs a command and writes "WALL_SECONDS PEAK_RSS_KB" to a file, like GNU time -f "%e %M"
(for hosts without /usr/bin/time). Peak RSS: getrusage of the waited-for children, i.e. the
largest process of the command. Exits with the command's status.

    rusage.py OUT_FILE COMMAND [ARG...]
"""
import resource
import subprocess
import sys
import time

if len(sys.argv) < 3:
    sys.exit("rusage.py: error: expected OUT_FILE COMMAND [ARG...]")
start = time.monotonic()
status = subprocess.call(sys.argv[2:])
wall = time.monotonic() - start
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
with open(sys.argv[1], "w") as out:
    out.write(f"{wall:.2f} {peak_kb}\n")
sys.exit(status if status >= 0 else 128 - status)
