#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# Values handed to SQLite outlive the row they came from.  min()/max(),
# sorters, DISTINCT and subqueries keep a column's value after the cursor
# has moved on, grown an array or (over a glob) freed the previous file's
# symbolizer.  Replays the two crashes of issue 11 (a SIGSEGV on
# max(dso)/max(sym) over a glob, a heap-use-after-free on max(comm) over a
# long file), then sweeps every TEXT column of every perf_* module.
# Expected values: the same aggregate over `col || ''`, an expression SQLite
# computes into memory of its own, so it cannot point into the cursor.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/glob"
for n in example fp dwarf multi tracepoint datasrc buildid_mmap switch_cpu_wide; do
    cp "tests/fixtures/$n.data" "$tmp/glob/$n.data"
done
glob="$tmp/glob/*.data"
"$PV_BUILD/tools/make_variants" inflate tests/fixtures/fp.data "$tmp/long.data" 300 >/dev/null

# The two reported crashes, literally.
for table in perf_samples perf_callchains; do
    got=$(sqlrun "SELECT max(dso), max(sym), min(sym) FROM $table('$glob')")
    want=$(sqlrun "SELECT max(dso || ''), max(sym || ''), min(sym || '') FROM $table('$glob')")
    check "max(dso), max(sym), min(sym) over a glob of $table" "$got" "$want"
done
got=$(sqlrun "SELECT max(comm), min(comm) FROM perf_samples('$tmp/long.data')")
want=$(sqlrun "SELECT max(comm || ''), min(comm || '') FROM perf_samples('$tmp/long.data')")
check "max(comm), min(comm) over a file of 300 copies of fp.data" "$got" "$want"

# Every TEXT column of every module, over the glob and over the long file.
modules=$(sqlrun "SELECT name FROM pragma_module_list WHERE name LIKE 'perf\_%' ESCAPE '\\' ORDER BY name")
for module in $modules; do
    columns=$(sqlrun "SELECT name FROM pragma_table_xinfo('$module') WHERE type = 'TEXT' AND hidden = 0 ORDER BY cid")
    if [ -z "$columns" ]; then
        echo "# $module has no TEXT column"
        continue
    fi
    for source in "$glob" "$tmp/long.data"; do
        label=${source##*/}
        # each side's queries in one process (lib/common.sh's sqlrun_each);
        # the copies (col || '') in another
        got_sql=() want_sql=() names=()
        for col in $columns; do
            got_sql+=("SELECT max($col), min($col), count(DISTINCT $col) FROM $module('$source')")
            want_sql+=("SELECT max($col || ''), min($col || ''), count(DISTINCT $col || '') FROM $module('$source')")
            names+=("$module.$col: max, min, count DISTINCT over $label")
            got_sql+=("SELECT coalesce(group_concat(v, '|'), '(no rows)') FROM (SELECT $col AS v FROM $module('$source') WHERE $col IS NOT NULL ORDER BY $col DESC LIMIT 3)")
            want_sql+=("SELECT coalesce(group_concat(v, '|'), '(no rows)') FROM (SELECT $col || '' AS v FROM $module('$source') WHERE $col IS NOT NULL ORDER BY 1 DESC LIMIT 3)")
            names+=("$module.$col: ORDER BY in a subquery over $label")
        done
        sqlrun_each "$tmp/got" "${got_sql[@]}"
        sqlrun_each "$tmp/want" "${want_sql[@]}"
        for k in "${!names[@]}"; do
            check "${names[k]}" "$(cat "$tmp/got.$k")" "$(cat "$tmp/want.$k")"
        done
    done
done

# Two cursors over one file stepped alternately: a join of two tables.
got=$(sqlrun "SELECT count(*), max(s.sym), max(c.sym) FROM perf_samples('$tmp/long.data') s JOIN perf_callchains('$tmp/long.data') c ON c.sample = s.sample AND c.depth = 0 WHERE s.sample % 97 = 0")
want=$(sqlrun "SELECT count(*), max(s.sym || ''), max(c.sym || '') FROM perf_samples('$tmp/long.data') s JOIN perf_callchains('$tmp/long.data') c ON c.sample = s.sample AND c.depth = 0 WHERE s.sample % 97 = 0")
check "a join of perf_samples and perf_callchains over one file keeps both sides' names" "$got" "$want"
