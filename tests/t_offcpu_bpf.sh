#!/usr/bin/env bash
# perf_offcpu's rows of `perf record --off-cpu` (BPF): the offcpu-time
# samples.  Debian's perf 6.1 here cannot record them (no BUILD_BPF_SKEL), so
# the fixture tests/fixtures/offcpu/bpf.data is sleeper.data with the event
# and samples added in perf's layout by tests/tools/offcpu_bpf_fixture.py
# (README there): one sum per (thread, user stack) as perf 5.19 to 6.13
# write them at the end (time OFF_CPU_TIMESTAMP + rank).  Checked, in both
# byte orders (the big-endian copy made by tests/tools/perf_to_big_endian.py):
#  - the fixture is what the generator makes of sleeper.data, and bpf.out
#    what it printed;
#  - the method 'bpf' rows against the generator's bytes (bpf.out): tid, pid,
#    start, end, duration, outside, and the frames' ips (perf_callchains of
#    record);
#  - against perf 6.1, which reads the samples (perf script): tid, pid, time,
#    period and the stack's symbols;
#  - the sched_switch rows are sleeper.data's, method 'sched_switch';
#  - sql/offcpu.sql takes the sched_switch rows (the file has both), or with
#    @method = 'bpf' the bpf rows; sql/offcpu_flamegraph.sql's off-CPU total
#    likewise;
#  - the samples as perf 6.14+ writes them (offcpu_bpf_fixture.py --raw: the
#    fields in the raw data), which perfvtab does not read yet: no rows, and
#    perf_diagnostics' offcpu_raw_samples counts them.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fix=tests/fixtures/offcpu
symdir=$root/tests/fixtures/symbols
syms="SELECT perf_symbol_path(NULL, $(sql_quote "$symdir"));"

# q FILE SQL: the rows, @file set to FILE, with the fixtures' symbols
q() { sqlrun "$syms" "${2//@file/$(sql_quote "$1")}" | tail -n +2; }

if ! command -v python3 >/dev/null; then
    echo "ok - offcpu-time samples (every check) # SKIP python3 not found"
    exit 0
fi
python3 tests/tools/offcpu_bpf_fixture.py "$fix/sleeper.data" "$tmp/bpf.data" >"$tmp/bpf.out"
if cmp -s "$tmp/bpf.data" "$fix/bpf.data" && cmp -s "$tmp/bpf.out" "$fix/bpf.out"; then
    ok "bpf.data and bpf.out are what tests/tools/offcpu_bpf_fixture.py makes of sleeper.data"
else
    not_ok "bpf.data and bpf.out are what tests/tools/offcpu_bpf_fixture.py makes of sleeper.data" \
        "they differ: run it again (README)"
fi
if ! python3 tests/tools/perf_to_big_endian.py "$fix/bpf.data" "$tmp/bpf.be.data" >/dev/null 2>"$tmp/err"; then
    not_ok "bpf.data: perf_to_big_endian.py" "$(oneline "$tmp/err")"
fi

# the generator's samples as rows: tid pid start end duration outside, and the frames
want_rows=$(awk '{ print $2 "\t" $3 "\t\t\t" $5 "\tsummed" }' "$fix/bpf.out")
want_frames=$(awk '{ print $6 }' "$fix/bpf.out")

# perf's reading of the samples: tid pid time(ns) period, then the symbols
perf_rows=
if command -v perf >/dev/null; then
    perf_rows=$(perf --buildid-dir "$symdir" script -i "$fix/bpf.data" --ns \
                    -F event,tid,pid,time,period,ip,sym 2>/dev/null |
        awk '/offcpu-time:/ { if (row) print row; split($1, t, "/"); sub(/:$/, "", $2);
                              split($2, s, "."); row = t[2] "\t" t[1] "\t" s[1] s[2] "\t" $3 "\t"; n = 0; next }
             row && NF >= 2 { row = row (n++ ? "," : "") $2; next }
             row && NF == 0 { print row; row = "" }
             END { if (row) print row }')
fi

# s.time as perf prints it: unsigned (the summed samples' time is past 2^63)
time_unsigned="CASE WHEN s.time >= 0 THEN s.time
                    ELSE (((s.time >> 1) & 9223372036854775807) / 5) ||
                         (((s.time >> 1) & 9223372036854775807) % 5 * 2 + (s.time & 1)) END"

