-- inclusive_profile.sql: each function's share of the samples counting the
-- samples it was on the stack for, as `perf report --children --sort sym`:
-- "children" is the period of the samples whose ip or callchain holds the
-- function (each sample once, however often the function recurs), "self"
-- the period of those whose ip is in it.  Percentages of the event's total.
-- Frames come from perf_callchains (frame-pointer or LBR callchains); a
-- frame without a symbol is its own row, named by its address.
--
--     scripts/perfsql perf.data inclusive_profile
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/inclusive_profile.sql

WITH samples AS (
    SELECT record AS sample, event, coalesce(period, 1) AS period, dso,
           coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym
    FROM perf_samples(@file)
),
frames AS (
    SELECT sample, event, period, dso, sym FROM samples
    UNION
    SELECT sample, event, coalesce(period, 1), dso,
           coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip)))
    FROM perf_callchains(@file)
),
totals AS (
    SELECT event, sum(period) AS total FROM samples GROUP BY event
),
children AS (
    SELECT event, dso, sym, count(*) AS samples, sum(period) AS period
    FROM frames GROUP BY event, dso, sym
),
self AS (
    SELECT event, dso, sym, sum(period) AS period FROM samples GROUP BY event, dso, sym
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
