-- overview.sql: what a recording holds, and what is wrong with it
--
-- The file (records, events, samples, time span); the damage perfvtab found
-- (perf_diagnostics' errors and warnings) and the events lost, with their
-- counts; the recording machine and command (header features); the events
-- and their samples; the record counts per type as `perf report --stats`
-- prints them.  A section with nothing to show says so in a row, and text
-- that spans lines (a `python3 -c` cmdline) is shown escaped, \n for a line
-- break, so that each row stays one line.
--
-- Every query in sql/ reads the file named by the SQL parameter @file:
--     perfsql perf.data overview
-- or by hand in the sqlite3 shell:
--     .load build/perfvtab              -- or `.load perfvtab` after make install
--     .param set @file 'perf.data'
--     .read sql/overview.sql

.print '== file'
-- seconds: from the first sample to the last.
SELECT replace(replace(replace(replace(@file, '\', '\\'), char(10), '\n'), char(13), '\r'),
               char(9), '\t') AS file,
       (SELECT count(*) FROM perf_records(@file)) AS records,
       (SELECT count(*) FROM perf_events(@file)) AS events,
       samples,
       printf('%.3f', (last - first) / 1e9) AS seconds
FROM (SELECT count(*) AS samples, min(time) AS first, max(time) AS last
      FROM perf_samples(@file));

.print '== diagnostics'
-- What the reader skipped or distrusted (docs/schema.md, perf_diagnostics):
-- errors first, then warnings; count is how many records, value the kind's
-- quantity (lost events, bytes dropped, ...).  Info rows are only counted.
WITH d AS MATERIALIZED (
    SELECT * FROM perf_diagnostics(@file)
)
SELECT severity, kind, count, value,
       replace(replace(replace(replace(message, '\', '\\'), char(10), '\n'), char(13), '\r'),
               char(9), '\t') AS message
FROM d
WHERE severity IN ('error', 'warning')
UNION ALL
SELECT 'none', NULL, NULL, NULL,
       'no errors or warnings' ||
       CASE WHEN (SELECT count(*) FROM d) > 0
            THEN ' (' || (SELECT count(*) FROM d) || ' info rows in perf_diagnostics)'
            ELSE '' END
WHERE NOT EXISTS (SELECT 1 FROM d WHERE severity IN ('error', 'warning'))
ORDER BY 1, 2;

.print '== lost events'
-- LOST records: the ring buffer was full and the kernel dropped events
-- (perf's "lost N chunks"); LOST_SAMPLES: the kernel dropped samples (perf
-- report's "Total Lost Samples").  records counts the records, lost what
-- they say was lost.
WITH l AS MATERIALIZED (
    SELECT kind, event, lost FROM perf_lost(@file)
)
SELECT kind, coalesce(event, '?') AS event, count(*) AS records, sum(lost) AS lost
FROM l
GROUP BY kind, event
UNION ALL
SELECT 'none', NULL, 0, 0
WHERE NOT EXISTS (SELECT 1 FROM l)
ORDER BY 1, 2;

.print '== header'
-- nrcpus is JSON {"online","available"}, total_mem is in kB, cmdline is a
-- JSON array of the perf command's words.  A file without these features
-- (perf record killed before it wrote them) gets one row saying so.
-- A file without the arch feature shows the architecture its e_machine
-- feature (perf 7) names, saying so.
WITH shown AS (
    SELECT CASE name WHEN 'e_machine' THEN 6 ELSE id END AS id,
           CASE name WHEN 'e_machine' THEN 'arch' ELSE name END AS name,
           CASE name
               WHEN 'nrcpus' THEN json_extract(value, '$.online') || ' online, '
                                  || json_extract(value, '$.available') || ' available'
               WHEN 'total_mem' THEN printf('%d kB (%.1f GiB)', value, value / 1048576.0)
               WHEN 'cmdline' THEN (SELECT group_concat(j.value, ' ') FROM json_each(f.value) AS j)
               WHEN 'e_machine' THEN json_extract(value, '$.arch') || ' (from e_machine)'
               ELSE value
           END AS value
    FROM perf_features(@file) AS f
    WHERE name IN ('hostname', 'osrelease', 'version', 'arch', 'nrcpus', 'cpudesc',
                   'total_mem', 'cmdline')
       OR (name = 'e_machine' AND json_extract(value, '$.arch') IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM perf_features(@file) WHERE name = 'arch'))
)
SELECT feature, value FROM (
    SELECT id, name AS feature,
           replace(replace(replace(replace(value, '\', '\\'), char(10), '\n'), char(13), '\r'),
                   char(9), '\t') AS value
    FROM shown
    UNION ALL
    SELECT -1, '(none)',
           CASE WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@file)
                             WHERE kind = 'unfinished_recording')
                THEN 'no header features: perf record was stopped before it wrote them ' ||
                     '(killed?); see == diagnostics'
                ELSE 'no header features in this file' END
    WHERE NOT EXISTS (SELECT 1 FROM shown)
)
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
