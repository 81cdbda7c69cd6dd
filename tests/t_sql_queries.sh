#!/usr/bin/env bash
# plain-only
# Runs every sql/*.sql (@base, diff.sql's, is the file too) with the real sqlite3 shell (which loads the plain
# build/perfvtab.so, hence plain-only) against every tests/fixtures/*.data:
# each must run without error and print at least one row.  For overview.sql
# the record counts must equal `perf report --stats`
# (tests/expected/perf_oracle/<fixture>/stats.tsv) when that file exists, and its header
# section must show the hostname and arch features.  Also checks
# that every query file documents the @file convention at its top, and that
# scripts/perfsql runs a query by name.
#
# Env: PV_ROOT; PV_EXT overrides the extension (default $PV_ROOT/build/perfvtab).
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}"
ext=${PV_EXT:-$PV_ROOT/build/perfvtab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A dot-command argument in double quotes (the shell undoes \\ and \").
dq() {
    local s=${1//\\/\\\\}
    printf '"%s"' "${s//\"/\\\"}"
}
# ... holding a SQL string literal.
dq_sq() {
    dq "$(sql_quote "$1")"
}

# From $tmp: a query that writes a file (flamegraph.sql's fg.svg) writes it there.
runq() {  # out-file, perf.data, sql-file
    (cd "$tmp" && sqlite3 -bail -batch -noheader -cmd '.mode tabs' -cmd ".load $(dq "$ext")" \
        -cmd ".param set @file $(dq_sq "$2")" -cmd ".param set @base $(dq_sq "$2")" \
        :memory: ".read $(dq "$3")" \
        >"$1" 2>"$tmp/err" </dev/null)
}

# A table DESIGN.md reserves for later work that this build does not have
# yet (perf_callchains before the symbols work): queries using it wait.
modules=$(sqlite3 -batch -noheader -cmd ".load $(dq "$ext")" :memory: \
              "SELECT name FROM pragma_module_list WHERE name LIKE 'perf\_%' ESCAPE '\'" </dev/null)
missing_module() {  # sql-file: prints the first reserved module it uses that is missing
    local m
    for m in perf_callchains; do
        if grep -q "\b$m(" "$1" && ! grep -qx "$m" <<<"$modules"; then
            echo "$m"
            return
        fi
    done
}

queries=("$PV_ROOT"/sql/*.sql)
fixtures=("$PV_ROOT"/tests/fixtures/*.data)
if [ ! -e "${queries[0]}" ]; then
    echo "not ok - sql/: no query files"
    exit 0
fi
if [ ! -e "${fixtures[0]}" ]; then
    echo "not ok - tests/fixtures: no .data files"
    exit 0
fi

# The header convention (docs/perfsql.md, "Query files"), which perfsql
# --list and its parameter checks read: line 1 "-- NAME.sql: PURPOSE", then
# "-- @param NAME TYPE required|optional: TEXT" for each parameter but @file;
# and the @file usage in the header comment.
for q in "${queries[@]}"; do
    qn=$(basename "$q")
    awk '!/^--/ { exit } { print }' "$q" >"$tmp/header"
    if grep -q '\.param set @file' "$tmp/header"; then
        echo "ok - $qn documents the @file convention in its header"
    else
        echo "not ok - $qn: its header comment does not show '.param set @file'"
    fi
    if head -n 1 "$q" | grep -q "^-- ${qn//./\\.}: [^ ].*[^ ]\$"; then
        echo "ok - $qn: line 1 is '-- $qn: PURPOSE'"
    else
        echo "not ok - $qn: line 1 is not '-- $qn: PURPOSE': $(head -n 1 "$q")"
    fi
    bad=$(grep '^-- @param' "$tmp/header" |
          grep -Ev '^-- @param [a-z_][a-z0-9_]* (integer|text|path|[a-z_]+(\|[a-z_]+)+) (required|optional): [^ ]')
    declared=$(grep '^-- @param' "$tmp/header" | awk '{ print $3 }' | sort)
    used=$(grep -v '^ *--' "$q" | grep -o '@[a-z_][a-z0-9_]*' | sed 's/^@//' | grep -vx file | sort -u)
    if [ -z "$bad" ] && [ "$declared" = "$used" ]; then
        echo "ok - $qn: its @param lines are well formed and declare the parameters it uses (${used:-none})" | tr '\n' ' '
        echo
    else
        echo "not ok - $qn: @param lines: malformed: '$bad'; declared: $(echo $declared); used: $(echo $used)"
    fi
done

for q in "${queries[@]}"; do
    m=$(missing_module "$q")
    [ -n "$m" ] && echo "# $(basename "$q") not run: it reads $m, which this build does not have yet"
done

for f in "${fixtures[@]}"; do
    fn=$(basename "$f")
    for q in "${queries[@]}"; do
        qn=$(basename "$q")
        [ -n "$(missing_module "$q")" ] && continue
        if ! runq "$tmp/out" "$f" "$q"; then
            echo "not ok - $qn on $fn: sqlite3 failed: $(oneline "$tmp/err")"
            continue
        fi
        if [ -s "$tmp/err" ]; then
            echo "not ok - $qn on $fn: stderr: $(oneline "$tmp/err")"
            continue
        fi
        # rows, or a note saying why there are none (t_query_notes.sh)
        rows=$(grep -cv '^== \|^$' "$tmp/out")
        if [ "$rows" -gt 0 ]; then
            echo "ok - $qn on $fn: $rows rows"
        else
            echo "not ok - $qn on $fn: no rows, and no note"
            continue
        fi
        if [ "$qn" = overview.sql ]; then
            # every fixture was recorded by perf, which writes these features
            got=$(awk -F'\t' '/^== /{ on = ($0 == "== header"); next }
                    on && ($1 == "hostname" || $1 == "arch") { print $1 }' "$tmp/out" | sort | tr '\n' ' ')
            if [ "$got" = "arch hostname " ]; then
                echo "ok - $qn on $fn: header section shows hostname and arch"
            else
                echo "not ok - $qn on $fn: header section lacks hostname or arch (has: $got)"
            fi
        fi
        stats=$PV_ROOT/tests/expected/perf_oracle/${fn%.data}/stats.tsv
        if [ "$qn" = overview.sql ] && [ -f "$stats" ]; then
            # the rows of the "== records" section: type, records, bytes
            awk -F'\t' '/^== /{ on = ($0 == "== records"); next } on { print $1 "\t" $2 }' \
                "$tmp/out" | sort >"$tmp/act"
            sort "$stats" >"$tmp/exp"
            if cmp -s "$tmp/exp" "$tmp/act"; then
                echo "ok - $qn on $fn: record counts equal perf report --stats"
            else
                echo "not ok - $qn on $fn: record counts differ from perf report --stats:" \
                    "$(diff "$tmp/exp" "$tmp/act" | grep '^[<>]' | head -n 6 | tr '\n\t' '; ')"
            fi
        fi
    done
done

# scripts/perfsql: a query by name, with a parameter
example=$PV_ROOT/tests/fixtures/example.data
[ -f "$example" ] || example=${fixtures[0]}
if PERFVTAB=$ext "$PV_ROOT/scripts/perfsql" -m tabs "$example" samples_by_process \
        >"$tmp/out" 2>"$tmp/err" </dev/null && [ "$(wc -l <"$tmp/out")" -ge 2 ]; then
    echo "ok - scripts/perfsql runs sql/samples_by_process.sql by name"
else
    echo "not ok - scripts/perfsql FILE samples_by_process: $(oneline "$tmp/err")"
fi
pid=$(awk -F'\t' 'NR == 2 { print $1 }' "$tmp/out")
if [ -n "$pid" ] && PERFVTAB=$ext "$PV_ROOT/scripts/perfsql" -m tabs -p "pid=$pid" "$example" \
        process_mappings >"$tmp/out" 2>"$tmp/err" </dev/null \
        && [ "$(wc -l <"$tmp/out")" -ge 2 ] \
        && awk -F'\t' -v pid="$pid" 'NR > 1 && $1 != pid { bad = 1 } END { exit bad }' "$tmp/out"; then
    echo "ok - scripts/perfsql -p pid=$pid binds @pid (process_mappings lists only that pid)"
else
    echo "not ok - scripts/perfsql -p pid=$pid process_mappings: $(oneline "$tmp/err")$(oneline "$tmp/out")"
fi
if PERFVTAB=$ext "$PV_ROOT/scripts/perfsql" "$example" no_such_query >/dev/null 2>"$tmp/err"; then
    echo "not ok - scripts/perfsql with an unknown query name: exit status 0"
else
    echo "ok - scripts/perfsql with an unknown query name fails: $(oneline "$tmp/err")"
fi
