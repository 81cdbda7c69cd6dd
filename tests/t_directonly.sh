#!/usr/bin/env bash
# plain-only
# Every module is SQLITE_VTAB_DIRECTONLY: for each perf_* module the loaded
# extension registers (pragma_module_list, so new tables are covered), a
# view and a trigger stored in a database file -- a schema whoever wrote the
# file controls -- must fail with "unsafe use", while the same query typed
# at top level runs.  (t_install.sh checks perf_samples on the installed
# extension; this covers the rest.)
#
# Env: PV_ROOT.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
ext=$PV_ROOT/build/perfvtab
example=$PV_ROOT/tests/fixtures/example.data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

modules=$(sqlite3 :memory: ".load $ext" \
    "SELECT name FROM pragma_module_list WHERE name LIKE 'perf\_%' ESCAPE '\' ORDER BY name")
[ -n "$modules" ] || echo "not ok - no perf_* module listed: $modules"
for m in $modules; do
    db=$tmp/$m.db
    query="SELECT count(*) FROM $m('$example')"
    if ! sqlite3 "$db" ".load $ext" "CREATE VIEW v AS $query; CREATE TABLE t(x);
            CREATE TRIGGER tr AFTER INSERT ON t BEGIN $query; END;" >"$tmp/out" 2>&1; then
        echo "not ok - $m: creating the view and trigger: $(oneline "$tmp/out")"
        continue
    fi
    if ! sqlite3 "$db" ".load $ext" "$query" >"$tmp/out" 2>&1; then
        echo "not ok - $m: the query at top level fails: $(oneline "$tmp/out")"
        continue
    fi
    bad=""
    for what in "SELECT * FROM v" "INSERT INTO t VALUES (1)"; do
        if sqlite3 "$db" ".load $ext" "$what" >"$tmp/out" 2>&1; then
            bad="'$what' ran: $(oneline "$tmp/out")"
        elif ! grep -q "unsafe use of virtual table \"$m\"" "$tmp/out"; then
            bad="'$what' failed without 'unsafe use': $(oneline "$tmp/out")"
        fi
    done
    if [ -z "$bad" ]; then
        echo "ok - $m: a view and a trigger in a database file cannot use it (unsafe use); top level can"
    else
        echo "not ok - $m: $bad"
    fi
done
