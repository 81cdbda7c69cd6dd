#!/usr/bin/env bash
# A recording whose `perf record` was killed (SIGKILL, OOM, a CI time-out):
# header data size 0, no feature sections.  perf 6.1 refuses it ("Was the
# 'perf record' command properly terminated?"), so the expected values come
# from perf on a repaired copy (tests/tools/repair_unfinished.py: data size
# set to the last whole record, feature bits cleared).  perfvtab reads the
# killed file as it is and must give what perf gives on the copy:
#   - every sample (count, sum(period)), the same perf_profile;
#   - one perf_diagnostics row, a warning of kind unfinished_recording, and no
#     damaged_feature rows for the features never written;
#   - a copy cut in the middle of a record reads to its last whole record;
#   - copies of synth_start.data made unfinished, cut at the end and in the
#     middle of the record that crosses the first read window's end, and at
#     the end of a FINISHED_ROUND that starts there (the slow path of the
#     walk);
#   - a copy of threads_dir made unfinished, two of its files cut mid-record;
#   - live: a recording killed now (plain, -z, --threads) the same way.
#
# Env: PV_ROOT, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$PV_ROOT/build/sqlrun}
PYTHON=/usr/bin/python3
repair=$PV_ROOT/tests/tools/repair_unfinished.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

skip() { echo "ok - $1 # SKIP input absent: $2"; }
same() {  # what got want
    if [ -n "$3" ] && [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got '$2', want '$3'"; fi
}

# perf's sample count and period sum of a (repaired) recording
perf_samples() {
    perf script -i "$1" -F period 2>/dev/null | awk '{n++; s+=$1} END {printf "%d|%d", n, s}'
}

# compare_with_repaired LABEL KILLED REPAIRED CUT_BYTES
compare_with_repaired() {
    local label=$1 killed=$2 repaired=$3 cut=$4 got want
    want=$(perf_samples "$repaired")
    got=$(sqlrun "SELECT count(*) || '|' || coalesce(sum(period), 0) FROM perf_samples('$killed')")
    same "$label: every sample read, count|sum(period) as perf on the repaired copy ($want)" \
        "$got" "$want"
    got=$(sqlrun "SELECT count(*), total(period), total(children_period) FROM perf_profile('$killed')")
    want=$(sqlrun "SELECT count(*), total(period), total(children_period) FROM perf_profile('$repaired')")
    same "$label: perf_profile works and equals the repaired copy's" "$got" "$want"
    got=$(sqlrun "SELECT severity || ' ' || kind || ' ' || value FROM perf_diagnostics('$killed')")
    same "$label: perf_diagnostics has one row, a warning about the unfinished recording" \
        "$got" "warning unfinished_recording $cut"
    got=$(sqlrun "SELECT count(*) FROM perf_diagnostics('$repaired')")
    same "$label: the repaired copy has no diagnostics" "$got" "0"
}

# --- the committed fixture
f=$PV_ROOT/tests/fixtures/killed/killed.data
hdr=$($PYTHON -c 'import struct, sys; b = open(sys.argv[1], "rb").read(); print(struct.unpack_from("<Q", b, 48)[0], struct.unpack_from("<Q", b, 72)[0] != 0)' "$f")
same "killed.data: header data size 0, feature bits set as perf started" "$hdr" "0 True"
got=$(perf_samples "$f")
case $got in
    0\|0|"|") ok "killed.data: perf itself reads no sample of it (data size 0)" ;;
    *) not_ok "killed.data: perf itself reads no sample of it" "perf script gave '$got'" ;;
esac
cut=$($PYTHON "$repair" "$f" "$tmp/repaired.data")
compare_with_repaired killed.data "$f" "$tmp/repaired.data" "$cut"
got=$(sqlrun "SELECT count(*) FROM perf_features('$f')")
same "killed.data: perf_features lists no feature (none was written)" "$got" "0"

# --- cut in the middle of its last record
last=$(sqlrun "SELECT file_offset, size FROM perf_records('$f') ORDER BY record DESC LIMIT 1")
read -r last_offset last_size <<<"$last"
head -c $((last_offset + last_size / 2)) "$f" >"$tmp/cut.data"
cut=$($PYTHON "$repair" "$tmp/cut.data" "$tmp/cut_repaired.data")
same "cut.data: the repair drops the half record" "$cut" "$((last_size / 2))"
compare_with_repaired "cut.data" "$tmp/cut.data" "$tmp/cut_repaired.data" "$cut"
got=$(sqlrun "SELECT file_offset FROM perf_diagnostics('$tmp/cut.data')")
same "cut.data: the warning names the cut record's offset" "$got" "$last_offset"
got=$(sqlrun "SELECT count(*) FROM perf_records('$tmp/cut.data')")
want=$(sqlrun "SELECT count(*) - 1 FROM perf_records('$f')")
same "cut.data: perf_records reads all but the cut record" "$got" "$want"

