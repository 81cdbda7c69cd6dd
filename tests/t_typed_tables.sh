#!/usr/bin/env bash
# perf_tasks, perf_lost and perf_switches against perf script -D's reading of
# the same records (tests/expected/typed_tables/, made by tests/gen/typed_tables.sh).
set -u
cd "$PV_ROOT"
corpus=$PV_SHARED/corpus/perf_data_converter/src/quipper/testdata
declare -A files=(
    [datasrc]=tests/fixtures/datasrc.data
    [fp]=tests/fixtures/fp.data
    [multi]=tests/fixtures/multi.data
    [switch_cpu_wide]=tests/fixtures/switch_cpu_wide.data
    [ctx_switch_namespaces]=$corpus/perf.data.ctx_switch_namespaces-4.14
    [lost_samples]=tests/corpus/perf_data_converter/src/quipper/testdata/perf.data.lost_samples-4.4
    [singleprocess]=$corpus/perf.data.singleprocess-3.4
)
for name in "${!files[@]}"; do
    f=${files[$name]}
    expected=tests/expected/typed_tables/$name.tsv
    if [ ! -f "$f" ]; then
        echo "ok - $name perf_tasks/perf_lost/perf_switches equal perf script -D # SKIP input absent: $f"
        continue
    fi
    sql="
    SELECT line FROM (
      SELECT r.file_offset AS o, r.file_offset||char(9)||t.kind||char(9)||t.pid||char(9)||t.tid||char(9)||t.ppid||char(9)||t.ptid||char(9)||t.time AS line
        FROM perf_tasks('$f') t JOIN perf_records('$f') r USING (record)
      UNION ALL
      SELECT r.file_offset, r.file_offset||char(9)||l.kind||char(9)||l.lost
        FROM perf_lost('$f') l JOIN perf_records('$f') r USING (record)
      UNION ALL
      SELECT r.file_offset, r.file_offset||char(9)||s.kind||char(9)||s.direction||char(9)||s.preempt
                                      ||coalesce(char(9)||s.next_prev_pid||char(9)||s.next_prev_tid, '')||char(9)||s.time
        FROM perf_switches('$f') s JOIN perf_records('$f') r USING (record)
    ) ORDER BY o"
    if ! got=$("$PV_SQLRUN" "$sql" 2>&1); then
        echo "not ok - $name typed tables: SQL error: $got"
        continue
    fi
    if [ "$got" == "$(cat "$expected")" ]; then
        echo "ok - $name perf_tasks/perf_lost/perf_switches equal perf script -D ($(wc -l <"$expected") records)"
    else
        echo "not ok - $name typed tables differ from perf:"
        diff <(echo "$got") "$expected" | head -5 | sed 's/^/    /'
    fi
done
# Every typed table row is a record of its kind, and none is missed.
for name in datasrc multi switch_cpu_wide; do
    f=${files[$name]}
    got=$("$PV_SQLRUN" "SELECT (SELECT count(*) FROM perf_tasks('$f')) + (SELECT count(*) FROM perf_lost('$f'))
        + (SELECT count(*) FROM perf_switches('$f')) = (SELECT count(*) FROM perf_records('$f')
        WHERE name IN ('FORK','EXIT','LOST','LOST_SAMPLES','SWITCH','SWITCH_CPU_WIDE'))" 2>&1)
    if [ "$got" = 1 ]; then echo "ok - $name typed tables cover every task/lost/switch record"
    else echo "not ok - $name typed tables miss records: $got"; fi
done
