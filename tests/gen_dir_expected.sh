#!/usr/bin/env bash
# Expected outputs for the directory-format fixture tests/fixtures/threads_dir
# (perf record --threads: data plus data.N), from perf 6.1:
#   stats.tsv    `perf report --stats`: name<TAB>count, sorted by name
#   samples.tsv  `perf script -F tid,time,ip,period --ns`: time tid ip period,
#                ip as signed 64-bit, sorted (perf orders by time across files)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=tests/fixtures/threads_dir
out=tests/expected_dir
perf report --stats -i "$dir" 2>/dev/null |
    sed -n '/Aggregated stats/,/stats:$/p' |
    awk '$2 == "events:" && $1 != "TOTAL" { print $1 "\t" $3 }' | LC_ALL=C sort >"$out/stats.tsv"
perf script -F tid,time,ip,period --ns -i "$dir" 2>/dev/null | python3 -c '
import sys
for line in sys.stdin:
    tid, time, period, ip = line.split()
    secs, ns = time.rstrip(":").split(".")
    ip = int(ip, 16)
    if ip >= 1 << 63:
        ip -= 1 << 64
    print(f"{int(secs) * 1000000000 + int(ns)}\t{tid}\t{ip}\t{period}")
' | LC_ALL=C sort >"$out/samples.tsv"
