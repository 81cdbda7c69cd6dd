-- process_mappings.sql: the memory mappings perf recorded for one process
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