# --- a zero-filled tail (a file system that grew the file before the data
# reached it): the records end at the first size under 8
{ cat "$f"; head -c 4096 /dev/zero; } >"$tmp/zeros.data"
cut=$($PYTHON "$repair" "$tmp/zeros.data" "$tmp/zeros_repaired.data")
compare_with_repaired "zeros.data (4096 zero bytes after killed.data)" "$tmp/zeros.data" "$tmp/zeros_repaired.data" "$cut"
got=$(sqlrun "SELECT count(*) FROM perf_records('$tmp/zeros.data')")
want=$(sqlrun "SELECT count(*) FROM perf_records('$f')")
same "zeros.data: perf_records reads the records of killed.data" "$got" "$want"

# --- the last whole record at a read window's end.  The walk reads the data
# section in windows of WINDOW_CAPACITY bytes (src/stream/file_walk.c), the
# first at the data offset; a record that lies whole in a window takes the
# inline path of file_walk.h, one that crosses the window's end (or starts
# there) the slow path, where an unfinished file's last record is checked
# against the end of the file.  killed.data (82 KB) never crosses a window:
# copies of synth_start.data (566 KB, finished) are made unfinished (data size
# zeroed, as perf leaves it when killed; feature bits left set):
#   straddle.data      cut at the end of the record that crosses data offset
#                      + window;
#   straddle_mid.data  cut in the middle of that record;
#   round_edge.data    with FINISHED_ROUNDs (8 bytes, harmless before the first
#                      timed record) added at the start of the data, so many
#                      that a later FINISHED_ROUND starts right at data offset
#                      + window; cut at its end (an 8-byte last record).
# Expected: the count of whole records from a walk over the headers, perf on
# the repaired copy, the last record's offset and size.
s=$PV_ROOT/tests/fixtures/synth_start/synth_start.data
window=$(sed -n 's/^#define WINDOW_CAPACITY (\([0-9]*\)u << \([0-9]*\))$/\1 \2/p' \
    "$PV_ROOT/src/stream/file_walk.c")
if [ ! -f "$s" ]; then
    skip "straddle.data, round_edge.data (killed recordings whose last record is at a read window's end)" "$s"
elif ! [[ $window =~ ^[0-9]+\ [0-9]+$ ]]; then
    not_ok "straddle.data: the window size" \
        "no '#define WINDOW_CAPACITY (N << M)' in src/stream/file_walk.c: update this test"
