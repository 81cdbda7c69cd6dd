#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# Grouped scans (ext/vtab_grouped.c, idxNum bit 12): a GROUP BY, or a
# DISTINCT with the same ORDER BY, over columns perf_samples and
# perf_callchains can give is served by the table, the rows gathered into
# groups and handed out sorted by the keys, so SQLite's sorter sees none.
# Each query must give what it gives with the grouping hidden from the
# planner (GROUP BY +col: an expression, which SQLite groups itself), on
# every fixture and the small corpus files: NULL keys, several keys, DISTINCT,
# ORDER BY count(*) DESC, HAVING, a join, a subquery, LIMIT.  EXPLAIN QUERY
# PLAN shows no temporary b-tree for the GROUP BY on the grouped path, and
# one where the query reads a column that differs on every row (record).
#
# Env: PV_ROOT, PV_SQLRUN, PV_SHARED (its corpus/, optional).
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$PV_ROOT/build/sqlrun}
cd "$PV_ROOT"
sql() { sqlrun -n NULL "$1"; }

# "grouped query|the same, grouping hidden|sorted": @f is the file; with
# "sorted", both outputs are compared as sorted lines (ties in an ORDER BY
# may come in either order)
cases=(
    "SELECT dso, sym, sum(period), count(*) FROM perf_samples(@f) GROUP BY dso, sym|SELECT dso, sym, sum(period), count(*) FROM perf_samples(@f) GROUP BY +dso, +sym|"
    "SELECT sym, count(*) FROM perf_samples(@f) GROUP BY sym ORDER BY count(*) DESC, sym|SELECT sym, count(*) FROM perf_samples(@f) GROUP BY +sym ORDER BY count(*) DESC, sym|"
    "SELECT comm, pid, event, sum(period) FROM perf_samples(@f) GROUP BY comm, pid, event HAVING count(*) > 1|SELECT comm, pid, event, sum(period) FROM perf_samples(@f) GROUP BY +comm, +pid, +event HAVING count(*) > 1|"
    "SELECT DISTINCT dso, cpumode FROM perf_samples(@f) ORDER BY dso, cpumode|SELECT DISTINCT dso, cpumode FROM perf_samples(@f) ORDER BY +dso, +cpumode|"
    "SELECT sym, count(*), sum(period) FROM perf_samples(@f) GROUP BY sym ORDER BY sym DESC|SELECT sym, count(*), sum(period) FROM perf_samples(@f) GROUP BY +sym ORDER BY sym DESC|"
    "SELECT sym_status, sym, count(*) FROM perf_samples(@f) GROUP BY sym_status, sym ORDER BY sym DESC LIMIT 5|SELECT sym_status, sym, count(*) FROM perf_samples(@f) GROUP BY +sym_status, +sym ORDER BY sym DESC LIMIT 5|"
    "SELECT dso, sym, sum(period) FROM perf_callchains(@f) WHERE repeated = 0 GROUP BY dso, sym|SELECT dso, sym, sum(period) FROM perf_callchains(@f) WHERE repeated = 0 GROUP BY +dso, +sym|"
    "SELECT sym, inlined, count(*) FROM perf_callchains(@f) GROUP BY sym, inlined|SELECT sym, inlined, count(*) FROM perf_callchains(@f) GROUP BY +sym, +inlined|"
    "SELECT depth, cpumode, count(*) FROM perf_callchains(@f) GROUP BY depth, cpumode ORDER BY 3 DESC LIMIT 4|SELECT depth, cpumode, count(*) FROM perf_callchains(@f) GROUP BY +depth, +cpumode ORDER BY 3 DESC LIMIT 4|sorted"
    "SELECT ip, depth, count(*) FROM perf_callchains(@f) GROUP BY ip, depth|SELECT ip, depth, count(*) FROM perf_callchains(@f) GROUP BY +ip, +depth|"
    "SELECT e.idx, s.sym, count(*) FROM perf_samples(@f) s JOIN perf_events(@f) e ON e.name = s.event GROUP BY s.sym, e.idx|SELECT e.idx, s.sym, count(*) FROM perf_samples(@f) s JOIN perf_events(@f) e ON e.name = s.event GROUP BY +s.sym, +e.idx|sorted"
    "SELECT s.sym, count(*), sum(m.n) FROM perf_samples(@f) s JOIN (SELECT 1 AS n UNION ALL SELECT 2) m GROUP BY s.sym|SELECT s.sym, count(*), sum(m.n) FROM perf_samples(@f) s JOIN (SELECT 1 AS n UNION ALL SELECT 2) m GROUP BY +s.sym|"
    "SELECT max(n), count(*) FROM (SELECT sym, count(*) AS n FROM perf_samples(@f) GROUP BY sym)|SELECT max(n), count(*) FROM (SELECT sym, count(*) AS n FROM perf_samples(@f) GROUP BY +sym)|"
    "SELECT srcfile, srcline, count(*) FROM perf_samples(@f) GROUP BY srcfile, srcline|SELECT srcfile, srcline, count(*) FROM perf_samples(@f) GROUP BY +srcfile, +srcline|"
    "SELECT origin, sym, srcline, count(*) FROM perf_callchains(@f) GROUP BY origin, sym, srcline|SELECT origin, sym, srcline, count(*) FROM perf_callchains(@f) GROUP BY +origin, +sym, +srcline|"
    "SELECT path, sym, count(*) FROM perf_samples(@f) GROUP BY path, sym|SELECT path, sym, count(*) FROM perf_samples(@f) GROUP BY +path, +sym|"
)
files=(tests/fixtures/*.data)
corpus=$PV_SHARED/corpus
if [ -d "$corpus" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$corpus" -name '*.data' -size -2M | sort)
else
    echo "ok - grouped scans over the corpus files # SKIP input absent: $corpus"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compared=0 differed=0 with_null=0
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    q=$(sql_quote "$f")
    [ "$(sql "SELECT count(*) > 0 FROM perf_samples($q) WHERE sym IS NULL")" = 1 ] &&
        with_null=$((with_null + 1))
    # one process a side and file (lib/common.sh's sqlrun_each)
    grouped_sql=() hidden_sql=()
    for c in "${cases[@]}"; do
        IFS='|' read -r grouped hidden how <<<"$c"
        grouped_sql+=("${grouped//@f/$q}")
        hidden_sql+=("${hidden//@f/$q}")
    done
    sqlrun_each "$tmp/got" -n NULL "${grouped_sql[@]}"
    sqlrun_each "$tmp/want" -n NULL "${hidden_sql[@]}"
    k=0
    for c in "${cases[@]}"; do
        IFS='|' read -r grouped hidden how <<<"$c"
        if [ "$how" = sorted ]; then
            sort -o "$tmp/got.$k" "$tmp/got.$k"
            sort -o "$tmp/want.$k" "$tmp/want.$k"
        fi
        compared=$((compared + 1))
        if ! cmp -s "$tmp/got.$k" "$tmp/want.$k"; then
            differed=$((differed + 1))
            echo "# differs: $f: ${grouped//@f/$q}"
        fi
        k=$((k + 1))
    done
done
check "grouped scans give what SQLite's own grouping gives ($compared queries over ${#files[@]} files, $with_null with NULL symbols)" \
    "$([ "$compared" -gt 100 ] && [ "$differed" -eq 0 ] && [ "$with_null" -gt 0 ] && echo same)" same

# the plans: grouped path (no temp b-tree for the GROUP BY), and not taken
f=$(sql_quote tests/fixtures/fp.data)
plan() { sql "EXPLAIN QUERY PLAN $1" | cut -f4 | tr '\n' ';'; }
# no_btree LABEL SQL: the plan sorts nothing; sqlite_groups LABEL SQL: the
# plan leaves the GROUP BY to SQLite's temp b-tree
no_btree() { check "$1" "$(grep -q 'TEMP B-TREE' <<<"$(plan "$2")" || echo none)" none; }
sqlite_groups() {
    check "$1" "$(grep -o 'USE TEMP B-TREE FOR GROUP BY' <<<"$(plan "$2")")" "USE TEMP B-TREE FOR GROUP BY"
}
no_btree "GROUP BY dso, sym over perf_samples needs no temp b-tree" \
    "SELECT dso, sym, sum(period) FROM perf_samples($f) GROUP BY dso, sym"
no_btree "GROUP BY sym over perf_callchains needs no temp b-tree" \
    "SELECT sym, count(*) FROM perf_callchains($f) GROUP BY sym"
no_btree "DISTINCT comm ORDER BY comm needs no temp b-tree" \
    "SELECT DISTINCT comm FROM perf_samples($f) ORDER BY comm"
sqlite_groups "a GROUP BY that reads record is left to SQLite (groups would copy every row)" \
    "SELECT sym, max(record) FROM perf_samples($f) GROUP BY sym"
sqlite_groups "a GROUP BY that reads a column the table does not group (callchain) is left to SQLite" \
    "SELECT sym, length(callchain) FROM perf_samples($f) GROUP BY sym"
no_btree "GROUP BY over a join, the table outermost, needs no temp b-tree" \
    "SELECT s.sym, count(*), sum(m.n) FROM perf_samples($f) s JOIN (SELECT 1 AS n UNION ALL SELECT 2) m GROUP BY s.sym"
p=$(plan "SELECT record, sym FROM perf_samples($f)")
check "a query without GROUP BY is a plain scan, rows in time order" \
    "$(grep -o 'INDEX 1:' <<<"$p")" "INDEX 1:"

# the rowid of a grouped scan would be one entry's for all its equal rows:
# reading it is an error, never a wrong answer; record is the same number
got=$(sqlrun "SELECT sym, max(rowid) FROM perf_samples($f) GROUP BY sym")
check "a grouped scan that reads the rowid fails, naming record instead" \
    "$(grep -o 'the rowid cannot be read where the table groups the rows itself.*read the record column instead' <<<"$got")" \
    "the rowid cannot be read where the table groups the rows itself (GROUP BY or DISTINCT over its columns); read the record column instead"
check "max(record) GROUP BY sym is SQLite's own answer (max(rowid) without the grouped scan)" \
    "$(sql "SELECT sym, max(record) FROM perf_samples($f) GROUP BY sym")" \
    "$(sql "SELECT sym, max(rowid) FROM perf_samples($f) GROUP BY +sym")"

# values live past the cursor: a grouped subquery's text kept by an outer sort
check "grouped text survives an outer ORDER BY and the file's release" \
    "$(sql "SELECT count(*) FROM (SELECT sym, count(*) AS n FROM perf_samples($f) GROUP BY sym) ORDER BY 1")" \
    "$(sql "SELECT count(*) FROM (SELECT sym, count(*) AS n FROM perf_samples($f) GROUP BY +sym) ORDER BY 1")"

# a pattern's files are one set of groups
pattern=$(sql_quote 'tests/fixtures/f*.data')
check "GROUP BY over a pattern's files groups across the files" \
    "$(sql "SELECT sym, count(*) FROM perf_samples($pattern) GROUP BY sym")" \
    "$(sql "SELECT sym, count(*) FROM perf_samples($pattern) GROUP BY +sym")"
