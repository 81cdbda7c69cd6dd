#!/usr/bin/env bash
# `perf stat record` files: perf_stats (one row per STAT record) against
# `perf stat report` (tests/expected/stats/, made by tests/gen/stats.sh):
# per round and event the summed counts, scaled as perf shows them, the
# round times, and the elapsed time.  perf_records.fields of the STAT
# records say the same as perf_stats.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
for exp in tests/expected/stats/*.txt; do
    name=$(basename "$exp" .txt)
    f=tests/fixtures/$name.data
    verdict=$(python3 tests/oracle/stat_report_compare.py "$PV_SQLRUN" "$f" "$exp")
    case $verdict in
    ok\ *) echo "ok - $name: the ${verdict#ok } counts of perf_stats equal perf stat report's" ;;
    *) echo "not ok - $name: perf_stats differs from perf stat report: ${verdict#bad }" ;;
    esac
    got=$("$PV_SQLRUN" "SELECT count(*), count(*) FILTER (WHERE json_extract(r.fields, '$.id') = s.id AND json_extract(r.fields, '$.cpu') = s.cpu AND json_extract(r.fields, '$.thread') = s.thread AND json_extract(r.fields, '$.val') = s.val AND json_extract(r.fields, '$.ena') = s.ena AND json_extract(r.fields, '$.run') = s.run) FROM perf_stats($(sql_quote "$f")) s JOIN perf_records($(sql_quote "$f")) r USING (record)" 2>&1)
    IFS=$'\t' read -r n same <<<"$got"
    if [ -n "$n" ] && [ "$n" -gt 0 ] 2>/dev/null && [ "$n" = "$same" ]; then
        echo "ok - $name: perf_records.fields of the $n STAT records agree with perf_stats"
    else
        echo "not ok - $name: STAT records in perf_records and perf_stats disagree: $got"
    fi
    got=$("$PV_SQLRUN" "SELECT count(*) FROM perf_features($(sql_quote "$f")) WHERE name = 'stat'" 2>&1)
    [ "$got" = 1 ] && echo "ok - $name: has the HEADER_STAT feature" \
        || echo "not ok - $name: HEADER_STAT feature: $got"
done
# a STAT record cut short is an error naming the file and offset
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - tests/fixtures/stat.data "$tmp/short.data" <<'PY'
import struct, sys
src, dst = sys.argv[1:]
d = bytearray(open(src, 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', d, 40)
at = data_off
while at < data_off + data_size:
    rtype, misc, size = struct.unpack_from('<IHH', d, at)
    if rtype == 76:
        struct.pack_into('<H', d, at + 6, 24)     # size 48 -> 24: too short
        d[at + 24:at + 48] = struct.pack('<IHH', 68, 0, 24) + bytes(16)  # a FINISHED_ROUND fills the rest
        break
    at += size
open(dst, 'wb').write(d)
PY
if out=$("$PV_SQLRUN" "SELECT sum(val) FROM perf_stats($(sql_quote "$tmp/short.data"))" 2>&1); then
    echo "not ok - short STAT record: no error, got $out"
elif grep -q 'short.data' <<<"$out" && grep -q 'offset 0x' <<<"$out"; then
    echo "ok - short STAT record: ${out#Error: }"
else
    echo "not ok - short STAT record: the error does not name file and offset: $out"
fi
