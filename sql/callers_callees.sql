-- callers_callees.sql: who calls the function @sym, and what it calls, from
-- the samples' callchains.  relation 'caller': the frame one deeper than a
-- frame of @sym; 'callee': the frame one shallower.  samples counts each
-- sample once per pair; percent is of the samples that have @sym on stack.
--
--     sqlite3: .param set @file 'perf.data'
--              .param set @sym 'malloc'
--              .read sql/callers_callees.sql

WITH frames AS MATERIALIZED (
    SELECT sample, depth, coalesce(period, 1) AS period, dso,
           coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym
    FROM perf_callchains(@file)
),
target AS (
    SELECT sample, depth, period FROM frames WHERE sym = @sym
),
on_stack AS (
    SELECT count(DISTINCT sample) AS samples FROM target
),
pairs AS (
    SELECT DISTINCT 'caller' AS relation, t.sample, t.period, f.dso, f.sym
    FROM target t JOIN frames f ON f.sample = t.sample AND f.depth = t.depth + 1
    UNION
    SELECT DISTINCT 'callee', t.sample, t.period, f.dso, f.sym
    FROM target t JOIN frames f ON f.sample = t.sample AND f.depth = t.depth - 1
)
SELECT relation, sym,
       coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), ''), '[unknown]') AS dso,
       count(*) AS samples, sum(period) AS period,
       round(100.0 * count(*) / (SELECT samples FROM on_stack), 2) AS percent
FROM pairs
GROUP BY relation, dso, sym
ORDER BY relation DESC, samples DESC, sym;
