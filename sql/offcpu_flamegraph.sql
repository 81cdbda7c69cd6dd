-- offcpu_flamegraph.sql: writes one flame graph of on-CPU and off-CPU time to an SVG file (oncpu_offcpu.svg)
-- @param event text optional: the on-CPU time event, cpu-clock or task-clock (default: the file's first)
-- @param svg text optional: the SVG file to write (default: oncpu_offcpu.svg)
-- @param title text optional: the title
-- @param method text optional: the off-CPU rows' method, sched_switch or bpf, when the file has both (default: sched_switch)
--
-- Writes one flame graph of where threads ran and where
-- they waited -- on-CPU and off-CPU time together, both in ns, off-CPU frames
-- in blue tones, on-CPU frames warm (Brendan Gregg's hot/cold flame graphs) --
-- to oncpu_offcpu.svg unless @svg names another, and prints the file, its
-- size, the two totals and the intervals left out.  Record with
--     perf record -g -e cpu-clock -e sched:sched_switch --switch-events -- PROGRAM
-- then
--     scripts/perfsql perf.data offcpu_flamegraph
--     scripts/perfsql -p "svg='hot_cold.svg'" perf.data offcpu_flamegraph
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @file 'perf.data'
--     .read sql/offcpu_flamegraph.sql
--
-- On-CPU: the samples of the file's time event -- cpu-clock or task-clock,
-- whose period is the ns the CPU ran between two samples -- weighted by that
-- period: "comm;root;...;leaf" as folded_stacks.sql folds them.  @event picks
-- one when the file has both.  Other events' samples (sched:sched_switch
-- itself, cycles, ...) are not time and are left out: a file without
-- cpu-clock or task-clock samples, or an @event that is not one of them, gives
-- only the off-CPU part, and the title says so.
-- Off-CPU: perf_offcpu's intervals weighted by duration (ns) -- of one
-- method: sched_switch's, or, in a `perf record --off-cpu` file without
-- them, the offcpu-time samples' sums (method 'bpf', stacks of user frames) --
-- each folded as
-- "comm;[off-cpu];root;...;leaf" from its sched_switch sample's call chain
-- (perf_callchains of its record, named as the on-CPU frames are; the same
-- frames as perf_offcpu.stack), "[no stack]" without one (no -g).  The
-- renderer draws the "[off-cpu]" frame and everything above it in blue
-- (docs/schema.md, perf_flamegraph), so each process has an on-CPU and an
-- off-CPU tower side by side, and a function that is in both (main) has a
-- frame in each.  Intervals the recording cuts (perf_offcpu.outside set,
-- duration NULL) have no length: they are left out, and counted in the
-- title and in the `cut_intervals` column.
-- Hovering a frame shows "name (N ns = X ms, P%)"; the subtitle gives the
-- total and the off-CPU part.  @title sets the title.

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
        WHEN @event IS NOT NULL AND NOT EXISTS (SELECT 1 FROM perf_events(@file)
                                                WHERE name = @event AND type = 1 AND config IN (0, 1))
            THEN 'no on-CPU part: ' || quote(@event) || ' is not a cpu-clock or task-clock event of this file; its events: ' ||
                 (SELECT group_concat(name, ', ') FROM perf_events(@file))
        WHEN @event IS NULL AND NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE type = 1 AND config IN (0, 1))
            THEN 'no on-CPU part: no cpu-clock or task-clock event; record with `-e cpu-clock` too'
        END AS note
    UNION ALL
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE sample_type LIKE '%CALLCHAIN%')
            THEN 'every stack is its sample''s own function, or [no stack]: the file has no callchains; record with `perf record -g`'
        END AS note
) WHERE note IS NOT NULL;

WITH time_events AS (
    -- PERF_TYPE_SOFTWARE's cpu-clock (0) and task-clock (1): periods in ns
    SELECT idx, name FROM perf_events(@file) WHERE type = 1 AND config IN (0, 1)
),
oncpu_event AS (
    SELECT coalesce((SELECT name FROM time_events WHERE name = @event),
                    CASE WHEN @event IS NULL THEN (SELECT name FROM time_events ORDER BY idx LIMIT 1) END)
               AS event
),
chain AS MATERIALIZED (
    -- both events' stacks: the on-CPU samples' and the sched_switch samples'
    SELECT sample,
           perf_folded(perf_frame_name(sym, dso, ip), depth) AS frames
    FROM perf_callchains(@file)
    GROUP BY sample
),
offcpu AS MATERIALIZED (
    SELECT record, pid, tid, comm, duration, method FROM perf_offcpu(@file)
),
intervals AS MATERIALIZED (
    -- one method's rows, so that no time counts twice: @method, else
    -- sched_switch's when the file has them, else bpf's (perf record --off-cpu)
    SELECT record, pid, tid, comm, duration FROM offcpu
    WHERE method = coalesce(@method, (SELECT method FROM offcpu ORDER BY method <> 'sched_switch' LIMIT 1))
),
folded AS (
    SELECT replace(replace(coalesce(s.comm, ':' || s.pid), ' ', '_'), ';', ':') || ';' ||
           coalesce(chain.frames, replace(perf_frame_name(s.sym, s.dso, s.ip), ';', ':')) AS stack,
           sum(s.period) AS ns
    FROM perf_samples(@file) AS s
    LEFT JOIN chain ON chain.sample = s.record
    WHERE s.event = (SELECT event FROM oncpu_event)
    GROUP BY stack
    UNION ALL
    SELECT replace(replace(coalesce(i.comm, ':' || coalesce(i.pid, i.tid)), ' ', '_'), ';', ':') ||
           ';[off-cpu];' || coalesce(chain.frames, '[no stack]') AS stack,
           sum(i.duration) AS ns
    FROM intervals AS i
    LEFT JOIN chain ON chain.sample = i.record
    WHERE i.duration IS NOT NULL
    GROUP BY stack
),
totals AS (
    SELECT (SELECT event FROM oncpu_event) AS event,
           coalesce((SELECT sum(ns) FROM folded WHERE stack NOT GLOB '*;[[]off-cpu];*'), 0) AS oncpu_ns,
           (SELECT coalesce(sum(duration), 0) FROM intervals) AS offcpu_ns,
           (SELECT count(*) FROM intervals WHERE duration IS NULL) AS cut
)
SELECT coalesce(@svg, 'oncpu_offcpu.svg') AS file,
       writefile(coalesce(@svg, 'oncpu_offcpu.svg'),
                 perf_flamegraph(stack, ns,
                                 coalesce(@title,
                                          coalesce('On+off-CPU time: ' || (SELECT event FROM totals) ||
                                                   ', off-CPU intervals',
                                                   'Off-CPU time: ' ||
                                                   coalesce(@event || ' is not a time event',
                                                            'no on-CPU time event')) ||
                                          CASE (SELECT cut FROM totals) WHEN 0 THEN ''
                                               ELSE '; ' || (SELECT cut FROM totals) ||
                                                    ' cut intervals left out' END),
                                 'ns'))
           AS bytes,
       (SELECT oncpu_ns FROM totals) AS oncpu_ns,
       (SELECT offcpu_ns FROM totals) AS offcpu_ns,
       (SELECT cut FROM totals) AS cut_intervals
FROM folded;
