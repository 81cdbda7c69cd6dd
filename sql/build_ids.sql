-- build_ids.sql: the build-ids the file carries, and the executable mappings without one
--
-- The build-ids the file carries (the BUILD_ID header feature,
-- HEADER_BUILD_ID records, MMAP2 records of perf record --buildid-mmap), per
-- file; then the executable mappings for which the file has no build-id
-- (symbols for those can only be looked up by path).  perf record stores the
-- build-ids of the files its samples hit, so the second list is often long.
--
-- Every query in sql/ reads the file named by the SQL parameter @file:
--     scripts/perfsql perf.data build_ids
-- or by hand in the sqlite3 shell:
--     .load build/perfvtab              -- or `.load perfvtab` after make install
--     .param set @file 'perf.data'
--     .read sql/build_ids.sql

.print '== build-ids'
-- A file without any says why in a row: build_id '(none)'.
WITH b AS MATERIALIZED (
    SELECT build_id, filename, group_concat(DISTINCT cpumode) AS cpumode,
           group_concat(DISTINCT source) AS source
    FROM perf_build_ids(@file)
    GROUP BY build_id, filename
)
SELECT build_id, filename, cpumode, source FROM (
    SELECT * FROM b
    UNION ALL
    SELECT '(none)',
           CASE WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@file) WHERE kind = 'unfinished_recording')
                THEN 'perf record was stopped (killed?) before it wrote them; ' ||
                     '`perf record --buildid-mmap` puts them in the MMAP2 records as it goes'
                ELSE 'perf record wrote none: -B (--no-buildid) leaves them out; without it perf ' ||
                     'writes those of the files its samples hit, with --buildid-all of every file mapped'
           END, NULL, NULL
    WHERE NOT EXISTS (SELECT 1 FROM b)
)
ORDER BY filename, build_id;

.print '== executable mappings without a build-id'
-- The kernel's mapping is named [kernel.kallsyms]_text (or _stext), its
-- build-id [kernel.kallsyms], as in perf.
-- None says so in a row: filename '(none)'.
WITH m AS MATERIALIZED (
    SELECT filename, count(*) AS mmaps
    FROM perf_mmaps(@file)
    WHERE executable = 1 AND build_id IS NULL
      AND iif(filename LIKE '[kernel.kallsyms]%', '[kernel.kallsyms]', filename)
          NOT IN (SELECT filename FROM perf_build_ids(@file))
    GROUP BY filename
)
SELECT filename, mmaps FROM (
    SELECT * FROM m
    UNION ALL
    SELECT '(none)', 0 WHERE NOT EXISTS (SELECT 1 FROM m)
)
ORDER BY filename;
