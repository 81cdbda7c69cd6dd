#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# A time window costs one pass over the file per connection, then about the
# window: the first `SELECT count(*), sum(period) FROM perf_samples(f) WHERE
# time BETWEEN a AND b` in a connection builds the file's time index (it
# reads the data section once: no more than a plain scan and 5% of it), and
# a later window in the same connection reads only the chunks that meet it:
# at most 5% of the data section for a 1% window (or two 64 KiB chunks of
# the index, on a file where 1% is less than one).  No byte is skipped on
# the strength of perf's round rule, which a file need not keep
# (t_pushdown_twins.sh).  Bytes are counted as the kernel counts them
# (/proc/self/io rchar, around the query alone), not timed.  Every window's
# rows (and their order, rowids included) are those of the same query with
# the constraint hidden from the planner (`+time`), which filters a full
# scan in SQLite:
#   - a system-wide recording made now, with many rounds (a small buffer,
#     so that a round is small beside 1% of the file):
#       timeout 40 perf record -q -a -g -F 10000 -m 16 -o rounds.data -- sleep 10
#     while `ls -laR /usr/include` and `gzip` loops run;
#   - tests/fixtures/synth_start (190 KiB of synthesized records, id and
#     time 0, before its samples);
#   - the same recording with its FINISHED_ROUNDs turned into FINISHED_INIT
#     (no rounds: the same);
#   - the same workload recorded compressed (-z): no index can seek in its
#     one zstd stream, so every window reads it whole, no dearer than a
#     plain scan.
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

skip() { echo "ok - $1 # SKIP $2"; }

python=/usr/bin/python3
# Debian's python3 loads the plain module (the sanitizers' would need
# their runtime preloaded)
ext=$PV_ROOT/build/perfvtab.so
# So the sanitizer pass (PV_BUILD .../san) measures no windows of its own
# (the plain pass does, with the same module): it records the file with
# rounds and reads its windows through its own sqlrun.
sanitized=false
[[ $PV_BUILD == */san ]] && sanitized=true
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

# windows LABEL FILE MODE: each window's rows against +time, and what its
# first query in a connection read, and a later one in the same connection;
# MODE "index": the later 1% windows read at most 5% of the data section,
# "whole": every query reads no more than a plain scan (a compressed file)
windows() {
    local label=$1 f=$2 mode=$3
    "$python" - "$ext" "$f" "$mode" "$label" <<'EOF'
import os, sqlite3, struct, sys
ext, f, mode, label = sys.argv[1:5]

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

def reads(db, sql, args):
    before = rchar()
    rows = db.execute(sql, args).fetchall()
    return rows, rchar() - before

def first_read(sql, args):
    db = connect()
    got = reads(db, sql, args)
    db.close()
    return got

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
window = 'SELECT count(*), sum(period) FROM perf_samples(?) WHERE time BETWEEN ? AND ?'
for name, lo, hi, measured in windows:
    name = label + ', ' + name
    # a connection that built the index with another window first
    later = connect()
    later.execute(window, (f, tmin, tmin)).fetchall()
    got, n_later = reads(later, window, (f, lo, hi))
    later.close()
    want = whole.execute('SELECT count(*), sum(period) FROM perf_samples(?) '
                         'WHERE +time BETWEEN ? AND ?', (f, lo, hi)).fetchall()
    ok = got == want
    print('%s - %s: count and sum are those of a full scan (%s)%s' % (
        'ok' if ok else 'not ok', name, got[0][0],
        '' if ok else ': got %r, want %r' % (got, want)))
    _, n_first = first_read(window, (f, lo, hi))
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
    print('# %s: the first query read %.2f%% of the data section, a later one %.2f%% '
          '(a plain scan %.2f%%)' % (name, 100.0 * n_first / data_size,
                                     100.0 * n_later / data_size, 100.0 * plain_scan / data_size))
    if not measured:
        continue
    if mode == 'whole':
        ok = n_first <= plain_scan * 1.02 and n_later <= plain_scan * 1.02
        print('%s - %s: a query reads no more than a plain scan (first %d, later %d, scan %d '
              'bytes)' % ('ok' if ok else 'not ok', name, n_first, n_later, plain_scan))
        continue
    # 5% of the data section, or two chunks of the index (64 KiB each) on a
    # file where 1% is less than one
    allowed = max(data_size * 0.05, 2 * 65536)
    ok = n_first <= plain_scan + allowed
    print('%s - %s: the first query reads a plain scan and at most %d bytes more (%d, scan %d '
          'bytes)' % ('ok' if ok else 'not ok', name, allowed, n_first, plain_scan))
    ok = n_later <= allowed
    print('%s - %s: a later query reads at most %d bytes, 5%% of the data section or two '
          'chunks (%d, %.2f%%)' % ('ok' if ok else 'not ok', name, allowed, n_later,
                                  100.0 * n_later / data_size))
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
    $sanitized || windows "rounds" "$f" index
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
$sanitized && exit 0

# A committed recording (tests/fixtures/synth_start/README.md) whose first
# 190 KiB are records perf synthesized, with id and time 0.
s=$PV_ROOT/tests/fixtures/synth_start/synth_start.data
if [ -f "$s" ]; then
    windows "synthesized start" "$s" index
else
    skip "synthesized start" "tests/fixtures/synth_start/synth_start.data is absent"
fi

# the same without rounds: read as before, same rows
"$python" "$PV_ROOT/tests/tools/strip_rounds.py" "$f" "$tmp/noround.data"
check "without rounds: the copy has no FINISHED_ROUND" \
    "$(sqlrun "SELECT count(*) FROM perf_records($(sql_quote "$tmp/noround.data")) WHERE type = 68")" "0"
windows "no rounds" "$tmp/noround.data" index

# compressed: one zstd stream from the start, no dearer than a plain scan
if record compressed.data -z; then
    windows "compressed" "$tmp/compressed.data" whole
else
    skip "a compressed recording" "perf record -z failed: $(oneline "$tmp/record.log")"
fi
