#!/usr/bin/env bash
# One address, different files over time (tests/symbols/remap.c): munmap and
# mmap of another file at the same address, a forked child mapping another
# file where its parent keeps the first, an exec then both again.  Every
# sample's and frame's symbol and dso must be perf's: an answer remembered
# for an address (the symbol cache) must not outlive the map it came from.
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() {
    cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -DSPIN=remap_alpha \
        -o "$tmp/libremap_a.so" "$root/tests/symbols/remap_lib.c" &&
    cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -DSPIN=remap_omega \
        -o "$tmp/libremap_b.so" "$root/tests/symbols/remap_lib.c" &&
    cc -O1 -g -fno-omit-frame-pointer -o "$tmp/remap" "$root/tests/symbols/remap.c" -ldl
}
if ! build; then
    echo "not ok - remap: the workload does not build"
    exit 1
fi
if ! timeout 120 perf record -q -g -F 2999 -o "$tmp/remap.data" -- "$tmp/remap" \
        "$tmp/libremap_a.so" remap_alpha "$tmp/libremap_b.so" remap_omega >"$tmp/record.log" 2>&1; then
    echo "not ok - remap: perf record -g failed: $(head -c 300 "$tmp/record.log")"
    exit 1
fi

status=0
# the case is there: one ip named after both files, in one process and across a fork
both=$("$sqlrun" "SELECT count(DISTINCT ip), count(DISTINCT pid) FROM perf_samples('$tmp/remap.data')
                  WHERE ip IN (SELECT ip FROM perf_samples('$tmp/remap.data')
                               WHERE sym IN ('remap_alpha', 'remap_omega')
                               GROUP BY ip HAVING count(DISTINCT sym) = 2)")
ips=${both%%	*} pids=${both##*	}
if [ "${ips:-0}" -gt 0 ] && [ "${pids:-0}" -ge 2 ]; then
    echo "ok - remap: $ips ips hold remap_alpha at some times and remap_omega at others, in $pids processes"
else
    echo "not ok - remap: no ip was sampled in both functions (ips, processes: $both)"
    status=1
fi
python3 "$root/tests/symbols_vs_perf.py" "$sqlrun" "$root" remap "$tmp/remap.data" --frames || status=1
exit $status
