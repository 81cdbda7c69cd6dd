#!/usr/bin/env bash
# Joins between tables of one file on the record's ordinal, and correlated
# subqueries on it, look the record up (src/scan/record_lookup.h) instead of
# scanning the file for each outer row: `record = ?` (perf_callchains:
# `sample = ?`) is bit 11 of idxNum (ext/vtab_plan.c, pv_plan_decode_args).
#
# Rows: each query is compared with the same query whose constraint is
# answered by SQLite from one scan of each table: both materialized, joined
# through SQLite's automatic index (a constraint merely hidden from the planner,
# `+c.sample = +s.record`, would rescan the inner table per outer row:
# quadratic, minutes under the sanitizers).  On a frame-pointer and a DWARF
# fixture, compressed files and pipe-mode files.  Work: bytes read (rchar, sqlrun's PV_SQLRUN_RCHAR),
# never time, stay within 3x those of one scan of the joined table.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

corpus=$PV_SHARED/corpus
files=(
    tests/fixtures/fp.data
    tests/fixtures/dwarf.data
    tests/fixtures/tracepoint_zfile.data
    tests/fixtures/tracepoint_pipe.data
    tests/fixtures/threads_zdir
    "$corpus/linux-perf-data/tests/fixtures/fibo.compressed2.pipe.data"
    "$corpus/perf_data_converter/src/quipper/testdata/perf.data.piped.target-3.4"
)

