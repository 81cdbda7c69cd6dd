#!/usr/bin/env bash
# plain-only
# `make install DESTDIR=...` puts the product under usr/: the extension in
# usr/lib (the sqlite3 shell loads it from there by path, and by bare name
# when its directory is on LD_LIBRARY_PATH, as /usr/lib is for dlopen after
# a real install), perfsql in usr/bin, the ready queries in
# usr/share/perfvtab/sql, the docs in usr/share/doc/perfvtab, and the man
# pages perfsql(1) and perfvtab(7) (made from docs/perfsql.md and
# docs/schema.md).  From that tree alone, with the clone out of PATH and of
# the working directory, and hidden under an empty tmpfs where a private
# mount namespace can be had, perfsql's tour runs: --help, --list, every
# ready query, .load perfvtab, the queries through .read, the man pages.
# `make uninstall` removes exactly what install put.  The modules are
# SQLITE_VTAB_DIRECTONLY: a view or a trigger in a database file that reads
# through them fails with "unsafe use", while the same query at top level
# works.
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
root=$tmp/root
# what install must put, and its mode
{
    echo "usr/lib/perfvtab.so 644"
    echo "usr/bin/perfsql 755"
    for q in "$PV_ROOT"/sql/*.sql; do echo "usr/share/perfvtab/sql/$(basename "$q") 644"; done
    for d in README.md schema.md perfsql.md architecture.md fleet.md; do
        echo "usr/share/doc/perfvtab/$d 644"
    done
    echo "usr/share/man/man1/perfsql.1 644"
    echo "usr/share/man/man7/perfvtab.7 644"
} | sort >"$tmp/want_files"
(cd "$root" && find . -type f -printf '%P %m\n' | sort) >"$tmp/got_files"
if cmp -s "$tmp/want_files" "$tmp/got_files"; then
    ok "install put the extension, perfsql, the $(ls "$PV_ROOT"/sql/*.sql | wc -l) ready queries, the docs and two man pages, with their modes"
else
    not_ok "installed files" "$(diff "$tmp/want_files" "$tmp/got_files" | grep '^[<>]' | head -n 8 | tr '\n' ';')"
fi
so=$root/usr/lib/perfvtab.so
if grep -rqF "$PV_ROOT" "$root/usr/bin" "$root/usr/share"; then
    not_ok "the installed perfsql, queries and docs" "name the clone's path: $(grep -rlF "$PV_ROOT" "$root/usr/bin" "$root/usr/share" | head -n 3)"
else
    ok "no installed script, query or doc names the clone's path"
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
    want=$(wc -l <"$PV_ROOT/tests/expected/perf_oracle/example/samples.tsv" 2>/dev/null || echo '?')
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

# ---- perfsql's tour from the installed tree alone ----
# The queries' output from the clone, to compare with the installed tree's.
mkdir -p "$tmp/data" "$tmp/clone_out" "$tmp/elsewhere"
cp "$example" "$tmp/data/example.data"
queries=$(cd "$PV_ROOT/sql" && ls *.sql | sed 's/\.sql$//')
# diff needs @base (and diff_flamegraph takes it): the file itself
base_of() { case $1 in diff | diff_flamegraph) echo "-p base=$2" ;; esac; }
for q in $queries; do
    # shellcheck disable=SC2046
    (cd "$tmp/elsewhere" && PERFVTAB=$PV_ROOT/build/perfvtab "$PV_ROOT/scripts/perfsql" -m tsv \
        $(base_of "$q" "$tmp/data/example.data") "$tmp/data/example.data" "$q" \
        >"$tmp/clone_out/$q" 2>&1 </dev/null)
done
man_out=$tmp/man_out
cat >"$tmp/tour.sh" <<'TOUR'
# Runs with PATH = the installed bin and the system's, from a directory
# outside the clone.  Args: installed root, data dir, the clone's outputs,
# the clone's path, the queries.
root=$1 data=$2 clone_out=$3 clone=$4
shift 4
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1: $2"; }
if [ -d "$clone" ] && [ -z "$(ls -A "$clone")" ]; then
    ok "the clone's directory is empty here (an empty tmpfs over it)"
else
    echo "# the clone is visible here (no private mount namespace): PATH and the working directory leave it out"
fi
case ":$PATH:" in *":$clone"*) not_ok "PATH" "holds the clone: $PATH" ;; esac
command -v perfsql | grep -qx "$root/usr/bin/perfsql" && ok "perfsql on PATH is the installed one" ||
    not_ok "perfsql on PATH" "$(command -v perfsql)"
perfsql --help >out 2>err && grep -q '^Usage: perfsql' out && ok "installed perfsql --help" ||
    not_ok "installed perfsql --help" "$(head -c 200 err)"
perfsql --list >out 2>err
if grep -q "the files are in $root/usr/share/perfvtab/sql" out; then
    ok "installed perfsql --list reads the installed queries"
else
    not_ok "installed perfsql --list" "$(head -n 1 out) $(head -c 200 err)"
fi
for q in "$@"; do
    base=
    case $q in diff | diff_flamegraph) base="-p base=$data/example.data" ;; esac
    # shellcheck disable=SC2086
    if perfsql -m tsv $base "$data/example.data" "$q" >out 2>&1 </dev/null && cmp -s out "$clone_out/$q"; then
        ok "installed perfsql runs $q as the clone does ($(wc -l <out) lines)"
    else
        not_ok "installed perfsql $q" "differs from the clone's: $(diff out "$clone_out/$q" | head -n 4 | tr '\n' ' ')"
    fi
done
if sqlite3 -bail :memory: '.load perfvtab' ".param set @file '$data/example.data'" \
        ".read $root/usr/share/perfvtab/sql/record_stats.sql" >out 2>err &&
   grep -q '^SAMPLE|703|' out; then
    ok ".load perfvtab (LD_LIBRARY_PATH) and .read of an installed query in the plain sqlite3 shell"
else
    not_ok ".load perfvtab and .read" "$(head -c 200 err)"
fi
for page in man1/perfsql.1 man7/perfvtab.7; do
    name=${page#*/}
    # as lintian checks pages: groff's warnings on stderr
    LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -E UTF-8 -l -Tutf8 -Z "$root/usr/share/man/$page" \
        >/dev/null 2>err </dev/null
    LC_ALL=C.UTF-8 MANWIDTH=100 man -l "$root/usr/share/man/$page" 2>>err </dev/null |
        col -bx >"$MAN_OUT.${name}"
    if [ -s "$MAN_OUT.${name}" ] && [ ! -s err ]; then
        ok "man -l opens $page without a warning"
    else
        not_ok "man -l $page" "$(head -c 300 err)"
    fi
