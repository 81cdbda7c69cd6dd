#!/usr/bin/env bash
# Loading the extension into a host, as the host sees it:
#  - tests/tools/load_sweep.c: the load with SQLite's Nth allocation failing,
#    for every N, by sqlite3_load_extension and by SELECT load_extension():
#    an error or a working load, never a crash when the connection closes
#    (a failed load once left module destructors in the unloaded library);
#  - tests/tools/load_cycles.c: perf_symbol_path belongs to the connection
#    that set it, and load/unload cycles leave no allocation behind (the
#    sanitizer flavour's leak check).
# Each flavour loads its own build's perfvtab.so ($PV_BUILD).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
so=$PV_BUILD/perfvtab.so
data=tests/fixtures/example.data
if [ ! -f "$so" ]; then
    not_ok "load" "$so is not built"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count=$("$PV_SQLRUN" "SELECT count(*) FROM perf_samples('$data')")
for how in "" --statement; do
    timeout 300 "$PV_BUILD/tools/load_sweep" "$so" "$data" "$count" $how 2>"$tmp/err" ||
        echo "# load_sweep $how: $(head -c 600 "$tmp/err" | tr '\n' ' ')"
done
timeout 300 "$PV_BUILD/tools/load_cycles" "$so" "$data" tests/fixtures/symbols 30
