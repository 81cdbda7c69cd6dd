-- overview.sql: what is in a perf.data file: the recording machine and
-- command (header features), the events and their samples, and the record
-- counts per type as `perf report --stats` prints them.
--
-- Every query in sql/ reads the file named by the SQL parameter @file:
--     scripts/perfsql perf.data overview
-- or by hand in the sqlite3 shell:
--     .load build/perfvtab              -- or `.load perfvtab` after make install
--     .param set @file 'perf.data'
--     .read sql/overview.sql

.print '== file'
-- seconds: from the first sample to the last.
SELECT @file AS file,
       (SELECT count(*) FROM perf_records(@file)) AS records,
       (SELECT count(*) FROM perf_events(@file)) AS events,
       samples,
       printf('%.3f', (last - first) / 1e9) AS seconds
FROM (SELECT count(*) AS samples, min(time) AS first, max(time) AS last
      FROM perf_samples(@file));

.print '== header'
-- nrcpus is JSON {"online","available"}, total_mem is in kB, cmdline is a
-- JSON array of the perf command's words.
SELECT name AS feature,
       CASE name
           WHEN 'nrcpus' THEN json_extract(value, '$.online') || ' online, '
                              || json_extract(value, '$.available') || ' available'
           WHEN 'total_mem' THEN printf('%d kB (%.1f GiB)', value, value / 1048576.0)
           WHEN 'cmdline' THEN (SELECT group_concat(j.value, ' ') FROM json_each(f.value) AS j)
           ELSE value
       END AS value
FROM perf_features(@file) AS f
WHERE name IN ('hostname', 'osrelease', 'version', 'arch', 'nrcpus', 'cpudesc',
               'total_mem', 'cmdline')
ORDER BY id;

.print '== events'
-- A sample without PERIOD in its sample_type counts as period 1, as in perf.
WITH s AS (
    SELECT event, count(*) AS samples, sum(coalesce(period, 1)) AS period
    FROM perf_samples(@file)
    GROUP BY event
)
SELECT e.idx, e.name AS event,
       CASE WHEN e.sample_freq IS NOT NULL THEN e.sample_freq || ' Hz'
            ELSE 'every ' || e.sample_period END AS sampling,
       e.sample_type,
       coalesce(s.samples, 0) AS samples,
       coalesce(s.period, 0) AS period
FROM perf_events(@file) AS e
LEFT JOIN s ON s.event = e.name
ORDER BY e.idx;

.print '== records'
-- One row per record type, as `perf report --stats` counts them: a
-- COMPRESSED container counts once, and so does each record inside it.
SELECT name AS type, count(*) AS records, sum(size) AS bytes
FROM perf_records(@file)
GROUP BY name
ORDER BY min(type), name;
