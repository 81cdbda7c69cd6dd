#!/usr/bin/env bash
# long-running: about two minutes under the sanitizers
# perf_profile against its slow twins, over every fixture: the rows it
# counts in one pass (frames deduplicated per sample, its caches and the
# symbolizer's) equal GROUP BY over perf_samples and perf_callchains
# (repeated = 0), and its name and event_period columns equal the SQL they
# replace in sql/flat_profile.sql and sql/inclusive_profile.sql
# (coalesce(sym || ' (inlined)', printf('0x%016x', addr)) and
# sum(period) OVER (PARTITION BY event)); its own sorted orders equal
# SQLite's sort of the same ORDER BY, and the ready queries sort nothing.
# The sort by keys made once per row equals the sort of the rows themselves
# (PERFVTAB_PROFILE_ROW_SORT=1, ext/profile.c).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
sql() { sqlrun -n NULL "$1"; }

# under the sanitizers, every other fixture under 300 KB (the plain flavour
# takes every one under 2 MB), so that make test stays within its 15 minutes
max_size=-2M every=1
[[ $PV_BUILD == */san ]] && max_size=-300k every=2
mapfile -t found < <(find tests/fixtures -name '*.data' -size "$max_size" | sort)
mapfile -t files < <(every_nth "$every" "${found[@]}")
# the function as both sides name it, from columns sym, inlined, dso, dso_offset, ip
key="coalesce(sym || CASE WHEN inlined THEN ' (inlined)' ELSE '' END,
              printf('0x%016x', CASE WHEN dso IS NULL THEN ip ELSE dso_offset END))"
compared=0 names=0 totals=0 counts=0 with_frames=0
for f in "${files[@]}"; do
    q=$(sql_quote "$f")
    # rows with a children column read: the walk over the stacks
    rows=$(sql "SELECT count(*) FROM perf_profile($q) WHERE children_period >= 0")
    case $rows in ''|*[!0-9]*) continue ;; esac    # no samples to profile (an error)
    compared=$((compared + 1))
    bad=$(sql "SELECT count(*) FROM perf_profile($q) WHERE children_period >= 0 AND
               name IS NOT coalesce(sym || CASE WHEN inlined THEN ' (inlined)' ELSE '' END,
                                    printf('0x%016x', addr))")
    [ "$bad" = 0 ] || { names=$((names + 1)); echo "# name differs: $f: $bad rows"; }
    bad=$(sql "SELECT count(*) FROM (SELECT event_period,
                      sum(period) OVER (PARTITION BY event) AS twin FROM perf_profile($q)
                      WHERE children_period >= 0) WHERE event_period IS NOT twin")
    [ "$bad" = 0 ] || { totals=$((totals + 1)); echo "# event_period differs: $f: $bad rows"; }
    got=$(sql "SELECT event, dso, name, sum(samples), sum(children_samples) FROM perf_profile($q)
               GROUP BY event, dso, name" | sort)
    want=$(sql "SELECT event, dso, k, sum(own), count(*) FROM (
                    SELECT event, dso, ${key//inlined/0} AS k, 1 AS own FROM perf_samples($q)
                    UNION ALL
                    SELECT event, dso, $key, 0 FROM perf_callchains($q) WHERE repeated = 0)
                GROUP BY event, dso, k" | sort)
    [ "$(sql "SELECT count(*) > 0 FROM perf_callchains($q)")" = 1 ] && with_frames=$((with_frames + 1))
    [ "$got" = "$want" ] || { counts=$((counts + 1)); echo "# counts differ: $f"; diff <(echo "$want") <(echo "$got") | head -5 | sed 's/^/# /'; }
done
check "perf_profile.name is its coalesce(sym, printf(addr)) twin on $compared fixtures" \
    "$([ "$compared" -gt 10 ] && echo "$names")" 0
check "perf_profile.event_period is sum(period) OVER (PARTITION BY event) on $compared fixtures" \
    "$([ "$compared" -gt 10 ] && echo "$totals")" 0
check "perf_profile's self and children counts equal GROUP BY over perf_samples and perf_callchains ($with_frames fixtures with frames)" \
    "$([ "$with_frames" -gt 5 ] && echo "$counts")" 0

# perf_profile's own orders (ORDER BY consumed: it sorts its rows) against
# the same ORDER BY hidden from the planner (+event: SQLite sorts), on
# every fixture; its dso_name against the CASE expression it replaces.
cols="event, dso, sym, addr, samples, period, children_samples, children_period, inlined,
      name, event_period, dso_name"
orders=("event, children_period DESC, name, dso_name, dso"
        "event, period DESC, dso_name, name, dso")
dso_expr="CASE WHEN dso GLOB '/tmp/perf-[0-9]*.map' THEN '[JIT] tid ' || substr(dso, 11, length(dso) - 14)
          ELSE coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), ''), '[unknown]') END"