# same name sql hidden: the rows of sql equal those of hidden (no rows on a
# file without such records: then both have none)
same() {
    local got want
    got=$(sqlrun "$2")
    want=$(sqlrun "$3")
    if [ "$got" = "$want" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: got '$(head -c 200 <<<"$got")', want '$(head -c 200 <<<"$want")'"
    fi
}

for f in "${files[@]}"; do
    name=$(basename "$f")
    if [ ! -e "$f" ]; then
        echo "ok - $name: joins on the record give the rows of scans (19 checks) # SKIP input absent: $f"
        continue
    fi
    s="perf_samples('$f') s"
    c="perf_callchains('$f') c"
    cols="s.record, s.time, s.tid, c.depth, c.ip, c.sym, c.dso"
    # the references' tables: one scan each, every column the queries read
    ms="s AS MATERIALIZED (SELECT record, time, tid, ip, sym FROM perf_samples('$f'))"
    mc="c AS MATERIALIZED (SELECT sample, depth, ip, sym, dso FROM perf_callchains('$f'))"
    same "$name: join samples-callchains" \
        "SELECT $cols FROM $s JOIN $c ON c.sample = s.record" \
        "WITH $ms, $mc SELECT $cols FROM s JOIN c ON c.sample = s.record"
    same "$name: correlated subquery" \
        "SELECT s.record, (SELECT group_concat(ip || ':' || ifnull(sym, '?'), ';') FROM $c WHERE c.sample = s.record) FROM $s" \
        "WITH $ms, $mc SELECT s.record, (SELECT group_concat(x, ';') FROM (SELECT ip || ':' || ifnull(sym, '?') x FROM c WHERE c.sample = s.record ORDER BY depth)) FROM s"
    same "$name: LEFT JOIN" \
        "SELECT s.record, count(c.depth), total(c.ip) FROM $s LEFT JOIN $c ON c.sample = s.record GROUP BY s.record" \
        "WITH $ms, $mc SELECT s.record, count(c.depth), total(c.ip) FROM s LEFT JOIN c ON c.sample = s.record GROUP BY s.record"
    same "$name: reverse join (perf_callchains outer)" \
        "SELECT c.sample, c.depth, s.time, s.ip, s.sym FROM $c CROSS JOIN $s ON s.record = c.sample" \
        "WITH $ms, $mc SELECT c.sample, c.depth, s.time, s.ip, s.sym FROM c CROSS JOIN s ON s.record = c.sample"
    same "$name: falling ordinals (outer in descending record order)" \
        "WITH o AS MATERIALIZED (SELECT record FROM perf_samples('$f') ORDER BY record DESC)
         SELECT o.record, c.depth, c.ip, c.sym FROM o CROSS JOIN $c ON c.sample = o.record" \
        "WITH o AS MATERIALIZED (SELECT record FROM perf_samples('$f') ORDER BY record DESC), $mc
         SELECT o.record, c.depth, c.ip, c.sym FROM o CROSS JOIN c ON c.sample = o.record"
    # the inclusive profile users write first: each function once per
    # sample, joined to the samples (perf_samples looked up by the rising
    # ordinals of the DISTINCT's rows); against SQLite's own join of a copy
    same "$name: GROUP BY over DISTINCT sample, sym joined to perf_samples" \
        "SELECT c.sym, sum(s.period), count(*) FROM (SELECT DISTINCT sample, sym FROM $c) c
         JOIN $s ON s.record = c.sample GROUP BY c.sym" \
        "WITH s AS MATERIALIZED (SELECT record, period FROM perf_samples('$f'))
         SELECT c.sym, sum(s.period), count(*) FROM (SELECT DISTINCT sample, sym FROM $c) c
         JOIN s ON s.record = c.sample GROUP BY c.sym"
    # the bench's join: the outer row's integers read again for each frame
    # (xColumn's kept value, PvCursor.kept_column); a filter on the outer
    # table; an ORDER BY on an outer column.  Integer sums only: a total()
    # of addresses rounds by the order it adds in
    msi="s AS MATERIALIZED (SELECT record, pid, tid, time, period FROM perf_samples('$f'))"
    # one outer column alone, read for each frame: the kept value is hit
    for col in period tid time; do
        agg="count(*), sum(c.ip & 65535), sum(s.$col)"
        same "$name: the outer row's $col read once per frame" \
            "SELECT $agg FROM $s JOIN $c ON c.sample = s.record" \
            "WITH $msi, $mc SELECT $agg FROM s JOIN c ON c.sample = s.record"
    done
    pid=$(sqlrun "SELECT pid FROM perf_samples('$f') LIMIT 1 OFFSET 3")
    same "$name: join WHERE s.pid = ${pid:-NULL}" \
        "SELECT s.record, s.period, c.depth, c.ip FROM $s JOIN $c ON c.sample = s.record WHERE s.pid = ${pid:-NULL} ORDER BY s.record, c.depth" \
        "WITH $msi, $mc SELECT s.record, s.period, c.depth, c.ip FROM s JOIN c ON c.sample = s.record WHERE s.pid = ${pid:-NULL} ORDER BY s.record, c.depth"
    same "$name: join ORDER BY s.period DESC" \
        "SELECT s.record, s.period, s.tid, c.depth, c.ip FROM $s JOIN $c ON c.sample = s.record ORDER BY s.period DESC, s.record, c.depth" \
        "WITH $msi, $mc SELECT s.record, s.period, s.tid, c.depth, c.ip FROM s JOIN c ON c.sample = s.record ORDER BY s.period DESC, s.record, c.depth"
    # each table with a record column, looked up by the ordinals of all records
    n=$(sqlrun "SELECT count(*) FROM perf_records('$f')")
    for table in perf_samples perf_records perf_mmaps perf_comms perf_tasks perf_lost perf_switches; do
        same "$name: $table joined on record from perf_records" \
            "SELECT r.record, t.record, t.time FROM perf_records('$f') r CROSS JOIN $table('$f') t ON t.record = r.record" \
            "WITH r AS MATERIALIZED (SELECT record FROM perf_records('$f')),
                  t AS MATERIALIZED (SELECT record, time FROM $table('$f'))
             SELECT r.record, t.record, t.time FROM r CROSS JOIN t ON t.record = r.record"
    done
    mid=$((n / 2))
    values="IN (0, 1, $mid, $((n - 1)), $n, $((n + 5)), -1)"
    same "$name: record $values" \
        "SELECT record, type, size FROM perf_records('$f') WHERE record $values ORDER BY record" \
        "SELECT record, type, size FROM perf_records('$f') WHERE +record $values ORDER BY record"
    for v in "$n" "$((n + 1000))" -1 -9223372036854775808 NULL "'$mid'" "'x'" "$mid.0" "$mid.5" "x'00'"; do
        got=$(sqlrun "SELECT count(*), total(record), total(size) FROM perf_records('$f') WHERE record = $v")
        # SQLite's own filter, with the column's INTEGER affinity kept
        # ('5' = 5 then): over a materialized copy of the table
        want=$(sqlrun "WITH r AS MATERIALIZED (SELECT record, size FROM perf_records('$f'))
                       SELECT count(*), total(record), total(size) FROM r WHERE record = $v")
        [ "$got" = "$want" ] || echo "not ok - $name: record = $v: got '$got', want '$want'"
    done
    echo "ok - $name: record = beyond the last, negative, NULL, text, real, blob (10 values)"
done

# The plan uses the lookup (idxNum bit 11 = 2048, with the path: 2049).
f=tests/fixtures/fp.data
plan=$(sqlrun "EXPLAIN QUERY PLAN SELECT count(*) FROM perf_samples('$f') s JOIN perf_callchains('$f') c ON c.sample = s.record" | cut -f4 | tr '\n' ' ')
check "the join scans perf_samples and looks up each sample's frames" \
    "$([[ $plan == *"SCAN s VIRTUAL TABLE INDEX 1:"*"SCAN c VIRTUAL TABLE INDEX 2049:"* ]] && echo yes)" yes
# Looked up by ordinal, a row of perf_samples is priced below SQLite's
# automatic index: the inclusive profile over DISTINCT sample, sym scans the
# DISTINCT's rows (rising samples) and looks each sample up, instead of
# indexing 8 M rows to look them up from perf_samples' side.
plan=$(sqlrun "EXPLAIN QUERY PLAN SELECT c.sym, sum(s.period) FROM (SELECT DISTINCT sample, sym FROM perf_callchains('$f')) c JOIN perf_samples('$f') s ON s.record = c.sample GROUP BY c.sym" | cut -f4 | tr '\n' ' ')
check "the inclusive profile over DISTINCT sample, sym looks each sample up" \
    "$([[ $plan == *"SCAN c "*"SCAN s VIRTUAL TABLE INDEX 2049:"* && $plan != *AUTOMATIC* ]] && echo yes)" yes
plan=$(sqlrun "EXPLAIN QUERY PLAN SELECT (SELECT count(*) FROM perf_callchains('$f') c WHERE c.sample = s.record) FROM perf_samples('$f') s" | cut -f4 | tr '\n' ' ')
check "the correlated subquery looks up" "$([[ $plan == *"SCAN c VIRTUAL TABLE INDEX 2049:"* ]] && echo yes)" yes
plan=$(sqlrun "EXPLAIN QUERY PLAN SELECT * FROM perf_samples('$f') WHERE record = 5 AND time > 0" | cut -f4 | tr '\n' ' ')
check "record = 5 looks up (and pushes nothing else)" "$([[ $plan == *"INDEX 2049:"* ]] && echo yes)" yes

# Work, counted in bytes read: a file longer than the walk's 256 kB window
# (a fixture's data repeated), so that a scan per outer row would show.
rchar_of() {  # SQL -> the bytes sqlrun read running it
    PV_SQLRUN_RCHAR=1 "$PV_SQLRUN" "$1" 2>&1 >/dev/null | sed -n 's/^rchar //p'
}
for fixture in tests/fixtures/fp.data tests/fixtures/dwarf.data; do
    big=$tmp/$(basename "$fixture" .data).long.data
    "$PV_BUILD/tools/make_variants" inflate "$fixture" "$big" 40 >/dev/null ||
        { echo "not ok - make_variants inflate $fixture"; continue; }
    name="$(basename "$fixture") x40"
    scan=$(rchar_of "SELECT count(*), total(ip), count(sym) FROM perf_callchains('$big')")
    for q in "SELECT count(*), total(c.ip), count(c.sym) FROM perf_samples('$big') s JOIN perf_callchains('$big') c ON c.sample = s.record" \
             "SELECT count(*), total(x) FROM (SELECT (SELECT total(ip) + count(sym) FROM perf_callchains('$big') c WHERE c.sample = s.record) x FROM perf_samples('$big') s)" \
             "SELECT count(*), total(s.ip), count(s.sym) FROM perf_callchains('$big') c CROSS JOIN perf_samples('$big') s ON s.record = c.sample" \
             "WITH o AS MATERIALIZED (SELECT record FROM perf_samples('$big') ORDER BY record DESC) SELECT count(*), total(c.ip) FROM o CROSS JOIN perf_callchains('$big') c ON c.sample = o.record"; do
        bytes=$(rchar_of "$q")
        label=${q//$big/long.data}
        if [ -n "$scan" ] && [ -n "$bytes" ] && [ "$bytes" -le $((scan * 3)) ]; then
            echo "ok - $name: ${label:0:90}...: read $bytes bytes, one scan $scan"
        else
            echo "not ok - $name: ${label:0:90}...: read '$bytes' bytes, over 3x one scan's '$scan'"
        fi
    done
    # The inner lookups copy the outer scan's record (src/scan/record_board.h)
    # instead of reading the file again: beyond the scan of the samples, they
    # read at most one 256 KiB window (the first lookup comes before the
    # scan posts anything; record_walk.c's WINDOW_CAPACITY), and 64 KiB are
    # left for what else the process reads (the sanitizers' runtime reads
    # /proc files).  Without the board they read the file again: 630 kB more.  Frame pointers
    # only: a DWARF stack's ips need the maps, which the symbolizer reads.
    outer=$(rchar_of "SELECT count(*), total(period) FROM perf_samples('$big')")
    [ "$fixture" = tests/fixtures/fp.data ] || outer=
    for q in "SELECT count(*), total(c.ip), sum(s.period) FROM perf_samples('$big') s JOIN perf_callchains('$big') c ON c.sample = s.record" \
             "SELECT count(*), total(x) FROM (SELECT (SELECT total(ip) FROM perf_callchains('$big') c WHERE c.sample = s.record) x FROM perf_samples('$big') s)"; do
        [ -n "$outer" ] || break
        bytes=$(rchar_of "$q")
        label=${q//$big/long.data}
        if [ -n "$outer" ] && [ -n "$bytes" ] && [ "$bytes" -le $((outer + 327680)) ]; then
            echo "ok - $name: ${label:0:90}...: read $bytes bytes, the outer scan $outer"
        else
            echo "not ok - $name: ${label:0:90}...: read '$bytes' bytes, over the outer scan's '$outer' and one window"
        fi
    done
    want=$(sqlrun "SELECT count(*), total(ip), total(depth), count(sym) FROM perf_callchains('$big')")
    got=$(sqlrun "SELECT count(*), total(c.ip), total(c.depth), count(c.sym) FROM perf_samples('$big') s JOIN perf_callchains('$big') c ON c.sample = s.record")
    check "$name: the join has every frame of the scan" "$got" "$want"
done
