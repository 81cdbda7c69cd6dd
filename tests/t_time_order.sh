#!/usr/bin/env bash
# Rows in perf's time order (docs/schema.md, "Row order"), checked against
# perf 6.1's own order:
#   - a system-wide recording made now (timeout 10 perf record -a -g -o
#     sys.data -- sleep 3), whose records are out of time order in the file:
#     perf_samples' rows are `perf script --ns -F tid,time`'s samples,
#     one by one; perf_records' samples and task/mmap records come in the
#     order `perf script --show-task-events --show-mmap-events` prints them;
#   - the same recording with its FINISHED_ROUNDs turned into FINISHED_INIT
#     (a file without rounds, which perf sorts whole);
#   - the committed fixtures: compressed, pipe, --threads directories;
#   - equal times: a copy of synth_start.data whose times are rounded down to
#     the millisecond (tests/tools/equal_times.py): perf's order and ORDER BY
#     time keep file order among the hundreds of times both CPUs share;
#   - ORDER BY time is consumed (no temp B-tree) and sorted; ORDER BY record
#     is consumed and file order (not when the query reads symbols or
#     frames, replayed in perf's order: SQLite sorts those); a time window
#     gives perf's rows of the window in perf's order; LIMIT 3 is perf's
#     first three samples.
#
# Env: PV_ROOT, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$PV_ROOT/build/sqlrun}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

skip() { echo "ok - $1 # SKIP $2"; }

# ns: perf's seconds.nanoseconds as an integer string (awk numbers would
# print 1.8e+13)
ns_awk='function ns(s,  t) { gsub(/:/, "", s); split(s, t, "."); s = t[1] t[2]; sub(/^0+/, "", s); return s == "" ? "0" : s }'

# perf's samples of a file as "tid<TAB>time" (time in ns)
perf_samples() {
    perf script -i "$1" --ns -F tid,time 2>/dev/null | awk "$ns_awk"' { print $1 "\t" ns($2) }'
}

# same_rows what got_file want_file
same_rows() {
    local n
    n=$(wc -l <"$3")
    if [ "$n" -gt 0 ] && cmp -s "$2" "$3"; then
        ok "$1 ($n rows)"
    else
        not_ok "$1" "$(diff "$2" "$3" | head -4 | tr '\n' ' ')"
    fi
}

# order_checks LABEL FILE: perf_samples against perf script, ORDER BY time
# against a sort, ORDER BY record against file order
order_checks() {
    local label=$1 f=$2 q
    q=$(sql_quote "$f")
    perf_samples "$f" >"$tmp/perf.txt"
    sqlrun "SELECT tid, time FROM perf_samples($q)" >"$tmp/ours.txt"
    same_rows "$label: perf_samples' rows are perf script's samples, in its order" \
        "$tmp/ours.txt" "$tmp/perf.txt"
    sqlrun "SELECT record FROM perf_samples($q) ORDER BY time" >"$tmp/by_time.txt"
    sqlrun "CREATE TEMP TABLE t AS SELECT record, time FROM perf_samples($q);
            SELECT record FROM t ORDER BY time, record" >"$tmp/sorted.txt"
    same_rows "$label: ORDER BY time gives the rows sorted by time, ties in file order" \
        "$tmp/by_time.txt" "$tmp/sorted.txt"
    sqlrun "SELECT record FROM perf_samples($q) ORDER BY record" >"$tmp/by_record.txt"
    sort -n "$tmp/by_record.txt" | cmp -s - "$tmp/by_record.txt" &&
        [ "$(wc -l <"$tmp/by_record.txt")" = "$(wc -l <"$tmp/perf.txt")" ] &&
        ok "$label: ORDER BY record gives every row in file order" ||
        not_ok "$label: ORDER BY record gives every row in file order" "$(oneline "$tmp/by_record.txt")"
}

# --- the plans: ORDER BY time and ORDER BY record need no sort
f=$PV_ROOT/tests/fixtures/example.data
q=$(sql_quote "$f")
plan() { sqlrun "EXPLAIN QUERY PLAN $1" | grep -c "USE TEMP B-TREE"; }
# perf_samples' columns but those replayed from the records before the
# sample (comm, dso, sym...: read in perf's order whatever the ORDER BY)
cols="record, event, time, pid, tid, cpu, ip, period, callchain, file_offset"
check "perf_samples: ORDER BY time is consumed (no temp B-tree)" \
    "$(plan "SELECT $cols FROM perf_samples($q) ORDER BY time")" "0"
for table in perf_mmaps perf_comms perf_tasks perf_switches perf_lost; do
    check "$table: ORDER BY time is consumed (no temp B-tree)" \
        "$(plan "SELECT * FROM $table($q) ORDER BY time")" "0"
done
check "perf_samples: ORDER BY time, record is consumed" \
    "$(plan "SELECT $cols FROM perf_samples($q) ORDER BY time, record")" "0"
check "perf_samples: ORDER BY record is consumed (no temp B-tree)" \
    "$(plan "SELECT $cols FROM perf_samples($q) ORDER BY record")" "0"
