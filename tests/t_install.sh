#!/usr/bin/env bash
# plain-only
# `make install DESTDIR=...` puts perfvtab.so in usr/lib; the sqlite3 shell
# loads it from there by path, and by bare name when its directory is on
# LD_LIBRARY_PATH (as /usr/lib is for dlopen after a real install).  The
# modules are SQLITE_VTAB_DIRECTONLY: a view or a trigger in a database file
# that reads through them fails with "unsafe use", while the same query at
# top level works.
#
# Env: PV_ROOT.
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modules="perf_build_ids perf_comms perf_events perf_features perf_mmaps perf_records perf_samples"
list_sql="SELECT name FROM pragma_module_list WHERE name LIKE 'perf_%' ORDER BY 1"
example=$PV_ROOT/tests/fixtures/example.data

has_modules() {  # file with one module name a line
    local m
    for m in $modules; do
        grep -qx "$m" "$1" || return 1
    done
}

if make -s -C "$PV_ROOT" install DESTDIR="$tmp/root" >"$tmp/out" 2>&1; then
    echo "ok - make install DESTDIR=... succeeds"
else
    echo "not ok - make install DESTDIR=...: $(oneline "$tmp/out")"
fi
so=$tmp/root/usr/lib/perfvtab.so
if [ -f "$so" ] && [ "$(stat -c %a "$so")" = 644 ]; then
    echo "ok - installed usr/lib/perfvtab.so, mode 644"
else
    echo "not ok - usr/lib/perfvtab.so: missing or not mode 644 ($(ls -l "$so" 2>&1))"
fi

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
if sqlite3 :memory: ".load $tmp/root/usr/lib/perfvtab" "$list_sql" >"$tmp/out" 2>"$tmp/err" \
        && has_modules "$tmp/out"; then
    echo "ok - .load by path registers the seven perf_* modules"
else
    echo "not ok - .load by path: modules: $(oneline "$tmp/out") error: $(oneline "$tmp/err")"
fi
if LD_LIBRARY_PATH=$tmp/root/usr/lib sqlite3 :memory: '.load perfvtab' "$list_sql" \
        >"$tmp/out" 2>"$tmp/err" && has_modules "$tmp/out"; then
    echo "ok - .load perfvtab by bare name from another directory (LD_LIBRARY_PATH)"
else
    echo "not ok - .load perfvtab by bare name: modules: $(oneline "$tmp/out") error: $(oneline "$tmp/err")"
fi

if [ -f "$example" ]; then
    want=$(wc -l <"$PV_ROOT/tests/expected/example/samples.tsv" 2>/dev/null || echo '?')
    got=$(LD_LIBRARY_PATH=$tmp/root/usr/lib sqlite3 :memory: '.load perfvtab' \
          "SELECT count(*) FROM perf_samples('$example')" 2>"$tmp/err")
    if [ "$got" = "$want" ]; then
        echo "ok - the installed extension reads example.data ($got samples, as perf script)"
    else
        echo "not ok - installed extension on example.data: $got samples, want $want $(oneline "$tmp/err")"
    fi
else
    echo "not ok - tests/fixtures/example.data is missing"
fi

# DIRECTONLY: a schema (which whoever wrote the database file controls) must
# not read files through the extension.
ext=$tmp/root/usr/lib/perfvtab
db=$tmp/schema.db
query="SELECT count(*) FROM perf_samples('$example')"
if ! sqlite3 "$db" ".load $ext" "CREATE VIEW v AS $query;
        CREATE TABLE t(x);
        CREATE TRIGGER tr AFTER INSERT ON t BEGIN $query; END;" >"$tmp/out" 2>&1; then
    echo "not ok - creating the view and trigger: $(oneline "$tmp/out")"
fi
if sqlite3 "$db" ".load $ext" "$query" >"$tmp/out" 2>&1 && [ "$(cat "$tmp/out")" -gt 0 ]; then
    echo "ok - the query is allowed at top level in that database"
else
    echo "not ok - top-level query in that database: $(oneline "$tmp/out")"
fi
for what in "view:SELECT * FROM v" "trigger:INSERT INTO t VALUES (1)"; do
    if sqlite3 "$db" ".load $ext" "${what#*:}" >"$tmp/out" 2>&1; then
        echo "not ok - a ${what%%:*} over perf_samples in a database file ran: $(oneline "$tmp/out")"
    elif grep -q 'unsafe use of virtual table "perf_samples"' "$tmp/out"; then
        echo "ok - a ${what%%:*} over perf_samples in a database file fails: unsafe use"
    else
        echo "not ok - a ${what%%:*} over perf_samples: failed without 'unsafe use': $(oneline "$tmp/out")"
    fi
done
