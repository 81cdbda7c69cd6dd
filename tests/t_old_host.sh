#!/usr/bin/env bash
# A host whose SQLite is older than 3.38 lacks routines the planner calls
# (sqlite3_vtab_in, sqlite3_vtab_rhs_value, sqlite3_vtab_distinct): its api
# table ends before them, and a call would crash the host.  The load is
# refused with a message instead (tools/old_host.c calls the entry point
# with such a table, every routine but the two a refusal needs left NULL).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
got=$("$PV_BUILD/tools/old_host" "$PV_BUILD/perfvtab.so" 3037002 2>&1)
check "an SQLite 3.37 host: the load is refused (SQLITE_ERROR) and says why" \
    "$got" "1 perfvtab needs SQLite 3.38 or later; this host's is 3.37.2"
got=$("$PV_BUILD/tools/old_host" "$PV_BUILD/perfvtab.so" 3008000 2>&1)
check "an SQLite 3.8 host: refused too" "$got" "1 perfvtab needs SQLite 3.38 or later; this host's is 3.8.0"
