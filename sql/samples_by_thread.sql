-- samples_by_thread.sql: samples and period per thread, busiest first
--
-- Samples and period per thread, busiest first.
-- comm is the thread's last COMM, else its process's; tid 0 is the idle task
-- "swapper"; a thread without any COMM record shows as ":tid", as in perf.
--
-- Every query in sql/ reads the file named by the SQL parameter @file:
--     scripts/perfsql perf.data samples_by_thread
-- or by hand in the sqlite3 shell:
--     .load build/perfvtab              -- or `.load perfvtab` after make install
--     .param set @file 'perf.data'
--     .read sql/samples_by_thread.sql

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

WITH last_comm AS (
    SELECT pid, tid, comm,
           row_number() OVER (PARTITION BY tid ORDER BY record DESC) AS nth_of_thread,
           row_number() OVER (PARTITION BY pid ORDER BY tid = pid DESC, record DESC) AS nth_of_process
    FROM perf_comms(@file)
),
s AS (
    -- a sample without PERIOD counts as period 1, as in perf
    -- comm, max(record): the name at the thread's last sample, inherited
    -- from its creator when it has no COMM of its own, as in perf
    SELECT pid, tid, count(*) AS samples, sum(coalesce(period, 1)) AS period,
           count(DISTINCT cpu) AS cpus, comm AS sample_comm, max(record)
    FROM perf_samples(@file)
    GROUP BY pid, tid
)
SELECT s.pid, s.tid,
       coalesce((SELECT comm FROM last_comm c WHERE c.tid = s.tid AND c.nth_of_thread = 1),
                (SELECT comm FROM last_comm c WHERE c.pid = s.pid AND c.nth_of_process = 1),
                s.sample_comm,
                ':' || s.tid) AS comm,
       s.samples, s.period,
       printf('%.2f', 100.0 * s.period / sum(s.period) OVER ()) AS "period%",
       s.cpus
FROM s
ORDER BY s.period DESC, s.pid, s.tid;
