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
#  - the samples as perf 6.14+ writes them (tests/fixtures/offcpu/raw.data,
#    offcpu_bpf_fixture.py --raw: the fields in the raw data, intervals of
#    the threshold or more written as they end): the substituted tid, pid,
#    period, ip and stack in perf_samples, perf_callchains, perf_profile
#    and the pushed-down filters, the direct rows as intervals equal to
#    sleeper.data's sched_switch ones, the sum, perf 6.1's time and raw
#    bytes, and a sample with a cut raw callchain (offcpu_raw_unreadable).
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

# fixture NAME [ARG...]: the committed NAME.data and NAME.out are what
# offcpu_bpf_fixture.py ARG... makes of sleeper.data; $tmp/NAME.be.data, the
# big-endian copy of NAME.data
fixture() {
    local name=$1
    shift
    local what="$name.data and $name.out are what offcpu_bpf_fixture.py${*:+ $*} makes of sleeper.data"
    python3 tests/tools/offcpu_bpf_fixture.py "$@" "$fix/sleeper.data" "$tmp/$name.data" >"$tmp/$name.out"
    if cmp -s "$tmp/$name.data" "$fix/$name.data" && cmp -s "$tmp/$name.out" "$fix/$name.out"; then
        ok "$what"
    else
        not_ok "$what" "they differ: run it again (README)"
    fi
    if ! python3 tests/tools/perf_to_big_endian.py "$fix/$name.data" "$tmp/$name.be.data" \
        >/dev/null 2>"$tmp/err"; then
        not_ok "$name.data: perf_to_big_endian.py" "$(oneline "$tmp/err")"
    fi
}
fixture bpf

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

