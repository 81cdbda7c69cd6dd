#!/usr/bin/env bash
# A table's own row order serves an ORDER BY on the keys after those the
# query pins with column = value (vtab_plan.c, is_row_order): perf_folded_stacks'
# rows come sorted by event, then stack, so sql/folded_stacks.sql's
# `WHERE event = X ORDER BY stack` needs no sort by SQLite.  Each consumed
# order is checked against its twin, the same ORDER BY hidden from the
# planner (+stack: SQLite sorts); and what must not count as pinned (an IN,
# another collation, no equality at all) is left to SQLite's sort.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
sql() { sqlrun -n NULL "$1"; }
sorts() { sql "EXPLAIN QUERY PLAN $1" | grep -c 'USE TEMP B-TREE FOR ORDER BY'; }

# fixtures with several events (perf record -e cpu-clock,page-faults; tracepoints)
for f in tests/fixtures/multi.data tests/fixtures/tracepoint_kinds.data; do
    if [ ! -f "$f" ]; then
        echo "ok - pinned orders on $f # SKIP input absent: $f"
        continue
    fi
    q=$(sql_quote "$f")
    events=$(sql "SELECT count(DISTINCT event) FROM perf_folded_stacks($q)")
    check "$f has several events' stacks (else nothing here could fail)" "$([ "$events" -gt 1 ] && echo yes)" yes
    bad_plan=0 bad_rows=0 n=0
    while IFS= read -r e; do
        n=$((n + 1))
        ev=$(sql_quote "$e")
        fast="SELECT stack, samples, period FROM perf_folded_stacks($q) WHERE event = $ev ORDER BY stack"
        slow="SELECT stack, samples, period FROM perf_folded_stacks($q) WHERE event = $ev ORDER BY +stack"
        [ "$(sorts "$fast")" = 0 ] || { bad_plan=$((bad_plan + 1)); echo "# sorted by SQLite: $e"; }
        [ "$(sorts "$slow")" = 1 ] || { bad_plan=$((bad_plan + 1)); echo "# twin not sorted: $e"; }
        [ "$(sql "$fast")" = "$(sql "$slow")" ] || { bad_rows=$((bad_rows + 1)); echo "# rows differ: $e"; }
        # the same for perf_profile's flat order, its event pinned
        fast="SELECT name, dso, period FROM perf_profile($q) WHERE event = $ev ORDER BY period DESC, dso_name, name, dso"
        slow="SELECT name, dso, period FROM perf_profile($q) WHERE event = $ev ORDER BY +period DESC, dso_name, name, dso"
        [ "$(sorts "$fast")" = 0 ] || { bad_plan=$((bad_plan + 1)); echo "# perf_profile sorted by SQLite: $e"; }
        [ "$(sql "$fast")" = "$(sql "$slow")" ] || { bad_rows=$((bad_rows + 1)); echo "# perf_profile rows differ: $e"; }
    done < <(sql "SELECT DISTINCT event FROM perf_folded_stacks($q)")
    check "$f: ORDER BY stack with event = X is served by the table for each of its $n events" "$bad_plan" 0
    check "$f: those rows equal SQLite's sort of them" "$bad_rows" 0

    # not pinned: every event, an IN, a NOCASE equality, an event from a join
    all=$(sql "SELECT group_concat(quote(event), ',') FROM (SELECT DISTINCT event FROM perf_folded_stacks($q))")
    first=$(sql "SELECT quote(upper(event)) FROM perf_folded_stacks($q) LIMIT 1")
    for where in "1" "event IN ($all)" "event = $first COLLATE NOCASE"; do
        fast="SELECT event, stack, samples FROM perf_folded_stacks($q) WHERE $where ORDER BY stack"
        slow="SELECT event, stack, samples FROM perf_folded_stacks($q) WHERE $where ORDER BY +stack"
        check "$f: WHERE $where ORDER BY stack is sorted by SQLite" "$(sorts "$fast")" 1
        check "$f: WHERE $where ORDER BY stack: the rows of SQLite's own sort" "$(sql "$fast")" "$(sql "$slow")"
    done
    fast="SELECT s.event, s.stack FROM perf_events($q) e, perf_folded_stacks($q) s WHERE s.event = e.name ORDER BY s.stack"
    check "$f: an event taken from a join gives the rows of SQLite's own sort" \
        "$(sql "$fast")" "$(sql "${fast/ORDER BY s.stack/ORDER BY +s.stack}")"
done

# sql/folded_stacks.sql's query itself sorts nothing
f=tests/fixtures/multi.data
if [ -f "$f" ]; then
    main=$(sed -n '/^WITH chosen/,$p' sql/folded_stacks.sql | sed "s|@file|$(sql_quote "$f")|g; s|@event|NULL|g")
    check "sql/folded_stacks.sql: no sort by SQLite in its plan" "$(sorts "$main")" 0
else
    echo "ok - sql/folded_stacks.sql's plan # SKIP input absent: $f"
fi
