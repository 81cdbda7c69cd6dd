#!/usr/bin/env bash
# plain-only
# perf_diagnostics against what perf itself says about the same files:
#   - clean fixtures have no diagnostics;
#   - LOST / LOST_SAMPLES counts and totals equal perf script -D's records;
#   - out-of-order events (a fixture with sample times moved back, made here)
#     equal perf's "N out of order events recorded";
#   - an unknown record type and a sample with an unknown id are where perf
#     "failed to process type" says;
#   - pipe trailing garbage is the byte count in the corpus's EXPECTED_FACTS;
# The third-party files are the copies in tests/corpus (tests/corpus/README.md),
# so every check runs in a bare clone.
#   - damaged features, malformed samples and broken record streams (the
#     damaged copies of tests/bad_input) are rows carrying the same error
#     the other tables give, not SQL errors.
# (Plain build only: it runs perf many times; the sanitizer build reads
# these files in t_fuzz_replay.sh and t_sweeps.sh.)
#
# Env: PV_ROOT, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$PV_ROOT/build/sqlrun}
PYTHON=/usr/bin/python3
corpus=$PV_ROOT/tests/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# diag FILE COLUMNS WHERE
diag() { sqlrun "SELECT $2 FROM perf_diagnostics('$1') WHERE $3"; }

# --- clean files: nothing to report
for f in "$PV_ROOT"/tests/fixtures/*.data "$PV_ROOT"/tests/fixtures/big_endian/*.data \
         "$PV_ROOT"/tests/fixtures/perf7/*.data "$PV_ROOT"/tests/fixtures/perf7/big_endian/*.data \
         "$PV_ROOT"/tests/fixtures/threads_dir "$PV_ROOT"/tests/bad_input/base.data; do
    got=$(sqlrun "SELECT kind || ': ' || message FROM perf_diagnostics('$f')")
    if [ -z "$got" ]; then
        ok "diagnostics: $(basename "$f") has none"
    else
        not_ok "diagnostics: $(basename "$f") has none" "$got"
    fi
done

# --- lost events and samples, against perf script -D
for f in simpleperf/simpleperf/testdata/perf_b.data \
         simpleperf/simpleperf/testdata/perf_g_fp.data \
         perf_data_converter/src/quipper/testdata/perf.data.lost_samples-4.4 \
         perf_data_converter/src/quipper/testdata/perf.data.piped.lost_samples-4.4 \
         linux-perf-data/tests/fixtures/sleep.data; do
    path=$corpus/$f
    perf script -D -i "$path" >"$tmp/dump" 2>/dev/null
    for kind in lost lost_samples; do
        if [ "$kind" = lost ]; then
            want=$(grep -o 'PERF_RECORD_LOST: .*lost:[0-9]*' "$tmp/dump" |
                   sed 's/.*lost://' | awk '{n++; s+=$1} END {printf "%d|%d", n, s}')
        else
            want=$(grep -o 'PERF_RECORD_LOST_SAMPLES: .*lost samples :[0-9]*' "$tmp/dump" |
                   sed 's/.*lost samples ://' | awk '{n++; s+=$1} END {printf "%d|%d", n, s}')
        fi
        got=$(diag "$path" "count || '|' || value" "kind = '$kind'")
        [ -z "$got" ] && got="0|0"
        if [ "$got" = "$want" ]; then
            ok "diagnostics: $kind in $(basename "$f"): records|total $got as perf script -D"
        else
            not_ok "diagnostics: $kind in $(basename "$f")" "got $got, perf script -D has $want"
        fi
    done
done

# --- out of order: multi.data with some sample times moved back, perf decides
multi=$PV_ROOT/tests/fixtures/multi.data
# the time flushed at the second FINISHED_ROUND is the largest time seen by
# the first; every 10th sample after the second round is moved before it
# (out of order), every 10th + 5 just after it (backwards within its round,
# which perf sorts in)
round1=$(sqlrun "SELECT min(record) FROM perf_records('$multi') WHERE name = 'FINISHED_ROUND'")
round2=$(sqlrun "SELECT min(record) FROM perf_records('$multi') WHERE name = 'FINISHED_ROUND' AND record > $round1")
flushed=$(sqlrun "SELECT max(time) FROM perf_records('$multi') WHERE record < $round1")
sqlrun "SELECT file_offset, CASE WHEN record % 10 = 0 THEN $flushed - 1 ELSE $flushed + 1 END
     FROM perf_records('$multi') WHERE name = 'SAMPLE' AND record > $round2 AND record % 5 = 0" >"$tmp/patches"
$PYTHON - "$multi" "$tmp/patches" "$tmp/late.data" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
for line in open(sys.argv[2]):
    offset, time = map(int, line.split())
    struct.pack_into("<Q", data, offset + 8 + 16, time)   # IP|TID|TIME: time is the 3rd u64
open(sys.argv[3], "wb").write(data)
PY
want=$(perf script -i "$tmp/late.data" 2>&1 >/dev/null | sed -n 's/^\([0-9]*\) out of order events recorded.*/\1/p')
got=$(diag "$tmp/late.data" count "kind = 'out_of_order'")
if [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]; then
    ok "diagnostics: out_of_order counts $got events, as perf's \"$want out of order events recorded\""
else
    not_ok "diagnostics: out_of_order" "got '$got', perf says '$want'"
fi

