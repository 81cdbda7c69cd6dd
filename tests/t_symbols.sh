#!/usr/bin/env bash
# Symbols, callchains and the profile queries against perf, computed live:
# symbol resolution depends on this machine's binaries, so perf runs now.
#  - a workload built here (tests/symbols: a shared library, a thread, a
#    forked child, an exec'd child; frame pointers) recorded with perf record -g;
#  - the committed fixtures: the same checks; where their binaries are
#    missing (CI), perf prints [unknown] and perfvtab must give NULL.
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
fixtures=$root/tests/fixtures
check=$root/tests/symbols_vs_perf.py

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -o "$tmp/libpvwork.so" "$root/tests/symbols/libwork.c" &&
cc -O1 -g -fno-omit-frame-pointer -o "$tmp/pvwork" "$root/tests/symbols/work.c" \
    -L"$tmp" -lpvwork -Wl,-rpath,"$tmp" -lpthread
if [ $? -ne 0 ]; then
    echo "not ok - symbols: the workload does not build"
    exit 1
fi
if ! perf record -q -g -F 2999 -o "$tmp/live.data" -- "$tmp/pvwork" >"$tmp/record.log" 2>&1; then
    echo "not ok - symbols: perf record -g failed: $(head -c 300 "$tmp/record.log")"
    exit 1
fi

status=0
python3 "$check" "$sqlrun" "$root" live "$tmp/live.data" --frames --profiles || status=1
for f in fp example; do
    python3 "$check" "$sqlrun" "$root" "$f.data" "$fixtures/$f.data" --frames --profiles || status=1
done
# no callchains (or DWARF ones perf unwinds): samples and comms only
for f in multi datasrc buildid_mmap tracepoint dwarf; do
    python3 "$check" "$sqlrun" "$root" "$f.data" "$fixtures/$f.data" || status=1
done
exit $status