for table in perf_records perf_mmaps perf_stats; do
    check "$table: ORDER BY record is consumed (no temp B-tree)" \
        "$(plan "SELECT * FROM $table($q) ORDER BY record")" "0"
done
# symbols and frames are replayed as far as perf had when the row went out:
# scanned in perf's order, sorted by SQLite (docs/schema.md, "Row order")
for order in time record; do
    check "perf_samples: ORDER BY $order with sym is sorted by SQLite" \
        "$(plan "SELECT time, sym FROM perf_samples($q) ORDER BY $order")" "1"
done
check "perf_callchains: ORDER BY time is sorted by SQLite (frames are replayed)" \
    "$(plan "SELECT time, ip FROM perf_callchains($q) ORDER BY time")" "1"
check "perf_samples: ORDER BY time DESC is sorted by SQLite" \
    "$(plan "SELECT * FROM perf_samples($q) ORDER BY time DESC")" "1"
check "perf_records: ORDER BY time is sorted by SQLite (user records have no time)" \
    "$(plan "SELECT * FROM perf_records($q) ORDER BY time")" "1"
check "a pattern of files: ORDER BY time is sorted by SQLite" \
    "$(plan "SELECT * FROM perf_samples('$PV_ROOT/tests/fixtures/*.data') ORDER BY time")" "1"

# a bound path: ORDER BY time consumed; bound to a pattern of several files,
# a clear error rather than rows out of order
if [ -f "$PV_ROOT/build/perfvtab.so" ]; then
    got=$(/usr/bin/python3 - "$PV_ROOT/build/perfvtab.so" "$PV_ROOT/tests/fixtures" <<'PY' 2>&1
import sqlite3, sys
db = sqlite3.connect(':memory:')
db.enable_load_extension(True)
db.load_extension(sys.argv[1])
q = 'SELECT time FROM perf_samples(?) ORDER BY time'
plan = db.execute('EXPLAIN QUERY PLAN ' + q, ('x',)).fetchall()
times = [r[0] for r in db.execute(q, (sys.argv[2] + '/multi.data',))]
try:
    db.execute(q, (sys.argv[2] + '/*.data',)).fetchall()
    err = 'no error'
except sqlite3.Error as e:
    err = str(e)
print(any('TEMP B-TREE' in r[3] for r in plan), times == sorted(times) and len(times) > 0,
      'needs the pattern written in the query' in err)
PY
)
    check "a bound path: ORDER BY time consumed and sorted; a bound pattern is an error" \
        "$got" "False True True"
else
    skip "a bound path" "build/perfvtab.so is not built"
fi

# --- the committed fixtures (rounds; compressed; pipe; --threads directories)
for name in example.data multi.data tracepoint.data tracepoint_zfile.data tracepoint_zpipe.data \
            switch_cpu_wide.data threads_dir threads_zdir; do
    f=$PV_ROOT/tests/fixtures/$name
    if [ ! -e "$f" ]; then
        skip "$name" "fixture absent"
        continue
    fi
    order_checks "$name" "$f"
done

# --- equal times.  A copy of synth_start.data (system-wide, two CPUs, 13
# rounds, ~3000 samples) whose times are rounded down to the millisecond
# (tests/tools/equal_times.py): samples of both CPUs share a time hundreds of
# times, in runs the queue merges, and time order must keep file order among
# them, as perf's queue does.  Each sample's period is its ordinal in the
# file, so that perf script -F period tells samples of equal time apart.
s=$PV_ROOT/tests/fixtures/synth_start/synth_start.data
if [ ! -f "$s" ]; then
    echo "ok - equal times: perf's order and ORDER BY time keep file order among them # SKIP input absent: $s"