# --- an unknown record type (simpleperf's own) and a sample of no event
check_failed_type() {  # label file sql-where
    local want got
    want=$(perf report --stats -i "$2" 2>&1 | sed -n 's/^0x\([0-9a-f]*\) \[0x[0-9a-f]*\]: failed to process type: \([0-9]*\).*/\1 \2/p' | head -n 1)
    got=$(diag "$2" "printf('%x', file_offset) || ' ' || $3" "kind = '$1'")
    if [ -n "$want" ] && [ "$got" = "$want" ]; then
        ok "diagnostics: $1 first at 0x${got% *}, where perf fails to process type ${want#* }"
    else
        not_ok "diagnostics: $1 in $(basename "$2")" "got '$got', perf: '$want'"
    fi
}
check_failed_type unknown_record_type "$corpus/simpleperf/simpleperf/testdata/perf_with_callchain_record.data" value
sample=$(sqlrun "SELECT file_offset FROM perf_records('$multi') WHERE name = 'SAMPLE' LIMIT 1 OFFSET 5")
$PYTHON - "$multi" "$sample" "$tmp/noevent.data" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", data, int(sys.argv[2]) + 8 + 24, 0xdeadbeef)  # IP|TID|TIME|ID: the id
open(sys.argv[3], "wb").write(data)
PY
check_failed_type unknown_sample_id "$tmp/noevent.data" 9
# a sample whose type is damaged into one no writer uses: perf stops there,
# perfvtab steps over it by its size, with a warning, and loses that one sample
$PYTHON - "$multi" "$sample" "$tmp/badtype.data" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", data, int(sys.argv[2]), 12880393)
open(sys.argv[3], "wb").write(data)
PY
check_failed_type unknown_record_type "$tmp/badtype.data" value
got=$(diag "$tmp/badtype.data" "severity || ' ' || count" "kind = 'unknown_record_type'")
if [ "$got" = "warning 1" ]; then
    ok "diagnostics: a record of type 12880393 is a warning"
else
    not_ok "diagnostics: a record of type 12880393 is a warning" "got '$got'"
fi
want=$(perf report --stats -i "$multi" 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n 1)
got=$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/badtype.data')")
if [ -n "$want" ] && [ "$got" = "$((want - 1))" ]; then
    ok "diagnostics: perf_samples reads every sample but the damaged one ($got of perf's $want in the original)"
else
    not_ok "diagnostics: samples after the damaged record" "got $got, perf counts $want in the original"
fi
f=$corpus/simpleperf/simpleperf/testdata/perf_with_callchain_record.data
got=$(diag "$f" "value || ':' || count" "kind = 'unknown_record_type'" | sort)
want=$(sqlrun "SELECT type || ':' || count(*) FROM perf_records('$f') WHERE name IS NULL GROUP BY type" | sort)
if [ -n "$want" ] && [ "$got" = "$want" ]; then
    ok "diagnostics: unknown_record_type counts per type equal perf_records' unnamed records"
else
    not_ok "diagnostics: unknown_record_type counts" "got '$got', perf_records '$want'"
fi
got=$(diag "$f" "file_offset" "kind = 'unknown_feature'" | sort)
want=$(sqlrun "SELECT offset FROM perf_features('$f') WHERE name IS NULL" | sort)
if [ -n "$want" ] && [ "$got" = "$want" ]; then
    ok "diagnostics: unknown_feature rows are perf_features' unnamed features"
else
    not_ok "diagnostics: unknown_feature" "got '$got', perf_features '$want'"
fi

# --- pipe trailing garbage, against the corpus's facts
f=linux-perf-data/tests/fixtures/sleep.compressed2.pipe.data
want=$(grep -o "${f##*/} [0-9/]* (+[0-9]* trailing bytes" "$corpus/linux-perf-data/EXPECTED_FACTS.txt" | sed 's/.*(+\([0-9]*\) trailing.*/\1/')
got=$(diag "$corpus/$f" value "kind = 'trailing_garbage'")
if [ -n "$want" ] && [ "$got" = "$want" ]; then
    ok "diagnostics: trailing_garbage of $got bytes in ${f##*/}, as EXPECTED_FACTS"
else
    not_ok "diagnostics: trailing_garbage in ${f##*/}" "got '$got', EXPECTED_FACTS '$want'"
fi

# --- damaged copies: the other tables' error becomes a row
mkdir -p "$tmp/bad"
$PYTHON "$PV_ROOT/tests/bad_input/make_bad.py" "$PV_ROOT/tests/bad_input/base.data" "$tmp/bad" >"$tmp/bad_list"
while IFS=$'\t' read -r name scope _; do
    f=$tmp/bad/$name
    case $scope in
        open)
            "$PV_SQLRUN" "SELECT * FROM perf_diagnostics('$f')" >/dev/null 2>"$tmp/err"
            rc=$?
            if [ "$rc" -eq 1 ] && grep -q "^Error: .*$name" "$tmp/err"; then
                ok "diagnostics: $name (cannot be opened) is an SQL error"
            else
                not_ok "diagnostics: $name" "status $rc, $(head -c 200 "$tmp/err")"
            fi
            continue ;;
        feature) table="perf_features"; kind=damaged_feature ;;
        walk) table="perf_records"; kind=unreadable_records ;;
        sample) table="perf_samples"; kind=malformed_record ;;
        *) continue ;;
    esac
    error=$("$PV_SQLRUN" "SELECT * FROM $table('$f')" 2>&1 >/dev/null | sed -n 's/^Error: //p' | head -n 1)
    got=$(diag "$f" message "kind = '$kind'")
    if [ -n "$error" ] && [ -n "$got" ] && [[ $got == *"$error"* ]]; then
        ok "diagnostics: $name is a $kind row with $table's error"
    else
        not_ok "diagnostics: $name" "want a $kind row holding '$error', got '$got'"
    fi
done <"$tmp/bad_list"
