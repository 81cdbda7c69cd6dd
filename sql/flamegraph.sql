-- flamegraph.sql: writes the flame graph of the samples' stacks to an SVG file (fg.svg)
-- @param event text optional: the event whose samples are drawn (default: the first sample's)
-- @param weight samples|period optional: what a frame's width counts (default: samples)
-- @param svg text optional: the SVG file to write (default: fg.svg)
-- @param title text optional: the title (default: Flame Graph: EVENT)
--
-- Writes the flame graph of the file's samples to an SVG file,
-- fg.svg unless @svg names another, and prints its size.  Open it in a
-- browser: hovering a frame shows "name (N samples, P%)".
--
-- The stacks are those of folded_stacks.sql (one event: @event, by default
-- that of the first sample).  Frames are weighted by samples, or by their
-- period with -p "weight='period'" (what perf report's percentages use).
-- @title sets the title.  writefile() is the sqlite3 shell's own function,
-- so this runs in the shell (scripts/perfsql), not through the bare library:
--     scripts/perfsql perf.data flamegraph
--     scripts/perfsql -p "svg='cpu.svg'" -p "weight='period'" perf.data flamegraph
-- or by hand in the sqlite3 shell:
--     .load build/perfvtab              -- or `.load perfvtab` after make install
--     .param set @file 'perf.data'
--     .read sql/flamegraph.sql

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
        WHEN @event IS NOT NULL AND NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE name = @event)
            THEN 'no event ' || quote(@event) || ' in ' || @file || '; its events: ' ||
                 (SELECT group_concat(name, ', ') FROM perf_events(@file))
        WHEN @event IS NOT NULL AND NOT EXISTS (SELECT 1 FROM perf_samples(@file) WHERE event = @event)
            THEN 'no samples of event ' || quote(@event) || ' in ' || @file
        WHEN @weight IS NOT NULL AND @weight NOT IN ('samples', 'period')
            THEN 'weight must be ''samples'' or ''period'', not ' || quote(@weight)
        END AS note
    UNION ALL
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE sample_type LIKE '%CALLCHAIN%')
            THEN 'each stack is its sample''s own function alone: the file has no callchains; record with `perf record -g`'
        END AS note
) WHERE note IS NOT NULL;

WITH chosen AS (
    SELECT coalesce(@event, (SELECT event FROM perf_samples(@file) LIMIT 1)) AS event
),
folded AS (
    -- the same stacks as folded_stacks.sql
    SELECT stack, samples, period
    FROM perf_folded_stacks(@file)
    WHERE event = (SELECT event FROM chosen)
)
SELECT coalesce(@svg, 'fg.svg') AS file,
       writefile(coalesce(@svg, 'fg.svg'),
                 perf_flamegraph(stack,
                                 CASE WHEN @weight = 'period' THEN period ELSE samples END,
                                 coalesce(@title, 'Flame Graph: ' || (SELECT event FROM chosen)),
                                 CASE WHEN @weight = 'period' THEN 'period' ELSE 'samples' END))
           AS bytes
FROM folded;
