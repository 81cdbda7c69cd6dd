-- record_stats.sql: records and bytes per record type (readperf's stat.csv; perf report --stats)
--
-- How many records of each type the file holds, what
-- readperf wrote as stat.csv (and the counts `perf report --stats` prints).
--
--     scripts/perfsql perf.data record_stats
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/record_stats.sql

-- Why there are no rows, when there are none: a note.
SELECT note FROM (
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_records(@file))
            THEN 'no records in this file: its data section is empty' ||
                 CASE WHEN EXISTS (SELECT 1 FROM perf_diagnostics(@file)
                                   WHERE kind = 'unfinished_recording')
                      THEN ' (perf record was stopped, killed?, before it wrote any)' ELSE '' END
    END AS note
) WHERE note IS NOT NULL;

SELECT name AS type, count(*) AS records, sum(size) AS bytes
FROM perf_records(@file)
GROUP BY name
ORDER BY records DESC, name;
