-- samples_by_process.sql: samples and period per process, busiest first
--
-- Samples and period per process, busiest first.
-- comm is the process's last COMM (that of its main thread, tid = pid, when
-- it has one); pid 0 is the idle task "swapper"; a pid without any COMM record
-- in the file shows as ":pid", as perf prints it.
--
-- Every query in sql/ reads the file named by the SQL parameter @file:
--     scripts/perfsql perf.data samples_by_process
-- or by hand in the sqlite3 shell:
--     .load build/perfvtab              -- or `.load perfvtab` after make install
--     .param set @file 'perf.data'
--     .read sql/samples_by_process.sql

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

WITH comm AS (
    SELECT pid, comm
    FROM (SELECT pid, comm,
                 row_number() OVER (PARTITION BY pid
                                    ORDER BY tid = pid DESC, record DESC) AS nth
          FROM perf_comms(@file))
    WHERE nth = 1
),
s AS (
    -- a sample without PERIOD counts as period 1, as in perf
    -- comm, max(record): the name at the process's last sample, inherited
    -- from the parent when the process has no COMM of its own, as in perf
    SELECT pid, count(DISTINCT tid) AS threads, count(*) AS samples,
           sum(coalesce(period, 1)) AS period, comm AS sample_comm, max(record)
    FROM perf_samples(@file)
    GROUP BY pid
)
SELECT s.pid,
       coalesce(comm.comm, s.sample_comm, ':' || s.pid) AS comm,
       s.threads, s.samples, s.period,
       printf('%.2f', 100.0 * s.period / sum(s.period) OVER ()) AS "period%"
FROM s
LEFT JOIN comm ON comm.pid = s.pid
ORDER BY s.period DESC, s.pid;
