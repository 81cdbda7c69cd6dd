-- inclusive_profile.sql: each function's share with its callees (children) and alone (self), as perf report --children
--
-- Each function's share of the samples counting the
-- samples it was on the stack for, as `perf report --children --sort sym`:
-- "children" is the period of the samples whose ip or callchain holds the
-- function (each sample once, however often the function recurs), "self"
-- the period of those whose ip is in it.  Percentages of the event's total.
-- A frame without a symbol is its own row, named by its address; a function
-- inlined at a DWARF-unwound frame is "name (inlined)", as perf shows it; a
-- clone (spin.constprop.0) is its symbol's row, never "(inlined)", where
-- perf 6.1 shows "spin (inlined)" (docs/schema.md, "One name per frame").
--     scripts/perfsql perf.data inclusive_profile
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/inclusive_profile.sql
--
-- perf_profile counts in one pass; the same from the tables (slower: GROUP
-- BY sorts every frame) is the samples' own functions plus the callchain
-- frames not yet counted for their sample:
--     SELECT sym, sum(period) FROM (
--         SELECT sym, dso, period FROM perf_samples(@file)
--         UNION ALL
--         SELECT sym || CASE WHEN inlined THEN ' (inlined)' ELSE '' END, dso, period
--         FROM perf_callchains(@file) WHERE repeated = 0)
--     GROUP BY sym, dso
-- and, grouped by a hash instead of a sort, as fast as perf_profile:
--     SELECT g.value->>0 AS sym, g.value->>2 AS period
--     FROM json_each((SELECT perf_sum_by(sym, dso, period) FROM (
--         SELECT sym, dso, period FROM perf_samples(@file)
--         UNION ALL
--         SELECT sym || CASE WHEN inlined THEN ' (inlined)' ELSE '' END, dso, period
--         FROM perf_callchains(@file) WHERE repeated = 0))) g

-- Why the rows are none (or what they lack), when they are: a note
-- (nothing when there is nothing to say).
SELECT note FROM (
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_samples(@file)) THEN CASE
                WHEN EXISTS (SELECT 1 FROM perf_records(@file) WHERE name = 'STAT')
                    THEN 'no samples in this file: a `perf stat record` file holds counts, not samples; its counts are in the perf_stats table'
                WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@file) WHERE severity = 'error')
                    THEN 'no samples could be read from this file: it is damaged (sql/overview.sql shows how)'
                WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@file) WHERE kind = 'unfinished_recording')
                    THEN 'no samples in this file: perf record was stopped (killed?) before it wrote any'
                ELSE 'no samples in this file: record some with `perf record -F 999 -g -- PROGRAM`' END
        END AS note
    UNION ALL
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE sample_type LIKE '%CALLCHAIN%')
            THEN 'children equals self: the file has no callchains; record with `perf record -g`'
        END AS note
) WHERE note IS NOT NULL;

SELECT event,
       name AS sym,
       dso_name AS dso,
       children_samples AS samples,
       round(100.0 * children_period / event_period, 4) AS children,
       round(100.0 * period / event_period, 4) AS self
FROM perf_profile(@file)
-- perf_profile's own order (no sort in SQLite); the dso's path orders
-- the rows equal in the rest
ORDER BY event, children_period DESC, name, dso_name, perf_profile.dso;
