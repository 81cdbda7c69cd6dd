-- diff.sql: what changed between two profiles, as `perf diff @base @file`
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
