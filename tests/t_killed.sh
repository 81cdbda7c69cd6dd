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
#     middle of the record that crosses the first read window's end (the
#     slow path of the walk);
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
    got=$(sqlrun "SELECT count(*) || '|' || sum(period) FROM perf_samples('$killed')")
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

# --- the last whole record straddles a read window.  The walk reads the
# data section in windows of WINDOW_CAPACITY bytes (src/stream/record_walk.c),
# the first at the data offset; a record that lies whole in a window takes the
# inline path of record_walk.h, one that crosses the window's end the slow
# path, where an unfinished file's last record is checked against the end of
# the file.  killed.data (82 KB) never crosses a window: a copy of
# synth_start.data (566 KB, finished) is cut at the end of the record that
# straddles data offset + window, its data size zeroed (as perf leaves it when
# killed; its feature bits stay set), and a second copy in that record's
# middle.  Expected: the count of whole records from a walk over the headers,
# perf on the repaired copy, the straddling record's offset and size.
s=$PV_ROOT/tests/fixtures/synth_start/synth_start.data
window=$(sed -n 's/^#define WINDOW_CAPACITY (\([0-9]*\)u << \([0-9]*\))$/\1 \2/p' \
    "$PV_ROOT/src/stream/record_walk.c")
if [ ! -f "$s" ]; then
    skip "straddle.data (a killed recording whose last record crosses a read window)" "$s"
elif ! [[ $window =~ ^[0-9]+\ [0-9]+$ ]]; then
    not_ok "straddle.data: the window size" \
        "no '#define WINDOW_CAPACITY (N << M)' in src/stream/record_walk.c: update this test"
else
    window=$(( ${window% *} << ${window#* } ))
    # prints: offset size of the straddling record, records up to it
    info=$($PYTHON - "$s" "$window" "$tmp/straddle.data" "$tmp/straddle_mid.data" <<'EOF'
import struct, sys
src, window, whole, mid = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
b = open(src, 'rb').read()
data_offset, data_size = struct.unpack_from('<QQ', b, 40)
edge, at, n = data_offset + window, data_offset, 0
while at < data_offset + data_size:
    size = struct.unpack_from('<H', b, at + 6)[0]
    n += 1
    if at < edge < at + size:
        break
    at += size
else:
    sys.exit('no record crosses offset %d' % edge)
for path, end in ((whole, at + size), (mid, at + size // 2)):
    out = bytearray(b[:end])
    struct.pack_into('<Q', out, 48, 0)
    open(path, 'wb').write(out)
print(at, size, n)
EOF
)
    read -r at size n <<<"$info"
    if ! [[ $n =~ ^[0-9]+$ ]]; then
        not_ok "straddle.data: cut copies of synth_start.data" "$info"
    else
        got=$(sqlrun "SELECT count(*), (SELECT file_offset || ' ' || size FROM perf_records('$tmp/straddle.data') ORDER BY record DESC LIMIT 1) FROM perf_records('$tmp/straddle.data')")
        same "straddle.data (cut at the end of the record at $at, $size bytes, across offset data_offset + $window): every record read, the last the straddling one" \
            "$got" "$(printf '%s\t%s %s' "$n" "$at" "$size")"
        cut=$($PYTHON "$repair" "$tmp/straddle.data" "$tmp/straddle_repaired.data")
        same "straddle.data: the repair drops nothing" "$cut" 0
        compare_with_repaired straddle.data "$tmp/straddle.data" "$tmp/straddle_repaired.data" "$cut"
        got=$(sqlrun "SELECT count(*) FROM perf_records('$tmp/straddle_mid.data')")
        same "straddle_mid.data (cut in the middle of the straddling record): all records before it" \
            "$got" "$((n - 1))"
        got=$(sqlrun "SELECT kind || ' ' || value || ' ' || file_offset FROM perf_diagnostics('$tmp/straddle_mid.data')")
        same "straddle_mid.data: the warning drops the half record at its offset" \
            "$got" "unfinished_recording $((size / 2)) $at"
    fi
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
