-- annotate.sql: the source lines of the function @sym (default: the function
-- with the most samples) with their samples, the line-level half of
-- `perf annotate`: each line's share of the function's period (perf's
-- "percent: local period").  location is perf's label, the file's name and
-- the line; srcfile the path as the debug info has it.  Samples in @sym
-- without line info (no debug info) are one row with NULL srcfile and
-- srcline.  An address without a symbol is its own function, named by its
-- address in the dso (or the ip when no map holds it), as in
-- callers_callees.sql.
-- perf_percent is the percent perf annotate --stdio -l prints in its
-- "Sorted summary": perf leaves out of it the instructions that have 0.5%
-- of the function's period or less (still counting them in the total), and
-- a line left with none of its instructions is not listed (perf_percent 0).
--
--     scripts/perfsql -p "sym='main'" perf.data annotate
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .param set @sym 'main'
--     .read sql/annotate.sql

WITH samples AS MATERIALIZED (
    SELECT event, coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym, dso,
           coalesce(sym_offset, dso_offset, ip) AS sym_offset, srcfile, srcline,
           coalesce(period, 1) AS period
    FROM perf_samples(@file)
),
target AS (
    SELECT coalesce(@sym, (SELECT sym FROM samples GROUP BY sym
                           ORDER BY count(*) DESC, sym LIMIT 1)) AS name
),
instructions AS (
    SELECT event, dso, sym_offset, srcfile, srcline, count(*) AS samples, sum(period) AS period
    FROM samples
    WHERE sym = (SELECT name FROM target)
    GROUP BY event, dso, sym_offset
),
shares AS (
    SELECT *, 100.0 * period / sum(period) OVER (PARTITION BY event, dso) AS percent
    FROM instructions
),
lines AS (
    SELECT event, dso, srcfile, srcline, sum(samples) AS samples, sum(period) AS period,
           sum(percent) AS percent,
           sum(CASE WHEN percent > 0.5 THEN percent ELSE 0 END) AS perf_percent
    FROM shares
    GROUP BY event, dso, srcfile, srcline
)
SELECT event, (SELECT name FROM target) AS sym,
       replace(srcfile, rtrim(srcfile, replace(srcfile, '/', '')), '') || ':' || srcline AS location,
       samples, period, round(percent, 4) AS percent, round(perf_percent, 4) AS perf_percent,
       srcfile, srcline, dso
FROM lines
ORDER BY event, dso, period DESC, location;
