-- annotate.sql: the source lines of function @sym with their samples, as perf annotate -l
-- @param sym text optional: the function (default: the one with the most samples)
--
-- The source lines of the function @sym (default: the function
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
        WHEN @sym IS NOT NULL AND NOT EXISTS (
                 SELECT 1 FROM perf_samples(@file)
                 WHERE coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) = @sym)
            THEN 'no samples in function ' || quote(@sym) || coalesce('; functions like it: ' ||
                          (SELECT group_concat(name, ', ') FROM (
                               SELECT DISTINCT sym AS name FROM perf_samples(@file)
                               WHERE name LIKE '%' || @sym || '%' ORDER BY name LIMIT 5)),
                          '; sql/flat_profile.sql lists the functions with samples')
        END AS note
) WHERE note IS NOT NULL;

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
