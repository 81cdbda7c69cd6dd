-- samples_by_event.sql: per event: samples, period, processes, threads, cpus, time span, kernel/user split
--
-- Per event, the samples, their period, how many
-- processes, threads and cpus they hit and the time they span; then each
-- event's split between kernel and user mode.
--
-- Every query in sql/ reads the file named by the SQL parameter @file:
--     scripts/perfsql perf.data samples_by_event
-- or by hand in the sqlite3 shell:
--     .load build/perfvtab              -- or `.load perfvtab` after make install
--     .param set @file 'perf.data'
--     .read sql/samples_by_event.sql

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

.print '== samples per event'
-- A sample without PERIOD counts as period 1, as in perf; cpus is 0 when
-- the recording did not capture the CPU; seconds is first to last sample.
SELECT event, count(*) AS samples, sum(coalesce(period, 1)) AS period,
       count(DISTINCT pid) AS processes, count(DISTINCT tid) AS threads,
       count(DISTINCT cpu) AS cpus,
       printf('%.3f', (max(time) - min(time)) / 1e9) AS seconds
FROM perf_samples(@file)
GROUP BY event
ORDER BY period DESC, event;

.print '== samples per event and cpumode'
SELECT event, cpumode, count(*) AS samples, sum(coalesce(period, 1)) AS period,
       printf('%.2f', 100.0 * sum(coalesce(period, 1))
                      / sum(sum(coalesce(period, 1))) OVER (PARTITION BY event)) AS "period%"
FROM perf_samples(@file)
GROUP BY event, cpumode
ORDER BY event, period DESC;