for f in "$fix/bpf.data" "$tmp/bpf.be.data"; do
    name=$(basename "$f")
    [ -f "$f" ] || { not_ok "$name: the bpf rows" "no file"; continue; }
    check "$name: the bpf rows are the generator's samples (tid, pid, start, end, duration, outside)" \
        "$(q "$f" "SELECT tid, pid, start, \"end\", duration, outside FROM perf_offcpu(@file)
                   WHERE method = 'bpf' ORDER BY record")" "$want_rows"
    check "$name: their frames (perf_callchains of record) are the generator's user stacks" \
        "$(q "$f" "SELECT (SELECT group_concat(printf('%x', ip), ',') FROM
                           (SELECT ip FROM perf_callchains(@file) c WHERE c.sample = o.record ORDER BY depth))
                   FROM perf_offcpu(@file) o WHERE method = 'bpf' ORDER BY record")" "$want_frames"
    check "$name: record is the offcpu-time sample; end_record, cpu and prev_state are NULL" \
        "$(q "$f" "SELECT count(*) FROM perf_offcpu(@file) o JOIN perf_samples(@file) s ON s.record = o.record
                   WHERE o.method = 'bpf' AND s.event = 'offcpu-time' AND o.end_record IS NULL
                     AND o.cpu IS NULL AND o.prev_state IS NULL")" \
        "$(wc -l <"$fix/bpf.out")"
    if [ -n "$perf_rows" ]; then
        check "$name: tid, pid, time, period and stack equal perf script's" \
            "$(q "$f" "SELECT o.tid, o.pid, $time_unsigned, s.period,
                              (SELECT group_concat(value, ',') FROM json_each(o.stack))
                       FROM perf_offcpu(@file) o JOIN perf_samples(@file) s ON s.record = o.record
                       WHERE o.method = 'bpf' ORDER BY o.record")" "$perf_rows"
    else
        echo "ok - $name: tid, pid, time, period and stack equal perf script's # SKIP perf cannot read $fix/bpf.data"
    fi
    check "$name: the sched_switch rows are sleeper.data's" \
        "$(q "$f" "SELECT record, tid, start, \"end\", duration, prev_state, stack, outside, method
                   FROM perf_offcpu(@file) WHERE method = 'sched_switch'")" \
        "$(q "$fix/sleeper.data" "SELECT record, tid, start, \"end\", duration, prev_state, stack, outside, method
                                 FROM perf_offcpu(@file)")"
    check "$name: sql/offcpu.sql takes the sched_switch rows when the file has both" \
        "$(q "$f" "$(cat sql/offcpu.sql)" | awk -F'\t' '$1 == "sleep_here" { print $2 " " $3 }')" \
        "$(q "$f" "SELECT sum(duration) || ' ' || count(*) FROM perf_offcpu(@file)
                   WHERE method = 'sched_switch' AND duration IS NOT NULL AND stack LIKE '%\"sleep_here\"%'")"
    check "$name: sql/offcpu.sql with @method = 'bpf' takes the bpf rows" \
        "$(q "$f" "$(sed "s/@method/'bpf'/g" sql/offcpu.sql)" | awk -F'\t' '$1 == "sleep_here" { print $2 " " $3 }')" \
        "$(awk '{ n++; s += $5 } END { print s " " n }' "$fix/bpf.out")"
    for m in sched_switch bpf; do
        query=$(sed "s|@svg|$(sql_quote "$tmp/hotcold.svg")|g; s|@event|NULL|g; s|@title|NULL|g; s|@method|'$m'|g" \
                    sql/offcpu_flamegraph.sql)
        check "$name: sql/offcpu_flamegraph.sql with @method = '$m': its off-CPU total is the $m rows'" \
            "$(q "$f" "$query" | cut -f4)" \
            "$(q "$f" "SELECT sum(duration) FROM perf_offcpu(@file) WHERE method = '$m' AND duration IS NOT NULL")"
    done
done

# perf 6.14+'s form: not read, and said
if python3 tests/tools/offcpu_bpf_fixture.py --raw "$fix/sleeper.data" "$tmp/raw.data" >/dev/null 2>"$tmp/err"; then
    check "raw.data (perf 6.14+'s form): no bpf rows, the sched_switch rows still" \
        "$(q "$tmp/raw.data" "SELECT method, count(*) FROM perf_offcpu(@file) GROUP BY method")" \
        "sched_switch	20"
    check "raw.data (perf 6.14+'s form): perf_diagnostics counts its offcpu-time samples" \
        "$(q "$tmp/raw.data" "SELECT kind, severity, count FROM perf_diagnostics(@file) WHERE kind = 'offcpu_raw_samples'")" \
        "offcpu_raw_samples	warning	$(wc -l <"$fix/bpf.out")"
else
    not_ok "raw.data: offcpu_bpf_fixture.py --raw" "$(oneline "$tmp/err")"
fi
