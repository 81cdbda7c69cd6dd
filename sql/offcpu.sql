-- offcpu.sql: off-CPU time per function, as hotspot's off-CPU view: for
-- each function on the stacks threads left the CPU with, the time they
-- spent off CPU with it on the stack (ns, each interval once per function,
-- however often it recurs), the number of those intervals, and its share
-- of all off-CPU time.  Only intervals with both ends in the recording
-- count (perf_offcpu.duration is NULL for the others).  A recording
-- without callchains (no -g) has no stacks: its time is "[no stack]".
-- Record with
--     perf record -g -e cpu-clock -e sched:sched_switch --switch-events -- PROGRAM
-- then
--     scripts/perfsql perf.data offcpu
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/offcpu.sql

WITH intervals AS MATERIALIZED (
    SELECT record, duration, stack FROM perf_offcpu(@file) WHERE duration IS NOT NULL
),
on_stack AS (
    SELECT DISTINCT i.record, f.value AS function, i.duration
    FROM intervals i, json_each(coalesce(i.stack, '["[no stack]"]')) f
)
SELECT function,
       sum(duration) AS offcpu_ns,
       count(*) AS intervals,
       round(100.0 * sum(duration) / (SELECT sum(duration) FROM intervals), 2) AS percent
FROM on_stack
GROUP BY function
ORDER BY offcpu_ns DESC, function;
