-- diff_flamegraph.sql: writes the differential flame graph of two recordings,
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
