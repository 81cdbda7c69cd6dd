-- inclusive_profile.sql: each function's share of the samples counting the
-- samples it was on the stack for, as `perf report --children --sort sym`:
-- "children" is the period of the samples whose ip or callchain holds the
-- function (each sample once, however often the function recurs), "self"
-- the period of those whose ip is in it.  Percentages of the event's total.
-- Frames come from perf_callchains (frame-pointer or LBR callchains); its
-- repeated column drops the second and later frames of a function within a
-- sample.  A frame without a symbol is its own row, named by its address.
--
--     scripts/perfsql perf.data inclusive_profile
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/inclusive_profile.sql

WITH samples AS (
    SELECT event, coalesce(period, 1) AS period, dso,
           coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym
    FROM perf_samples(@file)
),
self AS (
    SELECT event, dso, sym, count(*) AS samples, sum(period) AS period
    FROM samples GROUP BY sym, dso, event
),
-- frames of functions not yet counted for their sample (repeated = 0):
-- together with the samples' own, each function once per sample
callers AS (
    SELECT event, dso, coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym,
           count(*) AS samples, sum(coalesce(period, 1)) AS period
    FROM perf_callchains(@file)
    WHERE repeated = 0
    GROUP BY 3, dso, event
),
children AS (
    SELECT event, dso, sym, sum(samples) AS samples, sum(period) AS period
    FROM (SELECT * FROM self UNION ALL SELECT * FROM callers)
    GROUP BY sym, dso, event
),
totals AS (
    SELECT event, sum(period) AS total FROM self GROUP BY event
)
SELECT c.event, c.sym,
       coalesce(replace(c.dso, rtrim(c.dso, replace(c.dso, '/', '')), ''), '[unknown]') AS dso,
       c.samples,
       round(100.0 * c.period / t.total, 4) AS children,
       round(100.0 * coalesce(s.period, 0) / t.total, 4) AS self
FROM children c
JOIN totals t ON t.event = c.event
LEFT JOIN self s ON s.event = c.event AND s.dso IS c.dso AND s.sym = c.sym
ORDER BY c.event, c.period DESC, c.sym;
