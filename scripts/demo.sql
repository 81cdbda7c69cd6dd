-- demo.sql: the tour `make demo` prints (scripts/demo.sh runs it with the
-- extension loaded and @file set to the bundled example profile).

-- The example's workload binary is not at its recorded path on other
-- machines: the repository ships a copy, found by build-id in this
-- directory (a file of another machine finds nothing there: harmless).
.output /dev/null
SELECT perf_symbol_path(NULL, 'tests/fixtures/symbols');
.output

.read sql/overview.sql

.print
.print '== samples per process (sql/samples_by_process.sql)'
.read sql/samples_by_process.sql

.print
.print '== hottest functions (perf_profile: self and with callees, % of all samples)'
-- name: the function, or where no symbol is known (a kernel not this
-- machine's, say) its address, as perf report shows it
SELECT dso_name AS dso, name AS function, samples,
       printf('%.2f', 100.0 * samples / total) AS "self%",
       printf('%.2f', 100.0 * children_samples / total) AS "children%"
FROM perf_profile(@file), (SELECT count(*) AS total FROM perf_samples(@file))
ORDER BY samples DESC, children_samples DESC LIMIT 8;

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
-- kernel's, pid -1) made before it; the latest one wins.  By time, not by
-- record: perf writes each CPU's buffer in turn, so a sample can come in
-- the file before the MMAP of its binary.
WITH m AS MATERIALIZED (SELECT time, pid, start, len, filename FROM perf_mmaps(@file)),
hit AS (
    SELECT s.record, m.filename, max(m.time)
    FROM perf_samples(@file) AS s
    LEFT JOIN m ON m.pid IN (s.pid, -1) AND m.time <= s.time
               AND s.ip >= m.start AND s.ip - m.start < m.len
    GROUP BY s.record
)
SELECT coalesce(filename, '[unknown]') AS file, count(*) AS samples,
       printf('%.2f', 100.0 * count(*) / sum(count(*)) OVER ()) AS "samples%"
FROM hit
GROUP BY file
ORDER BY samples DESC, file;
