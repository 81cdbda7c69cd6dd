-- processes.sql: per process: name, mmaps, fork and exit, threads, samples (readperf's processes.csv)
--
-- One row per process, what readperf wrote as processes.csv:
-- its name (the main thread's name at its last sample, else its last COMM),
-- how many MMAP/MMAP2 records it has, when it forked and exited (ns, NULL if
-- the recording did not see it), its threads, samples and summed period.
--
--     scripts/perfsql perf.data processes
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/processes.sql

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
    SELECT pid, tid, comm, time, coalesce(period, 1) AS period FROM perf_samples(@file)
),
by_pid AS (
    SELECT pid, count(DISTINCT tid) AS threads, count(*) AS samples, sum(period) AS period
    FROM s GROUP BY pid
),
last_name AS (
    SELECT pid, comm FROM (
        SELECT pid, comm, row_number() OVER (PARTITION BY pid
                                             ORDER BY tid = pid DESC, time DESC) AS nth
        FROM s WHERE comm IS NOT NULL)
    WHERE nth = 1
),
mmaps AS (
    SELECT pid, count(*) AS mmaps FROM perf_mmaps(@file) GROUP BY pid
),
tasks AS (
    SELECT pid,
           min(CASE WHEN kind = 'FORK' AND tid = pid THEN time END) AS fork_time,
           max(CASE WHEN kind = 'EXIT' AND tid = pid THEN time END) AS exit_time
    FROM perf_tasks(@file) GROUP BY pid
)
SELECT b.pid,
       coalesce(n.comm, CASE WHEN b.pid = 0 THEN 'swapper' END, ':' || b.pid) AS comm,
       coalesce(m.mmaps, 0) AS mmaps, t.fork_time, t.exit_time,
       b.threads, b.samples, b.period,
       round(100.0 * b.period / sum(b.period) OVER (), 2) AS percent
FROM by_pid b
LEFT JOIN last_name n ON n.pid = b.pid
LEFT JOIN mmaps m ON m.pid = b.pid
LEFT JOIN tasks t ON t.pid = b.pid
ORDER BY b.period DESC, b.pid;
