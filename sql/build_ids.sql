-- build_ids.sql: the build-ids the file carries (the BUILD_ID header feature,
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
SELECT build_id, filename, group_concat(DISTINCT cpumode) AS cpumode,
       group_concat(DISTINCT source) AS source
FROM perf_build_ids(@file)
GROUP BY build_id, filename
ORDER BY filename, build_id;

.print '== executable mappings without a build-id'
-- The kernel's mapping is named [kernel.kallsyms]_text (or _stext), its
-- build-id [kernel.kallsyms], as in perf.
SELECT filename, count(*) AS mmaps
FROM perf_mmaps(@file)
WHERE executable = 1 AND build_id IS NULL
  AND iif(filename LIKE '[kernel.kallsyms]%', '[kernel.kallsyms]', filename)
      NOT IN (SELECT filename FROM perf_build_ids(@file))
GROUP BY filename
ORDER BY filename;
