-- record_stats.sql: how many records of each type the file holds, what
-- readperf wrote as stat.csv (and the counts `perf report --stats` prints).
--
--     scripts/perfsql perf.data record_stats
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/record_stats.sql

SELECT name AS type, count(*) AS records, sum(size) AS bytes
FROM perf_records(@file)
GROUP BY name
ORDER BY records DESC, name;
