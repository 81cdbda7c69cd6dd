#!/usr/bin/env bash
# An MMAP2 build-id over 20 bytes (the kernel writes at most 20, and the
# record's field holds no more) is one error, the same from every consumer
# of the MMAP2 decoder: perf_mmaps, perf_build_ids, perf_records.fields and
# the symbolizer behind perf_samples' dso column.  perf 6.1 overflows its
# buffer on such a record; later perf cuts it to 20 bytes.  Neither keeps a
# build-id that can match a file, so the reader says where the damage is.
# Env: PV_ROOT, PV_SQLRUN.  Output: "ok - ..." / "not ok - ...".
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sql_quote() { printf "'%s'" "${1//\'/\'\'}"; }

# the third MMAP2 with a build-id gets a build_id_size of 30
at=$(python3 - "$root/tests/fixtures/buildid_mmap.data" "$tmp/long_id.data" <<'PY'
import struct, sys
src, dst = sys.argv[1:]
d = bytearray(open(src, 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', d, 40)
at, seen = data_off, 0
while at < data_off + data_size:
    rtype, misc, size = struct.unpack_from('<IHH', d, at)
    if rtype == 10 and misc & (1 << 14):
        seen += 1
        if seen == 3:
            d[at + 8 + 32] = 30
            print(hex(at))
            break
    at += size
open(dst, 'wb').write(d)
PY
)
q=$(sql_quote "$tmp/long_id.data")
want="long_id.data: MMAP2 record at offset $at (size"
for check in "perf_mmaps|SELECT count(*) FROM perf_mmaps($q)" \
             "perf_build_ids|SELECT count(*) FROM perf_build_ids($q)" \
             "perf_records.fields|SELECT count(fields) FROM perf_records($q)" \
             "perf_samples.dso (the symbolizer)|SELECT count(dso) FROM perf_samples($q)"; do
    name=${check%%|*}
    sql=${check#*|}
    if out=$("$sqlrun" "$sql" 2>&1); then
        echo "not ok - $name: a 30-byte MMAP2 build-id gave no error: $out"
    elif grep -qF "$want" <<<"$out" && grep -qF 'build-id size 30 (> 20)' <<<"$out"; then
        echo "ok - $name: a 30-byte MMAP2 build-id is the decoder's error (${out#Error: })"
    else
        echo "not ok - $name: not the decoder's error: $out"
    fi
done
# the rows before the damaged record are still there for a query that stops before it
got=$("$sqlrun" "SELECT count(*) FROM (SELECT * FROM perf_mmaps($q) LIMIT 2)" 2>&1)
[ "$got" = 2 ] && echo "ok - perf_mmaps: the maps before the damaged record read" \
    || echo "not ok - perf_mmaps: the maps before the damaged record: $got"
