-- process_mappings.sql: the memory mappings of process @pid with the samples in each, like /proc/PID/maps
-- @param pid integer optional: the process (default: the one with the most samples)
--
-- The memory mappings perf recorded for one process
-- (MMAP and MMAP2 records, in file order), like /proc/PID/maps, with the
-- number of that process's samples whose ip falls in each mapping.
--
-- Parameters: @file, and @pid, the process; without @pid, the process with
-- the most samples.  The kernel's own mappings have pid -1.
--     scripts/perfsql -p pid=4897 perf.data process_mappings
-- or by hand in the sqlite3 shell:
--     .load build/perfvtab              -- or `.load perfvtab` after make install
--     .param set @file 'perf.data'
--     .param set @pid 4897
--     .read sql/process_mappings.sql
--
-- perms (read, write, execute, private or shared) come from MMAP2's prot and
-- flags; an MMAP record carries neither, so perms is NULL there.

-- Why the rows are none, when they are: a note (nothing when there are rows).
SELECT note FROM (
    SELECT CASE
        WHEN typeof(@pid) NOT IN ('integer', 'null')
            THEN 'pid must be an integer (a process id), not ' || quote(@pid)
        WHEN @pid IS NULL AND NOT EXISTS (SELECT 1 FROM perf_samples(@file)) THEN CASE
                WHEN EXISTS (SELECT 1 FROM perf_records(@file) WHERE name = 'STAT')
                    THEN 'no samples in this file: a `perf stat record` file holds counts, not samples; its counts are in the perf_stats table'
                WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@file) WHERE severity = 'error')
                    THEN 'no samples could be read from this file: it is damaged (sql/overview.sql shows how)'
                WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@file) WHERE kind = 'unfinished_recording')
                    THEN 'no samples in this file: perf record was stopped (killed?) before it wrote any'
                ELSE 'no samples in this file: record some with `perf record -F 999 -g -- PROGRAM`' END
        WHEN @pid IS NULL AND NOT EXISTS (SELECT 1 FROM perf_samples(@file) WHERE pid > 0)
            THEN 'no samples of a process (pid > 0) to default to: set the parameter pid'
        WHEN EXISTS (SELECT 1 FROM perf_mmaps(@file) WHERE pid = t.pid) THEN NULL
        WHEN NOT EXISTS (SELECT 1 FROM perf_samples(@file) WHERE pid = t.pid)
             AND NOT EXISTS (SELECT 1 FROM perf_comms(@file) WHERE pid = t.pid)
             AND NOT EXISTS (SELECT 1 FROM perf_tasks(@file) WHERE pid = t.pid)
            THEN 'no process ' || t.pid || ' in this file (it has ' ||
                 (SELECT count(DISTINCT pid) FROM perf_samples(@file)) ||
                 ' with samples: sql/processes.sql lists them)'
        ELSE 'process ' || t.pid || ' has no MMAP or MMAP2 records in this file (a kernel thread has none)'
    END AS note
    -- the process the rows are of (the hottest is looked for only without @pid)
    FROM (SELECT coalesce(@pid, (SELECT pid FROM perf_samples(@file) WHERE pid > 0
                                 GROUP BY pid ORDER BY count(*) DESC, pid LIMIT 1)) AS pid) AS t
) WHERE note IS NOT NULL;

WITH target AS (
    SELECT coalesce(@pid, (SELECT pid FROM perf_samples(@file) WHERE pid > 0
                           GROUP BY pid ORDER BY count(*) DESC, pid LIMIT 1)) AS pid
),
m AS MATERIALIZED (
    SELECT * FROM perf_mmaps(@file) WHERE pid = (SELECT pid FROM target)
),
s AS MATERIALIZED (
    SELECT ip FROM perf_samples(@file) WHERE pid = (SELECT pid FROM target)
)
SELECT m.pid,
       printf('%016x', m.start) AS start,
       printf('%016x', m.start + m.len) AS "end",
       printf('%x', m.pgoff) AS pgoff,
       CASE WHEN m.prot IS NULL THEN NULL
            ELSE iif(m.prot & 1, 'r', '-') || iif(m.prot & 2, 'w', '-')
                 || iif(m.prot & 4, 'x', '-') || iif(m.flags & 1, 's', 'p') END AS perms,
       m.kind,
       (SELECT count(*) FROM s WHERE s.ip >= m.start AND s.ip - m.start < m.len) AS samples,
       m.filename,
       m.build_id
FROM m
ORDER BY m.record;