else
    ties=$tmp/ties.data
    python3 "$PV_ROOT/tests/tools/equal_times.py" "$s" "$ties" 1000000 >"$tmp/ties.log" 2>&1 ||
        not_ok "equal times: tests/tools/equal_times.py" "$(oneline "$tmp/ties.log")"
    python3 "$PV_ROOT/tests/tools/strip_rounds.py" "$ties" "$tmp/ties_noround.data"
    q=$(sql_quote "$ties")
    shared=$(sqlrun "SELECT count(*) FROM (SELECT count(DISTINCT cpu) AS cpus FROM perf_samples($q)
                     GROUP BY time) WHERE cpus > 1")
    if [ "${shared:-0}" -gt 100 ] 2>/dev/null; then
        ok "equal times: ties.data has $shared times that samples of both CPUs share"
    else
        not_ok "equal times: ties.data has times that samples of both CPUs share" "$shared"
    fi
    for kind in rounds noround; do
        f=$ties label="equal times"
        [ $kind = noround ] && f=$tmp/ties_noround.data label="equal times, without rounds"
        q=$(sql_quote "$f")
        perf script -i "$f" -F period 2>/dev/null | tr -d ' ' >"$tmp/perf_p.txt"
        sqlrun "SELECT period FROM perf_samples($q)" >"$tmp/ours_p.txt"
        same_rows "$label: perf_samples' rows are perf script's, equal times in its order (periods = ordinals)" \
            "$tmp/ours_p.txt" "$tmp/perf_p.txt"
        sqlrun "SELECT record FROM perf_samples($q) ORDER BY time" >"$tmp/by_time.txt"
        sqlrun "CREATE TEMP TABLE t AS SELECT record, time FROM perf_samples($q);
                SELECT record FROM t ORDER BY time, record" >"$tmp/sorted.txt"
        same_rows "$label: ORDER BY time keeps file order among equal times" \
            "$tmp/by_time.txt" "$tmp/sorted.txt"
    done
    # a window: perf's samples of it, in perf's order
    q=$(sql_quote "$ties")
    read -r lo hi <<<"$(sqlrun "SELECT min(time) + (max(time) - min(time)) / 3,
                               min(time) + (max(time) - min(time)) / 2 FROM perf_samples($q)
                               WHERE time > 0")"
    perf script -i "$ties" --ns -F time,period 2>/dev/null |
        awk "$ns_awk"' { t = ns($1) } t + 0 >= '"$lo"' && t + 0 <= '"$hi"' { print $2 }' >"$tmp/perf_w.txt"
    sqlrun "SELECT period FROM perf_samples($q) WHERE time BETWEEN $lo AND $hi" >"$tmp/ours_w.txt"
    same_rows "equal times: a time window gives perf's samples of it, in perf's order" \
        "$tmp/ours_w.txt" "$tmp/perf_w.txt"
fi

# --- a system-wide recording made now
sys=$tmp/sys.data
if ! timeout 10 perf record -q -a -g -o "$sys" -- sleep 3 >"$tmp/record.log" 2>&1 || [ ! -s "$sys" ]; then
    skip "system-wide recording" "perf record -a failed: $(oneline "$tmp/record.log")"
    exit 0
fi
q=$(sql_quote "$sys")
late=$(sqlrun "SELECT count(*) FROM (SELECT time, lag(time) OVER (ORDER BY record) AS before
               FROM perf_samples($q)) WHERE time < before")
if [ "${late:-0}" -gt 0 ] 2>/dev/null; then
    ok "system-wide: $late samples come before the one ahead of them in the file"
else
    skip "system-wide: file order differs from time order" "this recording is in order ($late)"
fi
order_checks "system-wide" "$sys"

perf_samples "$sys" | head -3 >"$tmp/perf3.txt"
sqlrun "SELECT tid, time FROM perf_samples($q) LIMIT 3" >"$tmp/ours3.txt"
same_rows "system-wide: LIMIT 3 is perf's first three samples" "$tmp/ours3.txt" "$tmp/perf3.txt"

# a window in the middle: perf's samples of it, in perf's order
read -r lo hi <<<"$(sqlrun "SELECT min(time) + (max(time) - min(time)) / 3,
                           min(time) + (max(time) - min(time)) / 2 FROM perf_samples($q)")"
perf_samples "$sys" | awk -F'\t' -v lo="$lo" -v hi="$hi" '$2 + 0 >= lo + 0 && $2 + 0 <= hi + 0' \
    >"$tmp/perf_w.txt"
sqlrun "SELECT tid, time FROM perf_samples($q) WHERE time BETWEEN $lo AND $hi" >"$tmp/ours_w.txt"
same_rows "system-wide: a time window gives perf's samples of it, in perf's order" \
    "$tmp/ours_w.txt" "$tmp/perf_w.txt"
sqlrun "SELECT tid, time FROM perf_samples($q) WHERE time BETWEEN $lo AND $hi ORDER BY time" \
    >"$tmp/ours_wt.txt"
same_rows "system-wide: the window ORDER BY time, the same rows" "$tmp/ours_wt.txt" "$tmp/perf_w.txt"

# perf_records: samples and the task and mmap records, as perf script prints them
perf script -i "$sys" --ns -F tid,time --show-task-events --show-mmap-events 2>/dev/null |
    awk "$ns_awk"' { name = "SAMPLE"
           if (match($0, /PERF_RECORD_[A-Z0-9_]+/)) name = substr($0, RSTART + 12, RLENGTH - 12)
           for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; break }
           print name "\t" ns(t) }' >"$tmp/perf_rec.txt"
sqlrun "SELECT name, time FROM perf_records($q)
        WHERE name IN ('SAMPLE', 'MMAP', 'MMAP2', 'COMM', 'FORK', 'EXIT')" >"$tmp/ours_rec.txt"
same_rows "system-wide: perf_records' samples, task and mmap records in perf script's order" \
    "$tmp/ours_rec.txt" "$tmp/perf_rec.txt"

# --- the same recording without rounds: perf sorts it whole
python3 "$PV_ROOT/tests/tools/strip_rounds.py" "$sys" "$tmp/noround.data"
rounds=$(sqlrun "SELECT count(*) FROM perf_records($(sql_quote "$tmp/noround.data")) WHERE type = 68")
check "without rounds: the copy has no FINISHED_ROUND" "$rounds" "0"
order_checks "without rounds" "$tmp/noround.data"