ordered=0 order_bad=0 dso_names=0 plans_bad=0 row_sort_bad=0
for f in "${files[@]}"; do
    q=$(sql_quote "$f")
    rows=$(sql "SELECT count(*) FROM perf_profile($q)")
    case $rows in ''|*[!0-9]*|0) continue ;; esac
    ordered=$((ordered + 1))
    bad=$(sql "SELECT count(*) FROM perf_profile($q) WHERE dso_name IS NOT $dso_expr")
    [ "$bad" = 0 ] || { dso_names=$((dso_names + 1)); echo "# dso_name differs: $f: $bad rows"; }
    for o in "${orders[@]}"; do
        fast="SELECT $cols FROM perf_profile($q) ORDER BY $o"
        slow="SELECT $cols FROM perf_profile($q) ORDER BY +$o"
        sql "EXPLAIN QUERY PLAN $fast" | grep -q 'TEMP B-TREE' && { plans_bad=$((plans_bad + 1)); echo "# sorted by SQLite: $o"; }
        sql "EXPLAIN QUERY PLAN $slow" | grep -q 'TEMP B-TREE' || { plans_bad=$((plans_bad + 1)); echo "# twin not sorted by SQLite: $o"; }
        [ "$(sql "$fast")" = "$(sql "$slow")" ] || { order_bad=$((order_bad + 1)); echo "# order differs: $f: $o"; }
        [ "$(sql "$fast")" = "$(PERFVTAB_PROFILE_ROW_SORT=1 sql "$fast")" ] ||
            { row_sort_bad=$((row_sort_bad + 1)); echo "# keyed sort differs from the row sort: $f: $o"; }
    done
done
check "perf_profile's own orders equal SQLite's sort of the same ORDER BY on $ordered fixtures" \
    "$([ "$ordered" -gt 10 ] && echo "$order_bad")" 0
check "perf_profile's sort by keys equals its sort of the rows on $ordered fixtures" \
    "$([ "$ordered" -gt 10 ] && echo "$row_sort_bad")" 0
check "perf_profile.dso_name is the ready queries' CASE expression on $ordered fixtures" \
    "$([ "$ordered" -gt 10 ] && echo "$dso_names")" 0
check "consumed orders have no sort in their plan, their twins one" "$plans_bad" 0

# The ready queries sort nothing; an ORDER BY that is not one of the
# table's orders is still sorted by SQLite.
f=tests/fixtures/fp.data
if [ -f "$f" ]; then
    q=$(sql_quote "$f")
    for r in flat_profile inclusive_profile; do
        main=$(sed -n '/^SELECT event/,$p' "sql/$r.sql" | sed "s|@file|$q|")
        check "sql/$r.sql: EXPLAIN QUERY PLAN has no TEMP B-TREE for its ORDER BY" \
            "$(sql "EXPLAIN QUERY PLAN $main" | grep -c 'TEMP B-TREE')" 0
    done
    for o in "event, period DESC, name" "event, children_period" "children_period DESC, event"; do
        check "ORDER BY $o is sorted by SQLite" \
            "$(sql "EXPLAIN QUERY PLAN SELECT name FROM perf_profile($q) ORDER BY $o" | grep -c 'USE TEMP B-TREE FOR ORDER BY')" 1
    done
else
    echo "ok - perf_profile's plans # SKIP input absent: $f"
fi
