#!/usr/bin/env bash
# perf_sum_by(keys..., value) is GROUP BY keys with sum(value) and
# count(*): over every fixture and some corpus files, for several key sets,
# its groups must equal SQLite's own GROUP BY's; and on made-up rows it must
# follow GROUP BY and sum() where they are particular (NULL keys, 1 = 1.0,
# text summed as numbers, all-NULL sums, overflow).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
sql() { sqlrun -n NULL "$1"; }

# "keys | value | table": the same groups both ways, as sorted lines
cases=(
    "sym, dso|period|perf_callchains(@f) WHERE repeated = 0"
    "depth, cpumode, inlined|1|perf_callchains(@f)"
    "comm, pid|period|perf_samples(@f)"
    "event, cpu, dso_offset|period|perf_samples(@f)"
    "type|size|perf_records(@f)"
)
files=(tests/fixtures/*.data)
corpus=$PV_SHARED/corpus
if [ ! -d "$corpus" ]; then
    echo "ok - perf_sum_by equals GROUP BY over the corpus files (tests/corpus only) # SKIP input absent: $corpus"
    corpus=tests/corpus
fi
while IFS= read -r f; do files+=("$f"); done < <(find "$corpus" -name '*.data' -size -2M | sort)
compared=0 differed=0
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    for c in "${cases[@]}"; do
        IFS='|' read -r keys value from <<<"$c"
        from=${from//@f/\'$f\'}
        n=$(awk -F, '{print NF}' <<<"$keys")
        picks=""
        for ((i = 0; i < n + 2; i++)); do picks+="${picks:+, }g.value->>$i"; done
        want=$(sql "SELECT $keys, sum($value), count(*) FROM $from GROUP BY $keys" | sort)
        got=$(sql "SELECT $picks FROM json_each((SELECT perf_sum_by($keys, $value) FROM $from)) g" |
              sort)
        compared=$((compared + 1))
        if [ "$got" != "$want" ]; then
            differed=$((differed + 1))
            echo "# differs: $f: $keys"
        fi
    done
done
check "perf_sum_by equals GROUP BY on $compared file and key sets" \
    "$([ "$compared" -gt 20 ] && [ "$differed" -eq 0 ] && echo same)" same

rows="SELECT 1 AS k, 5 AS v UNION ALL SELECT 1.0, 7 UNION ALL SELECT NULL, 1
      UNION ALL SELECT NULL, NULL UNION ALL SELECT 'a', '2.5' UNION ALL SELECT 'a', 1
      UNION ALL SELECT x'00ff', NULL UNION ALL SELECT 2.5, 1"
check "NULL keys group together; 1 and 1.0 are one key; text values sum as numbers" \
    "$(sql "SELECT perf_sum_by(k, v) FROM ($rows)")" \
    '[[1,12,2],[null,1,2],["a",3.5,2],["00ff",null,1],[2.5,1,1]]'
check "the same groups as GROUP BY" \
    "$(sql "SELECT count(*) FROM json_each((SELECT perf_sum_by(k, v) FROM ($rows)))")" \
    "$(sql "SELECT count(*) FROM (SELECT 1 FROM ($rows) GROUP BY k)")"
check "no rows: []" "$(sql "SELECT perf_sum_by(1, 2) FROM (SELECT 1 WHERE 0)")" "[]"
check "an integer sum past 64 bits is an error, as sum()'s" \
    "$(sql "SELECT perf_sum_by(1, v) FROM (SELECT 9223372036854775807 AS v UNION ALL SELECT 1)")" \
    "$(sql "SELECT sum(v) FROM (SELECT 9223372036854775807 AS v UNION ALL SELECT 1)" |
       sed 's/integer overflow/perf_sum_by: integer overflow/')"
check "a value but no key is an error" "$(sql "SELECT perf_sum_by(1)")" \
    "Error: perf_sum_by: give 1 to 64 keys, then the value to sum"

# docs/speed.md's inclusive profile by hand, as written (its 'perf.data' made
# the fixture's path, and its LIMIT dropped): per function, the period and
# samples perf_profile's children columns give (named functions), which t_symbols checks
# against perf report --children.
readme_sql=$(awk '/^SELECT g.value->>0 AS sym, g.value->>1 AS dso, g.value->>2 AS period, g.value->>3 AS samples$/ { on = 1 }
                  on { print } on && /;$/ { exit }' docs/speed.md)
if [ -z "$readme_sql" ]; then
    not_ok "docs/speed.md's perf_sum_by example" "no such sql block in docs/speed.md"
else
    for f in tests/fixtures/example.data tests/fixtures/fp.data; do
        sql_f=${readme_sql//\'perf.data\'/\'$f\'}
        sql_f=${sql_f/LIMIT 10/}
        syms="SELECT perf_symbol_path(NULL, 'tests/fixtures/symbols');"
        # named functions: perf_profile keeps an unnamed address apart,
        # the example groups them per dso
        got=$(sqlrun -n NULL "$syms" "$sql_f" | tail -n +2 | grep -v '^NULL' | sort)
        want=$(sqlrun -n NULL "$syms" "SELECT sym, dso, children_period, children_samples
                                       FROM perf_profile('$f') WHERE children_samples > 0 AND sym IS NOT NULL" |
               tail -n +2 | sort)
        check "docs/speed.md's perf_sum_by example on $f: perf_profile's children period and samples for all $(wc -l <<<"$want") named functions" \
            "$got" "$want"
    done
fi