# perf 6.14+'s form: tests/fixtures/offcpu/raw.data (offcpu_bpf_fixture.py
# --raw 11000000): the samples' task, period and stack are in their raw
# data; the intervals of 11 ms or more written as they end (direct), the
# others summed at the end.  perf 6.1 does not substitute (it shows the BPF
# output's own task and period): it is the oracle for the time and the raw
# bytes; the substituted values come from the generator's bytes (raw.out).
# Which half of the raw task pair is the pid (perf 6.14+ reads a direct
# sample's swapped) is proven in tests/unit/test_samples.c; here pid = tid.
thresh=11000000
fixture raw --raw $thresh
# tid pid start end duration outside, as raw.out's bytes say
want_raw_rows=$(awk '$1 == "direct" { printf "%s\t%s\t%.0f\t%s\t%s\t\n", $2, $3, $4 - $5, $4, $5 }
                     $1 == "summed" { print $2 "\t" $3 "\t\t\t" $5 "\tsummed" }' "$fix/raw.out")
# the substituted fields: tid pid period ip, and the frames
want_raw_fields=$(awk '{ split($6, f, ","); print $2 "\t" $3 "\t" $5 "\t" f[1] }' "$fix/raw.out")
want_raw_frames=$(awk '{ print $6 }' "$fix/raw.out")
nr_direct=$(grep -c '^direct' "$fix/raw.out")
nr_raw=$(wc -l <"$fix/raw.out")

# perf 6.1's reading: each offcpu-time sample's time (ns) and raw bytes in hex
perf_raw=
if command -v perf >/dev/null; then
    perf_raw=$(perf script -i "$fix/raw.data" --ns -F sw:time,bpf-output 2>/dev/null |
        awk '/offcpu-time:/ { if (row) print row; t = $(NF - 5); sub(/:$/, "", t); split(t, s, ".");
                              row = s[1] s[2] "\t"; next }
             row && /^ *(BPF output: )?[0-9a-f]+: / { sub(/^ *(BPF output: )?[0-9a-f]+: /, "");
                              for (i = 1; i <= 8 && $i ~ /^[0-9a-f][0-9a-f]$/; i++) row = row toupper($i); next }
             row { print row; row = "" }
             END { if (row) print row }')
fi

for f in "$fix/raw.data" "$tmp/raw.be.data"; do
    name=$(basename "$f")
    [ -f "$f" ] || { not_ok "$name: the bpf rows" "no file"; continue; }
    check "$name: the bpf rows are the generator's intervals (direct: start = time - period) and sums" \
        "$(q "$f" "SELECT tid, pid, start, \"end\", duration, outside FROM perf_offcpu(@file)
                   WHERE method = 'bpf' ORDER BY record")" "$want_raw_rows"
    check "$name: the direct rows are the sched_switch intervals of 11 ms or more" \
        "$(q "$f" "SELECT tid, start, \"end\", duration FROM perf_offcpu(@file)
                   WHERE method = 'bpf' AND outside IS NULL ORDER BY start")" \
        "$(q "$f" "SELECT tid, start, \"end\", duration FROM perf_offcpu(@file)
                   WHERE method = 'sched_switch' AND duration >= $thresh ORDER BY start")"
    check "$name: the summed rows add up the shorter sched_switch intervals" \
        "$(q "$f" "SELECT sum(duration) FROM perf_offcpu(@file) WHERE method = 'bpf' AND outside = 'summed'")" \
        "$(q "$f" "SELECT sum(duration) FROM perf_offcpu(@file)
                   WHERE method = 'sched_switch' AND duration < $thresh")"
    check "$name: record is the offcpu-time sample; end_record, cpu and prev_state are NULL" \
        "$(q "$f" "SELECT count(*) FROM perf_offcpu(@file) o JOIN perf_samples(@file) s ON s.record = o.record
                   WHERE o.method = 'bpf' AND s.event = 'offcpu-time' AND o.end_record IS NULL
                     AND o.cpu IS NULL AND o.prev_state IS NULL")" "$nr_raw"
    check "$name: perf_samples gives the raw data's tid, pid, period and ip (its first frame)" \
        "$(q "$f" "SELECT tid, pid, period, printf('%x', ip) FROM perf_samples(@file) WHERE event = 'offcpu-time' ORDER BY record")" \
        "$want_raw_fields"
    check "$name: perf_callchains gives the raw data's user stack" \
        "$(q "$f" "SELECT (SELECT group_concat(printf('%x', ip), ',') FROM
                           (SELECT ip FROM perf_callchains(@file) c WHERE c.sample = s.record ORDER BY depth))
                   FROM perf_samples(@file) s WHERE event = 'offcpu-time' ORDER BY record")" "$want_raw_frames"
    check "$name: the stack's frames are named (sleep_here), as user frames" \
        "$(q "$f" "SELECT count(*) FROM perf_offcpu(@file) WHERE method = 'bpf' AND stack LIKE '%\"sleep_here\"%'")" \
        "$nr_raw"
    check "$name: pushed-down tid and a lone period column read the substituted fields" \
        "$(q "$f" "SELECT (SELECT count(*) FROM perf_samples(@file) WHERE event = 'offcpu-time' AND tid = 18290) || ' ' ||
                          (SELECT sum(period) FROM perf_samples(@file) WHERE event = 'offcpu-time') || ' ' ||
                          (SELECT count(*) FROM perf_samples(@file) WHERE event = 'offcpu-time' AND tid = 0)")" \
        "$nr_raw $(awk '{ s += $5 } END { print s }' "$fix/raw.out") 0"
    check "$name: perf_profile counts the off-CPU ns on the stack's leaf function" \
        "$(q "$f" "SELECT sum(period) FROM perf_profile(@file) WHERE event = 'offcpu-time'")" \
        "$(awk '{ s += $5 } END { print s }' "$fix/raw.out")"
    check "$name: sql/offcpu.sql with @method = 'bpf' takes every bpf row" \
        "$(q "$f" "$(sed "s/@method/'bpf'/g" sql/offcpu.sql)" | awk -F'\t' '$1 == "sleep_here" { print $2 " " $3 }')" \
        "$(awk '{ n++; s += $5 } END { print s " " n }' "$fix/raw.out")"
    query=$(sed "s|@svg|$(sql_quote "$tmp/raw.svg")|g; s|@event|NULL|g; s|@title|NULL|g; s|@method|'bpf'|g" \
                sql/offcpu_flamegraph.sql)
    check "$name: sql/offcpu_flamegraph.sql with @method = 'bpf': its off-CPU total is the bpf rows'" \
        "$(q "$f" "$query" | cut -f4)" "$(awk '{ s += $5 } END { print s }' "$fix/raw.out")"
    check "$name: no diagnostic about the offcpu-time samples" \
        "$(q "$f" "SELECT count(*) FROM perf_diagnostics(@file) WHERE kind LIKE 'offcpu%'")" "0"
    if [ -n "$perf_raw" ] && [ "$f" = "$fix/raw.data" ]; then
        check "$name: time and raw bytes equal perf script's (perf 6.1 reads them without substitution)" \
            "$(q "$f" "SELECT $time_unsigned, hex(s.raw) FROM perf_samples(@file) s
                       WHERE event = 'offcpu-time' ORDER BY record")" "$perf_raw"
    elif [ "$f" = "$fix/raw.data" ]; then
        echo "ok - $name: time and raw bytes equal perf script's # SKIP perf cannot read $fix/raw.data"
    fi
done
check "raw.data: $nr_direct direct samples and one sum, as the generator wrote" \
    "$(grep -c . "$fix/raw.out")" "$((nr_direct + 1))"

# a sample whose raw callchain runs past its raw data: left as recorded,
# no row, and a warning naming why
python3 - "$fix/raw.data" "$tmp/cut.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
# the first direct sample (raw.out's first line): its raw nr, after the task
# pair and the period, made 50
tid, pid, period = 18290, 18290, 12812019
at = b.index(struct.pack('<QQ', pid << 32 | tid, period)) + 16
struct.pack_into('<Q', b, at, 50)
open(sys.argv[2], 'wb').write(b)
PY
check "cut.data: the sample with a callchain past its raw data is no bpf row" \
    "$(q "$tmp/cut.data" "SELECT count(*) FROM perf_offcpu(@file) WHERE method = 'bpf'")" "$((nr_raw - 1))"
check "cut.data: perf_samples shows it as recorded (task 0, period 1)" \
    "$(q "$tmp/cut.data" "SELECT tid, period FROM perf_samples(@file) WHERE event = 'offcpu-time' ORDER BY record LIMIT 1")" \
    "0	1"
check "cut.data: perf_diagnostics says why (offcpu_raw_unreadable)" \
    "$(q "$tmp/cut.data" "SELECT kind, severity, count, message LIKE '%callchain%' FROM perf_diagnostics(@file)
                          WHERE kind LIKE 'offcpu%'")" "offcpu_raw_unreadable	warning	1	1"
