#!/usr/bin/env bash
# An allocation that fails ends the query in an error or in its right rows,
# never a crash, a hang, a leak or other rows (ISSUE: safe in any host).
#  1. tests/tools/alloc_sweep.c fails the Nth allocation of the reader, the
#     extension and SQLite (one at a time, then all from the Nth on) for a
#     query of every table and function, the symbol, DWARF, compressed,
#     pipe, stream, directory, pattern and time-window paths included, and
#     the demangling of C++ names (tests/symbols/cxx_names.cc, built and
#     recorded here, with libstdc++): the first 64
#     allocations and 40 more spread over the rest (`make alloc-sweep`
#     tries every one).  Under the sanitizer flavour, LeakSanitizer holds
#     each run to its frees.
#  2. What libraries allocate inside themselves (libelf, libdw, zstd,
#     libtraceevent, libc's fopen) cannot be failed one by one: the same
#     queries run under address-space limits (ulimit -v), where their
#     allocations fail for real, and must give their clean output or an
#     error (plain flavour: the sanitizers reserve address space).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
F=tests/fixtures
S="SELECT perf_symbol_path(NULL, '$PV_ROOT/tests/fixtures/symbols');"
queries=(
    "$S SELECT record, comm, dso, sym, sym_offset, sym_status FROM perf_samples('$F/example.data')"
    "$S SELECT sample, depth, ip, sym, dso, inlined, srcline FROM perf_callchains('$F/dwarf.data')"
    "$S SELECT perf_threads(1); SELECT * FROM perf_profile('$F/example.data')"
    "$S SELECT perf_threads(4); SELECT * FROM perf_profile('$F/example.data')"
    "$S SELECT perf_threads(4); SELECT event, name, period FROM perf_profile('$F/example.data')"
    "SELECT * FROM perf_records('$F/multi.data')"
    "SELECT * FROM perf_features('$F/multi.data')"
    "SELECT * FROM perf_events('$F/multi.data')"
    "SELECT * FROM perf_mmaps('$F/multi.data')"
    "SELECT * FROM perf_comms('$F/multi.data')"
    "SELECT * FROM perf_build_ids('$F/multi.data')"
    "SELECT * FROM perf_tasks('$F/multi.data')"
    "SELECT * FROM perf_lost('$F/multi.data')"
    "SELECT * FROM perf_switches('$F/datasrc.data')"
    "SELECT * FROM perf_stats('$F/stat_interval.data')"
    "SELECT * FROM perf_diagnostics('$F/killed/killed.data')"
    "$S SELECT * FROM perf_offcpu('$F/offcpu/sleeper.data')"
    "$S SELECT * FROM perf_offcpu('$F/offcpu/raw.data') WHERE method = 'bpf'"
    "SELECT tid, pid, period, ip FROM perf_samples('$F/offcpu/raw.data') WHERE tid = 18290 AND event = 'offcpu-time'"
    "SELECT record, data, fields FROM perf_records('$F/tracepoint_kinds.data')"
    "SELECT count(*), sum(period) FROM perf_samples('$F/tracepoint_zfile.data')"
    "SELECT * FROM perf_records('$F/tracepoint_pipe.data')"
    "SELECT count(*) FROM perf_samples('$F/threads_zdir')"
    "SELECT path, count(*) FROM perf_samples('$F/[ef]*.data') GROUP BY path"
    "SELECT count(*) FROM perf_samples('$F/example.data') WHERE time BETWEEN 3808429000000 AND 3808460000000"
    "$S SELECT length(perf_pprof('$F/example.data'))"
    "$S SELECT length(perf_flamegraph(stack, n)) FROM (SELECT perf_folded(perf_frame_name(sym, dso, ip), depth) AS stack, 1 AS n FROM perf_callchains('$F/example.data') GROUP BY sample)"
    "$S SELECT * FROM perf_folded_stacks('$F/example.data') WHERE event = 'cpu-clock:ppp'"
    "$S SELECT * FROM perf_folded_stacks('$F/dwarf.data')"
    "SELECT perf_sum_by(comm, pid, period) FROM perf_samples('$F/multi.data')"
    "SELECT s.record, c.depth FROM perf_samples('$F/fp.data') s JOIN perf_callchains('$F/fp.data') c ON c.sample = s.record"
    "SELECT dso, sym, count(*) FROM perf_samples('$F/example.data') GROUP BY dso, sym"
    "SELECT sample, depth, ip, origin FROM perf_callchains('$F/deferred/deferred.data')"
    "SELECT kind, count FROM perf_diagnostics('$F/deferred/deferred.data')"
    "SELECT * FROM perf_records('-')"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Half the allocations of a C++ recording's callchains are the demangler's:
# libstdc++'s names compared as its symbols are read, the frames' when
# first asked for.
if ! command -v g++ >/dev/null || ! command -v perf >/dev/null; then
    echo "ok - alloc_sweep: a C++ recording's demangled names # SKIP no g++ or no perf"
elif ! g++ -O1 -fno-omit-frame-pointer -o "$tmp/cxx_names" tests/symbols/cxx_names.cc \
        >"$tmp/cxx.log" 2>&1 ||
    ! (cd "$tmp" && timeout 30 perf record -q -F 999 -g -o cxx.data -- ./cxx_names 300) \
        >>"$tmp/cxx.log" 2>&1; then
    echo "ok - alloc_sweep: a C++ recording's demangled names # SKIP cannot build or record it: $(oneline "$tmp/cxx.log")"
else
    queries+=("SELECT sample, depth, sym, dso FROM perf_callchains('$tmp/cxx.data')")
fi
how=(--runs 40)
# perf_profile splits example.data into parts of 4 KB, one a thread
# (analysis/profile_parallel.h): a failure on any thread fails the query
export PERFVTAB_PROFILE_PART_MIN=4096
[ "${ALLOC_SWEEP:-}" = full ] && how=(--full)
# '-': a stream, the pipe fixture, spooled once and read again by every run
cat "$F/tracepoint_pipe.data" | timeout 1800 "$PV_BUILD/tools/alloc_sweep" "${how[@]}" "${queries[@]}"
status=$?
[ $status -le 1 ] || not_ok "alloc_sweep" "exited with status $status (a crash, or a timeout)"

# 2. real failures inside the libraries, plain flavour only
case $PV_BUILD in */san) exit 0 ;; esac
library_queries=(
    "$S SELECT sample, depth, sym, srcline FROM perf_callchains('$F/dwarf.data')"
    "$S SELECT record, dso, sym FROM perf_samples('$F/example.data')"
    "SELECT count(*), sum(period) FROM perf_samples('$F/tracepoint_zfile.data')"
    "SELECT record, fields FROM perf_records('$F/tracepoint_kinds.data')"
    "$S SELECT length(perf_pprof('$F/example.data'))"
)
for q in "${library_queries[@]}"; do
    "$PV_SQLRUN" "$q" >"$tmp/clean" 2>"$tmp/clean.err"
    runs=0 errors=0 wrong=""
    for kb in 30000 40000 50000 60000 70000 80000 90000 100000 120000 150000 200000; do
        (ulimit -v $kb; timeout 60 "$PV_SQLRUN" "$q") >"$tmp/out" 2>"$tmp/err"
        rc=$?
        runs=$((runs + 1))
        if [ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/clean"; then
            continue
        fi
        # an error (status 1, not a signal), after rows that begin the
        # clean ones
        lines=$(wc -l <"$tmp/out")
        if [ $rc -eq 1 ] && [ -s "$tmp/err" ] && head -n "$lines" "$tmp/clean" | cmp -s - "$tmp/out"; then
            errors=$((errors + 1))
        else
            wrong=${wrong:-"ulimit -v $kb: status $rc: $(oneline "$tmp/err") (rows: $lines)"}
        fi
    done
    if [ -z "$wrong" ]; then
        ok "under $runs address-space limits, '${q:0:70}...' gives its clean output or an error after some of it ($errors errors)"
    else
        not_ok "under address-space limits, '${q:0:70}...'" "$wrong"
    fi
done
