-- flat_profile.sql: each function's share of the samples, as perf report --no-children
--
-- Each function's share of the samples, as
-- `perf report --no-children --sort dso,sym` computes it: per event, the
-- period of the samples whose ip falls in the function, over all samples'.
-- dso is perf's short name (the file name; [kernel.kallsyms], [module],
-- [JIT] tid PID for a JIT map);
-- dso_path the mapped file.  An ip without a symbol is its own row named by
-- its address in the dso (or the ip when no map holds it), as perf shows it.
-- perf_profile counts in one pass; the same numbers, slower (GROUP BY sorts
-- every sample), come from
--     SELECT event, dso, sym, sum(period) FROM perf_samples(@file) GROUP BY sym, dso, event
--
--     scripts/perfsql perf.data flat_profile
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/flat_profile.sql

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
) WHERE note IS NOT NULL;

SELECT event,
       dso_name AS dso,
       name AS sym,
       samples,
       period,
       round(100.0 * period / event_period, 4) AS percent,
       dso AS dso_path
FROM perf_profile(@file)
WHERE samples > 0
-- perf_profile's own order (no sort in SQLite); dso_path orders the rows
-- equal in the rest
ORDER BY event, period DESC, dso_name, name, dso_path;