done
TOUR
hide() { "$@"; }
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
   unshare -m sh -c 'mount -t tmpfs none "$1"' hide "$PV_ROOT" 2>/dev/null; then
    hide() { unshare -m sh -c 'mount -t tmpfs -o size=1m none "$1" && shift && exec "$@"' hide "$PV_ROOT" "$@"; }
fi
(cd "$tmp/elsewhere" && hide env -i PATH="$root/usr/bin:/usr/bin:/bin" HOME="$tmp/elsewhere" \
    LD_LIBRARY_PATH="$root/usr/lib" MAN_OUT="$man_out" bash "$tmp/tour.sh" \
    "$root" "$tmp/data" "$tmp/clone_out" "$PV_ROOT" $queries)

# The man pages say what their sources say: perfsql(1) every option of
# --help and every ready query, perfvtab(7) every table and column of
# docs/schema.md.
if [ -s "$man_out.perfsql.1" ] && [ -s "$man_out.perfvtab.7" ]; then
    missing=
    for o in $("$PV_ROOT/scripts/perfsql" --help | grep -o -- '--[a-z][a-z-]*' | sort -u) $queries; do
        grep -q -- "$o" "$man_out.perfsql.1" || missing+=" $o"
    done
    check "perfsql(1) names every option of perfsql --help and every ready query" "${missing:-none missing}" "none missing"
    # a table's heading "## perf_x — ..." and the first cell of each row of
    # its tables (a column name, or a kind)
    awk '/^## perf_/ { print $2 } /^\| [a-z_`]/ && !/^\| (column|kind|function|table|term) \|/ {
             split($0, c, "|"); gsub(/^ +| +$|`/, "", c[2]); print c[2] }' "$PV_ROOT/docs/schema.md" |
        sort -u >"$tmp/schema_terms"
    missing=
    while read -r term; do
        grep -qF -- "$term" "$man_out.perfvtab.7" || missing+=" [$term]"
    done <"$tmp/schema_terms"
    check "perfvtab(7) has every table and every column and kind of docs/schema.md ($(wc -l <"$tmp/schema_terms") terms)" \
        "${missing:-none missing}" "none missing"
else
    not_ok "man pages" "not rendered"
fi

# ---- uninstall removes exactly what install put ----
mkdir -p "$root/usr/bin" "$root/usr/share/doc/other"
echo keep >"$root/usr/bin/other-tool"
echo keep >"$root/usr/share/doc/other/README"
if make -s -C "$PV_ROOT" uninstall DESTDIR="$root" >"$tmp/out" 2>&1; then
    ok "make uninstall DESTDIR=... succeeds"
else
    not_ok "make uninstall" "$(oneline "$tmp/out")"
fi
check "make uninstall leaves only the files it did not install" \
    "$(cd "$root" && find . -type f | sort | tr '\n' ' ')" "./usr/bin/other-tool ./usr/share/doc/other/README "
check "make uninstall removes perfvtab's own directories" \
    "$(cd "$root" && find . -type d -name '*perfvtab*' | wc -l)" 0
