-- callers_callees.sql: who calls function @sym and what it calls, from the callchains
-- @param sym text optional: the function (default: the one with the most samples)
--
-- Who calls the function @sym and what it calls, from
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
        WHEN @sym IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM perf_samples(@file)
                             WHERE coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) = @sym)
             AND NOT EXISTS (SELECT 1 FROM perf_callchains(@file)
                             WHERE coalesce(sym, printf('0x%016x', coalesce(dso_offset, ip))) = @sym)
            THEN 'no function ' || quote(@sym) || ' in the samples or their callchains' || coalesce('; functions like it: ' ||
                          (SELECT group_concat(name, ', ') FROM (
                               SELECT DISTINCT sym AS name FROM perf_samples(@file)
                               WHERE name LIKE '%' || @sym || '%' ORDER BY name LIMIT 5)),
                          '; sql/flat_profile.sql lists the functions with samples')
        END AS note
    UNION ALL
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE sample_type LIKE '%CALLCHAIN%')
            THEN 'no callers or callees, only self: the file has no callchains; record with `perf record -g`'
        END AS note
) WHERE note IS NOT NULL;

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
