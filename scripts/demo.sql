-- demo.sql: the tour `make demo` prints (scripts/demo.sh runs it with the
-- extension loaded and @file set to the bundled example profile).

.read sql/overview.sql

.print
.print '== samples per process (sql/samples_by_process.sql)'
.read sql/samples_by_process.sql

.print
.print '== mmaps per file'
SELECT filename, count(*) AS mmaps, group_concat(DISTINCT kind) AS kind,
       count(DISTINCT pid) AS processes
FROM perf_mmaps(@file)
GROUP BY filename
ORDER BY mmaps DESC, filename;

.print
.print '== samples per mapped file'
-- A join: each sample's ip against the mappings of its process (or the
-- kernel's, pid -1) that came before it in the file; the latest one wins.
WITH m AS MATERIALIZED (SELECT record, pid, start, len, filename FROM perf_mmaps(@file)),
hit AS (
    SELECT s.record, m.filename, max(m.record)
    FROM perf_samples(@file) AS s
    LEFT JOIN m ON m.pid IN (s.pid, -1) AND m.record < s.record
               AND s.ip >= m.start AND s.ip - m.start < m.len
    GROUP BY s.record
)
SELECT coalesce(filename, '[unknown]') AS file, count(*) AS samples,
       printf('%.2f', 100.0 * count(*) / sum(count(*)) OVER ()) AS "samples%"
FROM hit
GROUP BY file
ORDER BY samples DESC, file;
