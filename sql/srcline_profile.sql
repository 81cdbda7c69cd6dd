-- srcline_profile.sql: the source lines the samples fall on, as
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
