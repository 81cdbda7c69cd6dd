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
# after a system upgrade.  BENCH_ONLY=dwarf runs only the DWARF part;
# BENCH_ONLY=record records the files missing and stops.
#
# The process-heavy profile (issue 14): `perf record -F 20000 -g -a` for
# BENCH_PROCS_SECONDS (default 40) while two shell loops run gzip,
# `ls -laR /usr/include` and short `python3 -c` scripts: thousands of
# short-lived processes.  Kept as bench/data/procs.data.
#
# The mixed profile (issue 27), recorded with another recipe: per command,
# not system-wide, at another rate: `perf record -F 4999 -g --
# sh bench/mixed_work.sh DIR BENCH_MIXED_SECONDS` until the file reaches
# BENCH_MIXED_MB (default 80; at most 600 s, a round ends first), gcc
# compiling a copy of src/ and ext/, python3 importing many extension
# modules, and bench/deep_stacks' frame-pointer stacks up to ~190 deep
# (bench/mixed_work.sh says how); -N: ~/.debug is left as it is.  Kept as
# bench/data/mixed.data, deep_stacks beside it.  It is
# never tuned against: nobody profiles perfvtab on it, and bench.py reports
# it in a section of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
data=bench/data
profile=$data/perf.data
dwarf=$data/dwarf.data
procs=$data/procs.data
mixed=$data/mixed.data
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
if [ ! -s "$mixed" ]; then
    secs=${BENCH_MIXED_SECONDS:-600}
    mixed_mb=${BENCH_MIXED_MB:-80}
    echo "bench: recording $mixed (about $mixed_mb MB, at most $secs s; perf record -F 4999 -g -- bench/mixed_work.sh)" >&2
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cp -r src ext bench/mixed_python.py "$work/"
    mkdir -p "$work/gen" "$work/obj"
    protoc-c --proto_path=src/render --c_out="$work/gen" profile.proto
    # kept beside the file, where the recording's maps name it, for the symbols
    cc -O1 -g -fno-omit-frame-pointer -o "$PWD/$data/deep_stacks" bench/deep_stacks.c -lz -lzstd -lsqlite3
    ln -s "$PWD/$data/deep_stacks" "$work/deep_stacks"
    (cd "$work" && ls src/*/*.c ext/*.c > sources)
    timeout -s INT $((secs + 120)) perf record -q -N -F 4999 -g -o "$mixed" -- \
        timeout $((secs + 90)) sh bench/mixed_work.sh "$work" "$secs" >/dev/null 2>&1 & rec=$!
    # the work ends its round once the file is big enough
    while kill -0 "$rec" 2>/dev/null; do
        [ "$(stat -c %s "$mixed" 2>/dev/null || echo 0)" -lt $((mixed_mb * 1000000)) ] || touch "$work/stop"
        sleep 0.5
    done
    wait "$rec" || true
    rm -rf "$work"
    trap - EXIT
    [ -s "$mixed" ] || { echo "bench: perf record (mixed workload) failed" >&2; exit 1; }
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
[ "${BENCH_ONLY:-}" = record ] && exit 0
exec /usr/bin/python3 bench/bench.py ${BENCH_ARGS:-} --dwarf "$dwarf" --unseen "$mixed" "$profile" "$procs"
