#!/usr/bin/env bash
# A time window must not cost a pass over the file (scan/time_seek.h): the
# first `SELECT count(*), sum(period) FROM perf_samples(f) WHERE time
# BETWEEN a AND b` in a fresh connection, on a recording with rounds, reads
# at most 5% of the data section for a 1% window.  Bytes are counted as the
# kernel counts them (/proc/self/io rchar, around the query alone), not
# timed.  Every window's rows (and their order, rowids included) are those
# of the same query with the constraint hidden from the planner (`+time`),
# which filters a full scan in SQLite:
#   - a system-wide recording made now, with many rounds (a small buffer,
#     so that a round is small beside 1% of the file):
#       timeout 40 perf record -q -a -g -F 10000 -m 16 -o rounds.data -- sleep 10
#     while `ls -laR /usr/include` and `gzip` loops run;
#   - the same recording with its FINISHED_ROUNDs turned into FINISHED_INIT
#     (no rounds: read as before, the whole file allowed);
#   - the same workload recorded compressed (-z): exempt from 5%, but no
#     dearer than a plain scan of it.
# Windows: the start, the middle and the end (1% each), 10% at a third, one
# instant, the whole range, before and after the recording, and an empty
# range (hi < lo).
#
# Env: PV_ROOT, PV_BUILD (perfvtab.so), PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PV_SQLRUN=${PV_SQLRUN:-$PV_BUILD/sqlrun}
tmp=$(mktemp -d)
loads=()
cleanup() {
    for p in "${loads[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

skip() { echo "skip - $1: $2"; }

python=/usr/bin/python3
ext=$PV_BUILD/perfvtab.so
if [ ! -f "$ext" ]; then
    # the sanitizer build has no loadable module: the plain one's rows
    ext=$PV_ROOT/build/perfvtab.so
fi
if [ ! -f "$ext" ] || ! "$python" -c 'import sqlite3; sqlite3.connect(":memory:").enable_load_extension(True)' 2>/dev/null; then
    skip "time windows" "no perfvtab.so or no python3 sqlite3 with load_extension"
    exit 0
fi

# record NAME EXTRA...: a system-wide recording under load, or a skip
record() {
    local out=$tmp/$1
    shift
    timeout 25 sh -c 'while :; do ls -laR /usr/include >/dev/null 2>&1; done' &
    loads+=($!)
    timeout 25 sh -c "while :; do gzip -c '$ext' >/dev/null; done" &
    loads+=($!)
    timeout 40 perf record -q -a -g -F 10000 -m 16 "$@" -o "$out" -- sleep 10 >"$tmp/record.log" 2>&1
    for p in "${loads[@]}"; do kill "$p" 2>/dev/null; done
    loads=()
    [ -s "$out" ]
}

# data_section FILE: the data section's offset and size, from the header
data_section() {
    "$python" -c 'import struct, sys; print(*struct.unpack_from("<QQ", open(sys.argv[1], "rb").read(56), 40))' "$1"
}

# windows LABEL FILE LIMIT [START_LIMIT]: each window's rows against
# +time, and the share of the data section its first query read; LIMIT:
# the most a 1% window may read (% of the data section), or "scan" (no more
# than a plain scan of the file), or "" (none); START_LIMIT: the most the 1%
# window at the start may read, when it is not LIMIT, and why
windows() {
    local label=$1 f=$2 limit=$3 start_limit=${4:-}
    "$python" - "$ext" "$f" "$limit" "$label" "$start_limit" <<'EOF'
import os, sqlite3, struct, sys
ext, f, limit, label, start_limit = sys.argv[1:6]

def rchar():
    with open('/proc/self/io') as io:
        for row in io:
            if row.startswith('rchar:'):
                return int(row.split()[1])
    return 0

def connect():
    db = sqlite3.connect(':memory:')
    db.enable_load_extension(True)
    db.load_extension(ext)
    return db

with open(f, 'rb') as fh:
    data_size = struct.unpack_from('<Q', fh.read(56), 48)[0]
whole = connect()
tmin, tmax = whole.execute('SELECT min(time), max(time) FROM perf_samples(?)', (f,)).fetchone()
span = tmax - tmin

def first_read(sql, args):
    db = connect()
    before = rchar()
    rows = db.execute(sql, args).fetchall()
    n = rchar() - before
    db.close()
    return rows, n

_, plain_scan = first_read('SELECT count(*), sum(period) FROM perf_samples(?)', (f,))
windows = [
    ('1% at the start', tmin, tmin + span // 100, True),
    ('1% in the middle', tmin + span // 2, tmin + span // 2 + span // 100, True),
    ('1% at the end', tmax - span // 100, tmax, True),
    ('10% at a third', tmin + span // 3, tmin + span // 3 + span // 10, False),
    ('one instant', tmin + span // 4, tmin + span // 4, False),
    ('the whole range', tmin, tmax, False),
    ('before the recording', 1, tmin - 1, False),
    ('after the recording', tmax + 1, tmax + span, False),
    ('empty (hi < lo)', tmin + span // 2, tmin + span // 4, False),
]
for name, lo, hi, measured in windows:
    name = label + ', ' + name
    got, n = first_read('SELECT count(*), sum(period) FROM perf_samples(?) '
                        'WHERE time BETWEEN ? AND ?', (f, lo, hi))
    want = whole.execute('SELECT count(*), sum(period) FROM perf_samples(?) '
                         'WHERE +time BETWEEN ? AND ?', (f, lo, hi)).fetchall()
    share = 100.0 * n / data_size
    ok = got == want
    print('%s - %s: count and sum are those of a full scan (%s)%s' % (
        'ok' if ok else 'not ok', name, got[0][0],
        '' if ok else ': got %r, want %r' % (got, want)))
    rows, _ = first_read('SELECT rowid, time, tid, cpu, period FROM perf_samples(?) '
                         'WHERE time BETWEEN ? AND ?', (f, lo, hi))
    want_rows = whole.execute('SELECT rowid, time, tid, cpu, period FROM perf_samples(?) '
                              'WHERE +time BETWEEN ? AND ?', (f, lo, hi)).fetchall()
    ok = rows == want_rows
    print('%s - %s: rows, rowids and order are those of a full scan (%d rows)%s' % (
        'ok' if ok else 'not ok', name, len(rows),
        '' if ok else ': first differing at %d' % next(
            (i for i, (a, b) in enumerate(zip(rows, want_rows)) if a != b),
            min(len(rows), len(want_rows)))))
    print('# %s: first query read %.2f%% of the data section (%d of %d bytes)' % (
        name, share, n, data_size))
    if measured and start_limit and lo == tmin:
        most, why = start_limit.split(' ', 1)
        ok = share <= float(most)
        print('%s - %s: the first query reads at most %s%% of the data section, %s (%.2f%%)' % (
            'ok' if ok else 'not ok', name, most, why, share))
        continue
    if not measured or not limit:
        continue
    if limit == 'scan':
        ok = n <= plain_scan * 1.02
        print('%s - %s: the first query reads no more than a plain scan (%d, scan %d bytes)' % (
            'ok' if ok else 'not ok', name, n, plain_scan))
    else:
        ok = share <= float(limit)
        print('%s - %s: the first query reads at most %s%% of the data section (%.2f%%)' % (
            'ok' if ok else 'not ok', name, limit, share))
EOF
}

if ! command -v perf >/dev/null; then
    skip "live recordings" "perf is not installed"
    exit 0
fi
if ! record rounds.data; then
    skip "a recording with rounds" "perf record -a failed: $(oneline "$tmp/record.log")"
    exit 0
fi
f=$tmp/rounds.data
q=$(sql_quote "$f")
rounds=$(sqlrun "SELECT count(*) FROM perf_records($q) WHERE type = 68")
size=$(stat -c %s "$f")
# 5% of the data section must be worth measuring: many rounds, a few MB
if [ "$rounds" -ge 100 ] && [ "$size" -ge 4000000 ]; then
    ok "the recording has $rounds rounds in $size bytes"
    # The window at the start lies in the first rounds, which perf may
    # write unsorted: no start past the data section's is provable, and
    # its first query reads what precedes the first FINISHED_ROUND (the
    # records perf synthesized, a few hundred KiB on a busy machine, and
    # the first round) besides the 5%.
    first_round=$(sqlrun "SELECT min(file_offset) FROM perf_records($q) WHERE type = 68")
    read -r data_offset data_size < <(data_section "$f")
    before=$(awk -v a="$first_round" -v o="$data_offset" -v s="$data_size" 'BEGIN { printf "%.2f", 100 * (a - o) / s }')
    windows "rounds" "$f" 5 "$(awk -v b="$before" 'BEGIN { print 5 + b }') beyond the ${before}% before the first FINISHED_ROUND"
    # the same through $PV_SQLRUN (the sanitizer build's, under make sanitized)
    read -r tmin tmax < <(sqlrun "SELECT min(time), max(time) FROM perf_samples($q)" | tr '\t' ' ')
    for frac in 0 50 99; do
        lo=$((tmin + (tmax - tmin) / 100 * frac)); hi=$((lo + (tmax - tmin) / 100))
        got=$(sqlrun "SELECT rowid, time, tid, period FROM perf_samples($q) WHERE time BETWEEN $lo AND $hi" | md5sum)
        want=$(sqlrun "SELECT rowid, time, tid, period FROM perf_samples($q) WHERE +time BETWEEN $lo AND $hi" | md5sum)
        check "rounds, sqlrun: the 1% window at ${frac}% gives a full scan's rows" "$got" "$want"
    done
else
    skip "a recording with rounds" "only $rounds rounds in $size bytes"
fi

# A committed recording (tests/fixtures/synth_start/README.md) whose first
# 190 KiB are records perf synthesized, with id and time 0: a seek that
# took them for implausible found no boundary there and read the file whole
# (178% of its data section); from the start, stopping by rounds, the first
# query reads about half (the walk reads 256 KiB at a time, the file is
# small).  Not the live recording's luck: on this one the seek must work.
s=$PV_ROOT/tests/fixtures/synth_start/synth_start.data
if [ -f "$s" ]; then
    sq=$(sql_quote "$s")
    read -r data_offset _ < <(data_section "$s")
    # kernel types before FINISHED_INIT: all id 0 and time 0,
    # reaching past 128 KiB (where the bisection's last probes land, up
    # to 64 KiB short of the next record they can prove)
    check "synthesized start: the records before FINISHED_INIT, past 128 KiB, have id and time 0" \
        "$(sqlrun "SELECT count(*) > 1000, max(file_offset) - $data_offset > 131072, min(id) = 0 AND max(id) = 0 AND max(time) = 0 FROM perf_records($sq) WHERE type < 64 AND file_offset < (SELECT min(file_offset) FROM perf_records($sq) WHERE type = 82)")" \
        "$(printf '1\t1\t1')"
    windows "synthesized start" "$s" "" "75 where a full pass reads all of it"
else
    skip "synthesized start" "tests/fixtures/synth_start/synth_start.data is absent"
fi

# the same without rounds: read as before, same rows
"$python" "$PV_ROOT/tests/tools/strip_rounds.py" "$f" "$tmp/noround.data"
check "without rounds: the copy has no FINISHED_ROUND" \
    "$(sqlrun "SELECT count(*) FROM perf_records($(sql_quote "$tmp/noround.data")) WHERE type = 68")" "0"
windows "no rounds" "$tmp/noround.data" ""

# compressed: one zstd stream from the start, no dearer than a plain scan
if record compressed.data -z; then
    windows "compressed" "$tmp/compressed.data" scan
else
    skip "a compressed recording" "perf record -z failed: $(oneline "$tmp/record.log")"
fi
