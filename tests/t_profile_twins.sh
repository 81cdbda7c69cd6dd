#!/usr/bin/env bash
# long-running: about two minutes under the sanitizers
# perf_profile against its slow twins, over every fixture: the rows it
# counts in one pass (frames deduplicated per sample, its caches and the
# symbolizer's) equal GROUP BY over perf_samples and perf_callchains
# (repeated = 0), and its name and event_period columns equal the SQL they
# replace in sql/flat_profile.sql and sql/inclusive_profile.sql
# (coalesce(sym || ' (inlined)', printf('0x%016x', addr)) and
# sum(period) OVER (PARTITION BY event)).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
sql() { sqlrun -n NULL "$1"; }

files=()
while IFS= read -r f; do files+=("$f"); done < <(find tests/fixtures -name '*.data' -size -2M | sort)
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
