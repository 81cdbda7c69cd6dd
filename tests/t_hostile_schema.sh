#!/usr/bin/env bash
# plain-only: Debian's python3 loads the plain build/perfvtab.so.
# A database someone else wrote cannot make the process that opens it read
# a file or change a setting (tests/tools/hostile_schema.py): 101 databases,
# one hostile object each (views and triggers over every table and
# function; CHECK constraints, DEFAULTs, generated columns and indexes
# calling every scalar function; tables kept in the file naming a path),
# opened, read and written by a victim.  Every path they name is a canary
# file; strace shows whether any system call touched it.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
if ! command -v strace >/dev/null; then
    not_ok "hostile schemas" "strace is not installed (scripts/install-deps.sh installs it)"
    exit 0
fi
mkdir -p "$tmp/dbs"
cp tests/fixtures/example.data "$tmp/canary.data"
if ! "$py" tests/tools/hostile_schema.py make "$tmp/dbs" "$tmp/canary.data" "$PV_ROOT/tests/fixtures/symbols" \
        "$PV_ROOT/build/perfvtab" >"$tmp/made" 2>&1; then
    not_ok "hostile schemas: the attacker's databases" "$(oneline "$tmp/made")"
    exit 0
fi
timeout 300 strace -f -qq -e trace=%file -o "$tmp/trace" \
    "$py" tests/tools/hostile_schema.py victim "$tmp/dbs" "$PV_ROOT/tests/fixtures/example.data" \
    "$PV_ROOT/build/perfvtab" >"$tmp/victim" 2>&1
cat "$tmp/victim"
touched=$(grep -c 'canary\.data' "$tmp/trace")
check "no system call of the victim's touched a file the hostile databases named" "$touched" 0
# the same watch sees a read the victim asks for itself
timeout 60 strace -f -qq -e trace=%file -o "$tmp/trace2" "$py" -c "
import sqlite3; c = sqlite3.connect(':memory:'); c.enable_load_extension(True)
c.load_extension('$PV_ROOT/build/perfvtab')
print(c.execute(\"SELECT count(*) FROM perf_samples('$tmp/canary.data')\").fetchone()[0])" >/dev/null 2>&1
if grep -q 'canary\.data' "$tmp/trace2"; then
    ok "the watch sees the canary read when the victim's own query names it"
else
    not_ok "the watch sees the canary read when the victim's own query names it" "strace saw no such call"
fi

# The refusals, as a user meets them
ext=$PV_ROOT/build/perfvtab
data=$PV_ROOT/tests/fixtures/example.data
shell() { sqlite3 -bail "$@" 2>&1; }
check "CREATE VIRTUAL TABLE with a path in a database file is refused, saying where to make it" \
    "$(shell "$tmp/kept.db" ".load $ext" "CREATE VIRTUAL TABLE s USING perf_samples('$data')" | grep -c 'made in the temp schema')" 1
check "the same in the temp schema reads the file" \
    "$(shell "$tmp/kept.db" ".load $ext" "CREATE VIRTUAL TABLE temp.s USING perf_samples('$data')" \
        "SELECT count(*) FROM temp.s")" "$("$PV_SQLRUN" "SELECT count(*) FROM perf_samples('$data')")"
check "perf_symbol_path in a statement that writes is refused" \
    "$(shell :memory: ".load $ext" "CREATE TABLE t(x)" "INSERT INTO t SELECT perf_symbol_path(NULL, '/x')" |
       grep -c 'refused in a statement that writes')" 1
check "perf_pprof in a statement that writes is refused" \
    "$(shell :memory: ".load $ext" "CREATE TABLE t(x)" "INSERT INTO t SELECT perf_pprof('$data')" |
       grep -c 'refused in a statement that writes')" 1
check "perf_symbol_path() reads the connection's setting" \
    "$(shell :memory: ".load $ext" "SELECT perf_symbol_path(NULL, '/s') IS NOT NULL" "SELECT perf_symbol_path()")" \
    '1
{"sysroot":null,"symdir":"/s"}'
for call in "perf_samples('$data' || char(0) || 'junk')" "perf_pprof('$data' || char(0) || 'junk')" \
            "perf_symbol_path('/' || char(0) || 'x')"; do
    case $call in perf_samples*) sql="SELECT count(*) FROM $call" ;; *) sql="SELECT $call" ;; esac
    check "a path with a NUL byte is an error: ${call%%(*}" \
        "$(shell :memory: ".load $ext" "$sql" | grep -c 'a path with a NUL byte in it')" 1
done
