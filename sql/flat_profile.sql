-- flat_profile.sql: each function's share of the samples, as
-- `perf report --no-children --sort dso,sym` computes it: per event, the
-- period of the samples whose ip falls in the function, over all samples'.
-- dso is perf's short name (the file name; [kernel.kallsyms], [module]);
-- dso_path the mapped file.  An ip without a symbol is its own row named by
-- its address in the dso (or the ip when no map holds it), as perf shows it.
--
--     scripts/perfsql perf.data flat_profile
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/flat_profile.sql

WITH s AS (
    SELECT event, coalesce(period, 1) AS period, dso,
           coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym
    FROM perf_samples(@file)
),
by_function AS (
    -- sym first: the sort behind GROUP BY settles most comparisons on it
    SELECT event, dso, sym, count(*) AS samples, sum(period) AS period
    FROM s
    GROUP BY sym, dso, event
)
SELECT event,
       coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), ''), '[unknown]') AS dso,
       sym,
       samples,
       period,
       round(100.0 * period / sum(period) OVER (PARTITION BY event), 4) AS percent,
       dso AS dso_path
FROM by_function
ORDER BY event, period DESC, dso, sym;
