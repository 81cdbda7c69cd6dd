-- diff_flamegraph.sql: writes the differential flame graph of @base to @file to an SVG file (diff.svg)
-- @param base path optional: the recording before (default: @file itself, all grey)
-- @param event text optional: the event whose samples are drawn (default: each file's first sample's)
-- @param weight samples|period optional: what a frame's width counts (default: samples)
-- @param svg text optional: the SVG file to write (default: diff.svg)
-- @param title text optional: the title (default: Differential Flame Graph: BASE to FILE)
--
-- Writes the differential flame graph of two recordings,
-- @base (before) and @file (after), to diff.svg unless @svg names another, and
-- prints its size:
--     scripts/perfsql -p "base='old.data'" new.data diff_flamegraph
-- or in the sqlite3 shell:
--     .load build/perfvtab
--     .param set @base 'old.data'
--     .param set @file 'new.data'
--     .read sql/diff_flamegraph.sql
-- Frames are as wide as in @file's flame graph.  A frame is red where its
-- self share (its own samples over its file's total) grew from @base to
-- @file, blue where it shrank, grey where it stayed, the strongest change the
-- deepest colour (Brendan Gregg's red/blue differential flame graphs).
-- Hovering a frame shows both files' samples and shares and the changes in
-- points.  Frames only @base has are not drawn (the subtitle counts them):
-- swap @base and @file to see them, the colours then reading the other way.
-- Without @base, @file is compared with itself (all grey).
--
-- Each file's stacks are those of folded_stacks.sql (one event per file:
-- @event, by default that of the file's first sample), weighted by samples,
-- or by period with -p "weight='period'"; @title sets the title.  The two
-- totals may differ (a longer run, another frequency): perf_flamegraph_diff
-- compares shares.

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
        WHEN NOT EXISTS (SELECT 1 FROM perf_samples(coalesce(@base, @file))) THEN CASE
                WHEN EXISTS (SELECT 1 FROM perf_records(coalesce(@base, @file)) WHERE name = 'STAT')
                    THEN 'no samples in the base recording: a `perf stat record` file holds counts, not samples; its counts are in the perf_stats table'
                WHEN EXISTS (SELECT 1 FROM perf_diagnostics(coalesce(@base, @file)) WHERE severity = 'error')
                    THEN 'no samples could be read from the base recording: it is damaged (sql/overview.sql shows how)'
                WHEN EXISTS (SELECT 1 FROM perf_diagnostics(coalesce(@base, @file)) WHERE kind = 'unfinished_recording')
                    THEN 'no samples in the base recording: perf record was stopped (killed?) before it wrote any'
                ELSE 'no samples in the base recording: record some with `perf record -F 999 -g -- PROGRAM`' END
        WHEN @event IS NOT NULL AND NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE name = @event)
            THEN 'no event ' || quote(@event) || ' in ' || @file || '; its events: ' ||
                 (SELECT group_concat(name, ', ') FROM perf_events(@file))
        WHEN @event IS NOT NULL AND NOT EXISTS (SELECT 1 FROM perf_samples(@file) WHERE event = @event)
            THEN 'no samples of event ' || quote(@event) || ' in ' || @file
        WHEN @event IS NOT NULL AND NOT EXISTS (SELECT 1 FROM perf_events(coalesce(@base, @file)) WHERE name = @event)
            THEN 'no event ' || quote(@event) || ' in ' || coalesce(@base, @file) || '; its events: ' ||
                 (SELECT group_concat(name, ', ') FROM perf_events(coalesce(@base, @file)))
        WHEN @event IS NOT NULL AND NOT EXISTS (SELECT 1 FROM perf_samples(coalesce(@base, @file)) WHERE event = @event)
            THEN 'no samples of event ' || quote(@event) || ' in ' || coalesce(@base, @file)
        WHEN @weight IS NOT NULL AND @weight NOT IN ('samples', 'period')
            THEN 'weight must be ''samples'' or ''period'', not ' || quote(@weight)
        END AS note
    UNION ALL
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE sample_type LIKE '%CALLCHAIN%')
            THEN 'each stack is its sample''s own function alone: the file has no callchains; record with `perf record -g`'
        END AS note
) WHERE note IS NOT NULL;

WITH files(side, path) AS (
    VALUES ('base', coalesce(@base, @file)), ('new', @file)
),
chosen AS (
    -- files.path: a bare "path" would be perf_samples' own path column
    SELECT side, path,
           coalesce(@event, (SELECT s.event FROM perf_samples(files.path) AS s LIMIT 1)) AS event
    FROM files
),
chain AS (
    SELECT chosen.side, c.sample,
           perf_folded(perf_frame_name(c.sym, c.dso, c.ip), c.depth) AS frames
    FROM chosen, perf_callchains(chosen.path) AS c
    GROUP BY chosen.side, c.sample
),
folded AS (
    -- the same stacks as folded_stacks.sql, per file
    SELECT chosen.side,
           replace(replace(coalesce(s.comm, ':' || s.pid), ' ', '_'), ';', ':') || ';' ||
           coalesce(chain.frames, replace(perf_frame_name(s.sym, s.dso, s.ip), ';', ':')) AS stack,
           CASE WHEN @weight = 'period' THEN coalesce(s.period, 1) ELSE 1 END AS weight
    FROM chosen, perf_samples(chosen.path) AS s
    LEFT JOIN chain ON chain.side = chosen.side AND chain.sample = s.record
    WHERE s.event = chosen.event
),
both AS (
    -- one row per stack with both weights (0 where a file lacks it)
    SELECT stack,
           sum(CASE WHEN side = 'new' THEN weight ELSE 0 END) AS new_weight,
           sum(CASE WHEN side = 'base' THEN weight ELSE 0 END) AS base_weight
    FROM folded
    GROUP BY stack
)
SELECT coalesce(@svg, 'diff.svg') AS file,
       writefile(coalesce(@svg, 'diff.svg'),
                 perf_flamegraph_diff(stack, new_weight, base_weight,
                                      coalesce(@title, 'Differential Flame Graph: ' ||
                                               (SELECT path FROM files WHERE side = 'base') ||
                                               ' to ' || (SELECT path FROM files WHERE side = 'new')),
                                      CASE WHEN @weight = 'period' THEN 'period' ELSE 'samples' END))
           AS bytes
FROM both;
