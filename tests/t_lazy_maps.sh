#!/usr/bin/env bash
# The symbol columns read the map records only a little ahead of the scan
# (src/symbolizer.h): the first row of a long recording reads a little of
# it, and the rows equal those of a whole-file reading.  The long
# recording is a fixture's data section repeated (tests/tools/make_variants),
# so every copy must resolve as the fixture itself does, whose symbol
# columns other tests compare with perf.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copies=300
fixture=tests/fixtures/example.data
big=$tmp/long.data
"$PV_BUILD/tools/make_variants" inflate "$fixture" "$big" "$copies" || { echo "not ok - make_variants"; exit 0; }
size=$(stat -c %s "$big")

rchar_of() {  # SQL -> the bytes sqlrun read running it
    PV_SQLRUN_RCHAR=1 "$PV_SQLRUN" "$1" 2>&1 >/dev/null | sed -n 's/^rchar //p'
}

for q in "SELECT comm, dso, sym FROM perf_samples('$big') LIMIT 1" \
         "SELECT dso, sym, repeated FROM perf_callchains('$big') LIMIT 1" \
         "SELECT comm, dso, sym FROM perf_samples('$big') WHERE record > 2000 LIMIT 1"; do
    read_bytes=$(rchar_of "$q")
    q=${q//$big/long.data}
    if [ -n "$read_bytes" ] && [ "$read_bytes" -lt $((size / 20)) ]; then
        echo "ok - ${q%% FROM*} of ${q#*FROM }: read $read_bytes of $size bytes"
    else
        echo "not ok - ${q%% FROM*} of ${q#*FROM }: read '$read_bytes' bytes, over 5% of $size"
    fi
done
# and a whole scan does read it (the measure works)
read_bytes=$(rchar_of "SELECT count(sym) FROM perf_samples('$big')")
check "a whole scan reads the whole file" "$([ "${read_bytes:-0}" -ge "$size" ] && echo yes)" yes

nrecords=$("$PV_SQLRUN" "SELECT count(*) FROM perf_records('$fixture')")
cols="comm, dso, dso_offset, sym, sym_offset, sym_status"
want=$("$PV_SQLRUN" "SELECT $cols FROM perf_samples('$fixture')")
got=$("$PV_SQLRUN" "SELECT $cols FROM perf_samples('$big') WHERE record < $nrecords")
check "the first copy's samples resolve as the fixture's" "$got" "$want"
got=$("$PV_SQLRUN" "SELECT $cols FROM perf_samples('$big')
                    WHERE record >= $((nrecords * 150)) AND record < $((nrecords * 151))")
check "so do those of a copy in the middle" "$got" "$want"
want=$("$PV_SQLRUN" "SELECT dso, sym, count(*) * $copies FROM perf_samples('$fixture')
                     GROUP BY 1, 2 ORDER BY 1, 2")
got=$("$PV_SQLRUN" "SELECT dso, sym, count(*) FROM perf_samples('$big') GROUP BY 1, 2 ORDER BY 1, 2")
check "$copies copies: $copies times each function's samples" "$got" "$want"
want=$("$PV_SQLRUN" "SELECT depth, dso, sym, repeated FROM perf_callchains('$fixture')")
got=$("$PV_SQLRUN" "SELECT depth, dso, sym, repeated FROM perf_callchains('$big')
                    WHERE sample >= $((nrecords * 299))")
check "the last copy's callchain frames resolve as the fixture's" "$got" "$want"
