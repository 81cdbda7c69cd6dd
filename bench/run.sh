#!/usr/bin/env bash
# make bench: records (or reuses) the reference profile and runs bench.py.
#
# The profile: `perf record -F 20000 -g -a` over two copies of the fixtures'
# workload, stopped when the file reaches BENCH_MB megabytes (default 187,
# the size issue 5 measures on).  It is kept in bench/data/ (not committed)
# and reused until deleted.  BENCH_ARGS passes options to bench.py
# (e.g. BENCH_ARGS=--quick, or --no-inflate to skip the 2 GB copies).
#
# The DWARF recording: `perf record --call-graph dwarf -F 250` over shell
# workloads (ls -laR, gzip: many short processes, libc's inline frames),
# stopped by timeout after BENCH_DWARF_SECONDS (default 8), kept as
# bench/data/dwarf.data.  Its binaries must stay as recorded: delete it
# after a system upgrade.  BENCH_ONLY=dwarf runs only the DWARF part.
#
# The process-heavy profile (issue 14): `perf record -F 20000 -g -a` for
# BENCH_PROCS_SECONDS (default 40) while two shell loops run gzip,
# `ls -laR /usr/include` and short `python3 -c` scripts: thousands of
# short-lived processes.  Kept as bench/data/procs.data.
set -euo pipefail
cd "$(dirname "$0")/.."
data=bench/data
profile=$data/perf.data
dwarf=$data/dwarf.data
procs=$data/procs.data
mb=${BENCH_MB:-187}
mkdir -p "$data"
if [ ! -s "$dwarf" ]; then
    echo "bench: recording $dwarf (perf record --call-graph dwarf, shell workloads)" >&2
    timeout "${BENCH_DWARF_SECONDS:-8}" perf record -q --call-graph dwarf -F 250 -o "$dwarf" -- \
        sh -c 'for i in $(seq 30); do ls -laR /usr/include >/dev/null; gzip -c /usr/bin/perf >/dev/null; done' \
        >/dev/null 2>&1 || true
    [ -s "$dwarf" ] || { echo "bench: perf record --call-graph dwarf failed" >&2; exit 1; }
fi
if [ "${BENCH_ONLY:-}" = dwarf ]; then
    exec /usr/bin/python3 bench/bench.py ${BENCH_ARGS:-} --only dwarf --dwarf "$dwarf"
fi
if [ ! -s "$procs" ]; then
    echo "bench: recording $procs (${BENCH_PROCS_SECONDS:-40} s of perf record -F 20000 -g -a, short processes)" >&2
    loop='while :; do gzip -c /usr/bin/perf >/dev/null; ls -laR /usr/include >/dev/null;
                 for i in 1 2 3 4 5; do python3 -c "sum(range(10000))"; done; done'
    sh -c "$loop" >/dev/null 2>&1 & l1=$!
    sh -c "$loop" >/dev/null 2>&1 & l2=$!
    timeout -s INT "${BENCH_PROCS_SECONDS:-40}" perf record -q -F 20000 -g -a -o "$procs" \
        >/dev/null 2>&1 || true
    kill "$l1" "$l2" 2>/dev/null || true
    wait 2>/dev/null || true
    [ -s "$procs" ] || { echo "bench: perf record -a (process-heavy) failed" >&2; exit 1; }
fi
if [ ! -s "$profile" ]; then
    echo "bench: recording $profile (about $mb MB; perf record -F 20000 -g -a)" >&2
    cc -O1 -fno-omit-frame-pointer -g -o "$data/workload" tests/fixtures/workload.c
    "$data/workload" 100000000 >/dev/null & w1=$!
    "$data/workload" 100000000 >/dev/null & w2=$!
    perf record -q -F 20000 -g -a -o "$profile" >/dev/null 2>&1 & rec=$!
    while [ "$(stat -c %s "$profile" 2>/dev/null || echo 0)" -lt $((mb * 1000000)) ]; do
        sleep 0.2
        kill -0 "$rec" 2>/dev/null || { echo "bench: perf record stopped" >&2; exit 1; }
    done
    kill -INT "$rec"
    wait "$rec" || true
    kill "$w1" "$w2" 2>/dev/null || true
    wait 2>/dev/null || true
fi
exec /usr/bin/python3 bench/bench.py ${BENCH_ARGS:-} --dwarf "$dwarf" "$profile" "$procs"
