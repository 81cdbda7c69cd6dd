#!/usr/bin/env bash
# COMPRESSED2 records whose header.size and data_size disagree, as perf
# 6.16's writer leaves them (hotspot #736): tests/tools/compressed2_sizes.py
# rewrites a fixture's records into pushes framed that way (size0: header.size
# 0; multi: a push of three records, the first describing all of them, the
# others with data_size never written, 3 and 0x0123456789abcdef; padded:
# header.size 8 to 15 bytes past the data's padding), in both byte orders.
#
# Each is read whole: its perf_records (containers aside) and perf_samples
# equal the original's, with and without the decompressing thread; the
# samples' time and period equal perf script's on the original (perf 6.1
# cannot read COMPRESSED2, so the original is its oracle); perf_diagnostics
# has one compressed2_size_mismatch warning at the first shaped record the
# generator printed, counting the records sized by the bytes (size0, the
# first of a multi push) and the padded ones.
#
# Env: PV_ROOT, PV_BUILD, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PV_SQLRUN=${PV_SQLRUN:-$PV_BUILD/sqlrun}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixtures=$PV_ROOT/tests/fixtures
tools=$PV_ROOT/tests/tools

sql() {  # thread|none, path, sql with @ for the path
    local min=0
    [ "$1" = none ] && min=18446744073709551615
    PERFVTAB_UNPACK_THREAD_MIN=$min "$PV_SQLRUN" "${3//@/\'$2\'}" 2>&1
}

same() {  # what, file a, file b
    if [ -s "$2" ] && cmp -s "$2" "$3"; then
        echo "ok - $1 ($(wc -l <"$2") lines)"
    else
        echo "not ok - $1: $(diff "$2" "$3" | head -4 | cut -c1-160 | tr '\n' ' ')"
    fi
}

sample_columns=$("$PV_SQLRUN" "SELECT group_concat('\"' || name || '\"', ', ') FROM pragma_table_info('perf_samples') WHERE name NOT IN ('record', 'file_offset', 'path')")
records_moved="SELECT type, misc, size, time, pid, tid, cpu, id, fields, hex(data) FROM perf_records(@) WHERE type NOT IN (81, 83)"
samples_moved="SELECT $sample_columns FROM perf_samples(@)"

if ! command -v python3 >/dev/null; then
    echo "ok - COMPRESSED2 sizes (every check) # SKIP python3 not found"
    exit 0
fi

for source in dwarf.data tracepoint_zfile.data; do
    src=$fixtures/$source
    if [ ! -f "$src" ]; then
        echo "ok - $source: COMPRESSED2 sizes # SKIP input absent: $src"
        continue
    fi
    # perf's reading of the original: time (ns) and period of every sample
    perf_rows=$tmp/${source}.perf
    if command -v perf >/dev/null &&
       perf script -i "$src" -F time,period --ns 2>/dev/null |
       awk -F'[:. ]+' 'NF >= 3 { printf "%d%s\t%s\n", $2, $3, $4 }' >"$perf_rows" && [ -s "$perf_rows" ]; then
        have_perf=1
    else
        have_perf=0
    fi
    for order in le be; do
        orig=$src
        if [ $order = be ]; then
            orig=$tmp/${source%.data}.be.data
            if ! python3 "$tools/perf_to_big_endian.py" "$src" "$orig" >/dev/null 2>"$tmp/err"; then
                echo "not ok - $source: perf_to_big_endian.py: $(oneline "$tmp/err")"
                continue
            fi
        fi
        out=$tmp/${source%.data}.$order.c2.data
        what="$source ($order) in mis-sized COMPRESSED2"
        if ! python3 "$tools/compressed2_sizes.py" "$orig" "$out" >"$tmp/shapes" 2>"$tmp/err"; then
            echo "not ok - $what: compressed2_sizes.py: $(oneline "$tmp/err")"
            continue
        fi
        shapes=$(awk '{print $2}' "$tmp/shapes" | sort | uniq -c | awk '{printf "%s%s=%s", s, $2, $1; s=","}')
        what="$what ($shapes)"
        for mode in thread none; do
            sql $mode "$out" "$records_moved" >"$tmp/a"
            sql none "$orig" "$records_moved" >"$tmp/b"
            same "$what: perf_records ($mode) equal the original's" "$tmp/a" "$tmp/b"
            sql $mode "$out" "$samples_moved" >"$tmp/a"
            sql none "$orig" "$samples_moved" >"$tmp/b"
            same "$what: perf_samples ($mode) equal the original's" "$tmp/a" "$tmp/b"
        done
        if [ $have_perf = 1 ]; then
            sql thread "$out" "SELECT time, period FROM perf_samples(@)" >"$tmp/a"
            same "$what: time and period equal perf script's on the original" "$tmp/a" "$perf_rows"
        else
            echo "ok - $what: time and period equal perf script's on the original # SKIP perf cannot read $src"
        fi
        # the rows perf_diagnostics must give: the first shaped record, and
        # how many are sized by the bytes or padded past perf's padding
        want=$(awk '$2 == "size0" || $2 == "padded" { n++; if (!first) first = $1 }
                    $2 == "multi" { if (!inmulti) { n++; if (!first) first = $1 } inmulti = 1; next }
                    { inmulti = 0 }
                    END { printf "compressed2_size_mismatch\twarning\t%d\t%d", n, first }' "$tmp/shapes")
        got=$(sql none "$out" "SELECT kind, severity, count, file_offset FROM perf_diagnostics(@) WHERE kind LIKE 'compressed%'")
        check "$what: perf_diagnostics names the first mis-sized record and counts them" "$got" "$want"
        first=$(awk 'NR == 1 {print $1}' "$tmp/shapes")
        got=$(sql none "$out" "SELECT message LIKE '%at offset ' || printf('0x%x', $first) || ',%' FROM perf_diagnostics(@) WHERE kind = 'compressed2_size_mismatch'")
        check "$what: its message gives the offset in hex" "$got" "1"
    done
done
