-- flamegraph.sql: writes the flame graph of the file's samples to an SVG file,
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

WITH chosen AS (
    SELECT coalesce(@event, (SELECT event FROM perf_samples(@file) LIMIT 1)) AS event
),
chain AS (
    SELECT sample,
           perf_folded(perf_frame_name(sym, dso, ip), depth) AS frames
    FROM perf_callchains(@file)
    GROUP BY sample
),
folded AS (
    -- the same stacks as folded_stacks.sql
    SELECT replace(replace(coalesce(s.comm, ':' || s.pid), ' ', '_'), ';', ':') || ';' ||
           coalesce(chain.frames, replace(perf_frame_name(s.sym, s.dso, s.ip), ';', ':')) AS stack,
           count(*) AS samples,
           sum(coalesce(s.period, 1)) AS period
    FROM perf_samples(@file) AS s
    LEFT JOIN chain ON chain.sample = s.record
    WHERE s.event = (SELECT event FROM chosen)
    GROUP BY stack
)
SELECT coalesce(@svg, 'fg.svg') AS file,
       writefile(coalesce(@svg, 'fg.svg'),
                 perf_flamegraph(stack,
                                 CASE WHEN @weight = 'period' THEN period ELSE samples END,
                                 coalesce(@title, 'Flame Graph: ' || (SELECT event FROM chosen)),
                                 CASE WHEN @weight = 'period' THEN 'period' ELSE 'samples' END))
           AS bytes
FROM folded;
