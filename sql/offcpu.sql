-- offcpu.sql: off-CPU time per function on the stacks threads left the CPU with (hotspot's off-CPU view)
-- @param method text optional: sched_switch or bpf, when the file has both (default: sched_switch)
--
-- Off-CPU time per function, as hotspot's off-CPU view: for
-- each function on the stacks threads left the CPU with, the time they
-- spent off CPU with it on the stack (ns, each interval once per function,
-- however often it recurs), the number of those intervals, and its share
-- of all off-CPU time.  Only intervals with both ends in the recording
-- count (perf_offcpu.duration is NULL for the others).  A recording
-- without callchains (no -g) has no stacks: its time is "[no stack]".
-- Record with
--     perf record -g -e cpu-clock -e sched:sched_switch --switch-events -- PROGRAM
-- or, where perf is built with BPF, `perf record --off-cpu -- PROGRAM`, whose
-- offcpu-time samples each sum a thread's off-CPU time with one user stack
-- (perf_offcpu's method 'bpf'; its duration is that sum), then
--     scripts/perfsql perf.data offcpu
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/offcpu.sql

-- Why the rows are none (or what they lack), when they are: a note
-- (nothing when there is nothing to say).
SELECT note FROM (
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE name IN ('sched:sched_switch', 'offcpu-time'))
            THEN 'no sched:sched_switch or offcpu-time samples: record with `perf record -g -e cpu-clock -e sched:sched_switch --switch-events -- PROGRAM` (or `perf record --off-cpu`, where perf is built with BPF)'
        WHEN NOT EXISTS (SELECT 1 FROM perf_samples(@file) WHERE event IN ('sched:sched_switch', 'offcpu-time'))
            THEN 'no sched:sched_switch or offcpu-time samples: the event was recorded but no thread left a CPU'
        WHEN NOT EXISTS (SELECT 1 FROM perf_switches(@file) WHERE direction = 'in')
             AND NOT EXISTS (SELECT 1 FROM perf_offcpu(@file) WHERE duration IS NOT NULL)
            THEN 'no off-CPU interval has both ends: no switch-in was recorded; record with --switch-events (or system-wide, -a)'
        END AS note
    UNION ALL
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE sample_type LIKE '%CALLCHAIN%')
            THEN 'every interval is [no stack]: the file has no callchains; record with `perf record -g`'
        END AS note
) WHERE note IS NOT NULL;

WITH offcpu AS MATERIALIZED (
    SELECT record, duration, stack, method FROM perf_offcpu(@file) WHERE duration IS NOT NULL
),
intervals AS (
    -- one method's rows, so that no time counts twice: @method, else
    -- sched_switch's when the file has them (each interval with its ends),
    -- else bpf's (perf record --off-cpu's sums)
    SELECT record, duration, stack FROM offcpu
    WHERE method = coalesce(@method, (SELECT method FROM offcpu ORDER BY method <> 'sched_switch' LIMIT 1))
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
