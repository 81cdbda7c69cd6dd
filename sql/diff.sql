-- diff.sql: what changed from @base to @file per function, as perf diff
-- @param base path required: the recording to compare with (before; @file is after)
--
-- What changed between two profiles, as `perf diff @base @file`
-- (compute delta, its default delta-abs order): per event and function,
--   baseline  the function's share of @base's period, in percent;
--   delta     its share of @file's period minus baseline, in points;
--   dso, sym  the function (dso is perf's short name, dso_path the file);
--   base_samples, new_samples  its samples in each profile.
-- Functions are matched by event, mapped file and name.  A function absent from @base has a
-- NULL baseline; one absent from @file has delta = -baseline (perf diff
-- prints no delta there).  Addresses without a symbol are one row per file
-- (sym NULL), as perf diff merges them.
--
--     scripts/perfsql -p "base='old.data'" new.data diff
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @base 'old.data'
--     .param set @file 'new.data'
--     .read sql/diff.sql

-- Why the rows are none (or what they lack), when they are: a note
-- (nothing when there is nothing to say).
SELECT note FROM (
    SELECT CASE
        WHEN @base IS NULL THEN 'the base recording is not set: the parameter base names it (perfsql -p base=old.data)'
        WHEN NOT EXISTS (SELECT 1 FROM perf_samples(@base)) THEN CASE
                WHEN EXISTS (SELECT 1 FROM perf_records(@base) WHERE name = 'STAT')
                    THEN 'no samples in the base recording: a `perf stat record` file holds counts, not samples; its counts are in the perf_stats table'
                WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@base) WHERE severity = 'error')
                    THEN 'no samples could be read from the base recording: it is damaged (sql/overview.sql shows how)'
                WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@base) WHERE kind = 'unfinished_recording')
                    THEN 'no samples in the base recording: perf record was stopped (killed?) before it wrote any'
                ELSE 'no samples in the base recording: record some with `perf record -F 999 -g -- PROGRAM`' END
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

WITH base AS (
    SELECT event, dso AS dso_path, sym, sum(samples) AS samples, sum(period) AS period
    FROM perf_profile(@base) WHERE samples > 0 GROUP BY event, dso, sym
), new AS (
    SELECT event, dso AS dso_path, sym, sum(samples) AS samples, sum(period) AS period
    FROM perf_profile(@file) WHERE samples > 0 GROUP BY event, dso, sym
), base_share AS (
    SELECT *, 100.0 * period / sum(period) OVER (PARTITION BY event) AS percent FROM base
), new_share AS (
    SELECT *, 100.0 * period / sum(period) OVER (PARTITION BY event) AS percent FROM new
), paired AS (
    SELECT coalesce(n.event, b.event) AS event,
           coalesce(n.dso_path, b.dso_path) AS dso_path,
           coalesce(n.sym, b.sym) AS sym,
           b.percent AS baseline,
           coalesce(n.percent, 0) - coalesce(b.percent, 0) AS delta,
           coalesce(b.samples, 0) AS base_samples,
           coalesce(n.samples, 0) AS new_samples
    FROM new_share n FULL OUTER JOIN base_share b
         ON b.event = n.event AND b.dso_path IS n.dso_path AND b.sym IS n.sym
)
SELECT event,
       round(baseline, 4) AS baseline,
       round(delta, 4) AS delta,
       CASE WHEN dso_path GLOB '/tmp/perf-[0-9]*.map' THEN '[JIT] tid ' || substr(dso_path, 11, length(dso_path) - 14)
            ELSE coalesce(replace(dso_path, rtrim(dso_path, replace(dso_path, '/', '')), ''), '[unknown]') END AS dso,
       sym,
       base_samples,
       new_samples,
       dso_path
FROM paired
ORDER BY event, abs(delta) DESC, baseline DESC, dso_path, sym;
