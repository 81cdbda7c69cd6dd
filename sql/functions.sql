-- functions.sql: samples and period per process name, dso and function (readperf's results.csv)
--
-- One row per (process name, dso, function), what readperf
-- wrote as results.csv: samples and summed period of the samples whose ip
-- is in the function, with the function's share of all samples.  Where
-- readperf named the source file (addr2line), this names the binary.
--
--     scripts/perfsql perf.data functions
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/functions.sql

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

WITH s AS (
    SELECT coalesce(comm, ':' || pid) AS comm, dso,
           coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym,
           coalesce(period, 1) AS period
    FROM perf_samples(@file)
)
SELECT comm, sym,
       CASE WHEN dso GLOB '/tmp/perf-[0-9]*.map' THEN '[JIT] tid ' || substr(dso, 11, length(dso) - 14)
            ELSE coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), ''), '[unknown]') END AS dso,
       count(*) AS samples, sum(period) AS period,
       round(100.0 * sum(period) / sum(sum(period)) OVER (), 2) AS percent,
       dso AS dso_path
FROM s
GROUP BY comm, dso, sym
ORDER BY period DESC, comm, sym;
