#!/usr/bin/env bash
# Expected outputs for the directory-format fixtures (perf record --threads:
# data plus data.N), from perf 6.1, for each DIR of tests/fixtures/threads_dir
# (into tests/expected/directory/) and tests/fixtures/threads_zdir (-z, a zstd
# stream per data.N file; into tests/expected/directory/zdir_*):
#   stats.tsv    `perf report --stats`: name<TAB>count, sorted by name
#   samples.tsv  `perf script -F tid,time,ip,period --ns`: time tid ip period,
#                ip as signed 64-bit, sorted (perf orders by time across files)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/expected/directory
for entry in threads_dir: threads_zdir:zdir_; do
    dir=tests/fixtures/${entry%%:*}
    prefix=${entry#*:}
    perf report --stats -i "$dir" 2>/dev/null |
        sed -n '/Aggregated stats/,/stats:$/p' |
        awk '$2 == "events:" && $1 != "TOTAL" { print $1 "\t" $3 }' | LC_ALL=C sort >"$out/${prefix}stats.tsv"
    perf script -F tid,time,ip,period --ns -i "$dir" 2>/dev/null | python3 -c '
import sys
for line in sys.stdin:
    tid, time, period, ip = line.split()
    secs, ns = time.rstrip(":").split(".")
    ip = int(ip, 16)
    if ip >= 1 << 63:
        ip -= 1 << 64
    print(f"{int(secs) * 1000000000 + int(ns)}\t{tid}\t{ip}\t{period}")
' | LC_ALL=C sort >"$out/${prefix}samples.tsv"
done
