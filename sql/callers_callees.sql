-- callers_callees.sql: who calls the function @sym and what it calls, from
-- the samples' callchains (default @sym: the function with the most samples).
-- relation 'self': the samples whose ip is in @sym; 'caller': the frames one
-- deeper than a frame of @sym; 'callee': the frames one shallower.  samples
-- counts each sample once per row; pct_of_sym_samples is of the samples with
-- @sym on the stack (or, without callchains, in it), not of all samples as
-- perf report's percentages are: do not compare the two.  A function is
-- named as in every table (docs/schema.md, "One name per frame"): by its
-- symbol, a clone's too (@sym 'msort_with_tmp.part.0', on --call-graph dwarf
-- and frame-pointer recordings alike); a function inlined at DWARF-unwound
-- frames by its debug-info name, with callers and callees but no self row
-- (a sample's own function is the one holding the code, as perf report's
-- self column has it).
--
--     scripts/perfsql -p "sym='malloc'" perf.data callers_callees
-- or in the sqlite3 shell:
--     .param set @file 'perf.data'
--     .param set @sym 'malloc'
--     .read sql/callers_callees.sql

WITH samples AS MATERIALIZED (
    SELECT record AS sample, coalesce(period, 1) AS period, dso,
           coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym
    FROM perf_samples(@file)
),
target_sym AS (
    SELECT coalesce(@sym, (SELECT sym FROM samples GROUP BY sym
                           ORDER BY count(*) DESC, sym LIMIT 1)) AS name
),
frames AS MATERIALIZED (
    SELECT sample, depth, coalesce(period, 1) AS period, dso,
           coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) AS sym
    FROM perf_callchains(@file)
),
target AS (
    SELECT sample, depth, period FROM frames WHERE sym = (SELECT name FROM target_sym)
),
on_stack AS (
    SELECT max((SELECT count(DISTINCT sample) FROM target),
               (SELECT count(*) FROM samples WHERE sym = (SELECT name FROM target_sym))) AS samples
),
pairs AS (
    SELECT 'self' AS relation, sample, period, dso, sym
    FROM samples WHERE sym = (SELECT name FROM target_sym)
    UNION
    SELECT 'caller', t.sample, t.period, f.dso, f.sym
    FROM target t JOIN frames f ON f.sample = t.sample AND f.depth = t.depth + 1
    UNION
    SELECT 'callee', t.sample, t.period, f.dso, f.sym
    FROM target t JOIN frames f ON f.sample = t.sample AND f.depth = t.depth - 1
)
SELECT relation, sym,
       CASE WHEN dso GLOB '/tmp/perf-[0-9]*.map' THEN '[JIT] tid ' || substr(dso, 11, length(dso) - 14)
            ELSE coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), ''), '[unknown]') END AS dso,
       count(*) AS samples, sum(period) AS period,
       round(100.0 * count(*) / (SELECT samples FROM on_stack), 2) AS pct_of_sym_samples
FROM pairs
GROUP BY relation, dso, sym
ORDER BY relation = 'self' DESC, relation DESC, samples DESC, sym;