else
    window=$(( ${window% *} << ${window#* } ))
    # prints per file: name, the last record's offset and size, the records
    $PYTHON - "$s" "$window" "$tmp" >"$tmp/edges.txt" 2>&1 <<'EOF'
import struct, sys
src, window, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
b = open(src, 'rb').read()
data_offset, data_size = struct.unpack_from('<QQ', b, 40)
edge = data_offset + window


def records(b):
    at = data_offset
    while at < data_offset + data_size:
        rtype, _misc, size = struct.unpack_from('<IHH', b, at)
        yield at, rtype, size
        at += size


def write(name, b, end, n, at, size):
    cut = bytearray(b[:end])
    struct.pack_into('<QQ', cut, 40, data_offset, 0)
    open('%s/%s' % (out, name), 'wb').write(cut)
    print(name, at, size, n)


for n, (at, rtype, size) in enumerate(records(b), 1):
    if at < edge < at + size:
        write('straddle.data', b, at + size, n, at, size)
        write('straddle_mid.data', b, at + size // 2, n - 1, at, size)
        break
rounds = [(n, at) for n, (at, rtype, size) in enumerate(records(b), 1)
          if rtype == 68 and at < edge]
n, at = rounds[-1]
pad = (edge - at) // 8
b = b[:data_offset] + struct.pack('<IHH', 68, 0, 8) * pad + b[data_offset:]
data_size += 8 * pad
write('round_edge.data', b, edge + 8, n + pad, edge, 8)
EOF
    if [ "$(wc -l <"$tmp/edges.txt")" != 3 ]; then
        not_ok "straddle.data, round_edge.data: cut copies of synth_start.data" "$(oneline "$tmp/edges.txt")"
    fi
    while read -r name at size n; do
        f=$tmp/$name
        got=$(sqlrun "SELECT count(*), (SELECT file_offset || ' ' || size FROM perf_records('$f') ORDER BY record DESC LIMIT 1) FROM perf_records('$f')")
        case $name in
        straddle_mid.data)
            same "$name (cut in the middle of the record at $at, $size bytes, across data offset + $window): all records before it" \
                "${got%%	*}" "$n"
            got=$(sqlrun "SELECT kind || ' ' || value || ' ' || file_offset FROM perf_diagnostics('$f')")
            same "$name: the warning drops the half record at its offset" \
                "$got" "unfinished_recording $((size / 2)) $at"
            continue ;;
        straddle.data)
            what="cut at the end of the record at $at, $size bytes, across data offset + $window" ;;
        *)
            what="cut at the end of a FINISHED_ROUND at data offset + $window" ;;
        esac
        same "$name ($what): every record read, the last the one at the edge" \
            "$got" "$(printf '%s\t%s %s' "$n" "$at" "$size")"
        cut=$($PYTHON "$repair" "$f" "$f.repaired")
        same "$name: the repair drops nothing" "$cut" 0
        compare_with_repaired "$name" "$f" "$f.repaired" "$cut"
    done <"$tmp/edges.txt"
fi

# --- a killed --threads directory, without a live recording: a copy of
# tests/fixtures/threads_dir whose data file ends after its records (no
# feature sections) with data size 0, and whose data.0 and data.1 each end in
# the middle of their last record: both halves dropped, in one warning.
d=$PV_ROOT/tests/fixtures/threads_dir
if [ ! -d "$d" ]; then
    skip "killed_dir (a killed --threads directory)" "$d"
else
    mkdir -p "$tmp/killed_dir"
    $PYTHON - "$d" "$tmp/killed_dir" <<'EOF'
import struct, sys
src, out = sys.argv[1], sys.argv[2]
b = bytearray(open(src + '/data', 'rb').read())
data_offset, data_size = struct.unpack_from('<QQ', b, 40)
cut = b[:data_offset + data_size]
struct.pack_into('<Q', cut, 48, 0)
open(out + '/data', 'wb').write(cut)
for name in ('data.0', 'data.1'):
    d = open('%s/%s' % (src, name), 'rb').read()
    at = last = 0
    while at + 8 <= len(d):
        last = at
        at += struct.unpack_from('<H', d, at + 6)[0]
    open('%s/%s' % (out, name), 'wb').write(d[:last + (at - last) // 2])
EOF
    cut=$($PYTHON "$repair" --dir "$tmp/killed_dir" "$tmp/killed_dir_repaired")
    same "killed_dir: the repair drops the halves of two records" \
        "$([ "${cut:-0}" -gt 0 ] 2>/dev/null && echo yes)" yes
    compare_with_repaired "killed_dir (threads_dir, data.0 and data.1 cut mid-record)" \
        "$tmp/killed_dir" "$tmp/killed_dir_repaired" "$cut"
fi

# --- live: recordings killed now.  The workload loops until perf (its
# parent) is gone, so it ends when perf is killed, whatever the machine.
cc -O1 -fno-omit-frame-pointer -g -o "$tmp/workload" "$PV_ROOT/tests/fixtures/workload.c" 2>/dev/null
loop="while kill -0 \$PPID 2>/dev/null; do $tmp/workload 1 >/dev/null; done"
if ! timeout 20 perf record -q -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
    skip "live killed recordings" "perf record cannot record here"
    exit 0
fi
for kind in plain compressed directory; do
    case $kind in
        plain) out=$tmp/live.data; opts=() ;;
        compressed) out=$tmp/livez.data; opts=(-z) ;;
        directory) out=$tmp/livedir; opts=(--threads) ;;
    esac
    # (a subshell: the shell's "Killed" notice goes to /dev/null too)
    (timeout -s KILL 2 perf record -q "${opts[@]}" -m 8 -F 999 -g -o "$out" -- sh -c "$loop" \
        >/dev/null 2>&1; true) 2>/dev/null
    if [ "$kind" = directory ]; then
        cut=$($PYTHON "$repair" --dir "$out" "$tmp/livedir_repaired" 2>&1)
        repaired=$tmp/livedir_repaired
    else
        cut=$($PYTHON "$repair" "$out" "$out.repaired" 2>&1)
        repaired=$out.repaired
    fi
    if ! [[ $cut =~ ^[0-9]+$ ]]; then
        skip "live $kind killed recording" "no unfinished recording was written: $cut"
        continue
    fi
    compare_with_repaired "live $kind" "$out" "$repaired" "$cut"
done
