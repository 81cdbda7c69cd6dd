#!/usr/bin/env bash
# sql/diff.sql against `perf diff` (tests/oracle/diff_vs_perf.py): baseline and
# delta per event and function to 0.01 points, the same functions, falling
# |delta|.  Pairs: committed fixtures (their binaries may be absent here; perf
# and perfvtab then both show one unresolved row per dso), a file against
# itself, and two live recordings whose profiles differ:
#   timeout 30 perf record -F 999 -o base.data -- sh -c 'workload 20; gzip -c -9 < 1MB > /dev/null
#                                    head -c 30000000 /dev/zero | md5sum'
#   timeout 30 perf record -F 999 -o new.data -- sh -c 'workload 5; gzip -c -9 < 3MB > /dev/null
#                                    head -c 30000000 /dev/zero | sha256sum'
# (workload built from tests/fixtures/workload.c), so functions grow (gzip's),
# shrink (the workload's), appear (sha256sum) and vanish (md5sum).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compare=tests/oracle/diff_vs_perf.py

fixtures=tests/fixtures
for pair in "fp.data datasrc.data" "datasrc.data fp.data" "fp.data example.data" \
            "multi.data multi.data" "fixed_period.data buildid_mmap.data"; do
    set -- $pair
    /usr/bin/python3 "$compare" "$PV_SQLRUN" "$PV_ROOT" "$1 -> $2" "$fixtures/$1" "$fixtures/$2"
done

cc -O1 -fno-omit-frame-pointer -g -o "$tmp/workload" tests/fixtures/workload.c ||
    { not_ok "build workload" "cc failed"; exit 0; }
head -c 3000000 /usr/bin/perf >"$tmp/input" 2>/dev/null || head -c 3000000 /dev/urandom >"$tmp/input"
head -c 1000000 "$tmp/input" >"$tmp/small_input"
record() {  # name, workload iterations, gzip input, hash command
    timeout 30 perf record -q -F 999 -o "$tmp/$1.data" -- \
        sh -c "'$tmp/workload' $2 >/dev/null; gzip -c -9 <'$3' >/dev/null
               head -c 30000000 /dev/zero | $4 >/dev/null" >"$tmp/record.log" 2>&1 ||
        { not_ok "perf record $1" "$(oneline "$tmp/record.log")"; exit 0; }
}
record base 20 "$tmp/small_input" md5sum
record new 5 "$tmp/input" sha256sum
/usr/bin/python3 "$compare" "$PV_SQLRUN" "$PV_ROOT" "live base -> new" "$tmp/base.data" "$tmp/new.data"
/usr/bin/python3 "$compare" "$PV_SQLRUN" "$PV_ROOT" "live new -> base" "$tmp/new.data" "$tmp/base.data"

# The live pair has each kind of row: sha256sum new (no baseline), md5sum
# vanished (no new samples), gzip grown, the workload's spin shrunk.
diff_sql=$(sed -n '/^WITH/,$p' sql/diff.sql | sed 's/;$//')
diff_sql=${diff_sql//@base/$(sql_quote "$tmp/base.data")}
diff_sql=${diff_sql//@file/$(sql_quote "$tmp/new.data")}
kinds=$(sqlrun "SELECT group_concat(kind, ' ') FROM (
    SELECT CASE WHEN baseline IS NULL THEN 'new:' WHEN new_samples = 0 THEN 'vanished:'
                WHEN delta > 0 THEN 'grown:' ELSE 'shrunk:' END || coalesce(sym, dso) AS kind
    FROM ($diff_sql) WHERE dso IN ('sha256sum', 'md5sum', 'gzip') OR sym = 'spin' ORDER BY kind)")
check "live pair: gzip grew, spin shrank, md5sum vanished, sha256sum is new" \
    "$kinds" "grown:gzip new:sha256sum shrunk:spin vanished:md5sum"
