-- srcline_profile.sql: the source lines the samples fall on, as perf report --sort srcline
--
-- The source lines the samples fall on, as
-- `perf report --no-children --sort srcline` shows them: per event, the
-- period of the samples at each line over all samples' period.  location is
-- perf's label: the file's name (without its directories) and the line;
-- perf_samples.srcfile keeps the path as the debug info has it.  A sample
-- without line info (no debug info, the kernel without a vmlinux) is its
-- own row named as perf names it: function+offset (decimal), else the dso
-- and the address.
--
--     scripts/perfsql perf.data srcline_profile
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/srcline_profile.sql

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

WITH lines AS (
    SELECT event, srcfile, srcline,
           CASE WHEN srcline IS NOT NULL
                THEN replace(srcfile, rtrim(srcfile, replace(srcfile, '/', '')), '') || ':' || srcline
                WHEN sym IS NOT NULL THEN sym || '+' || sym_offset
                ELSE coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), ''), '[unknown]')
                     || printf('[%x]', coalesce(dso_offset, ip)) END AS location,
           count(*) AS samples,
           sum(coalesce(period, 1)) AS period
    FROM perf_samples(@file)
    GROUP BY event, location, srcfile
)
SELECT event, location, samples, period,
       round(100.0 * period / sum(period) OVER (PARTITION BY event), 4) AS percent,
       srcfile, srcline
FROM lines
ORDER BY event, period DESC, location;
