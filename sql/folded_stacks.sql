-- folded_stacks.sql: the samples' call stacks folded for flame graphs, as stackcollapse-perf.pl
-- @param event text optional: the event whose samples are folded (default: the first sample's)
--
-- The samples' call stacks folded for flame graphs: one row
-- per distinct stack, "comm;root;...;leaf", and its number of samples -- the
-- lines stackcollapse-perf.pl (Brendan Gregg's FlameGraph) makes of
-- `perf script` output, with the stack and the count in two columns.
--
-- A frame is its symbol; without one, "[dso]" (the file's base name, as
-- stackcollapse-perf.pl writes it); without a dso either, the address in hex.
-- A sample without a call chain (recorded without -g) is comm and its own
-- frame.  Spaces in comm become '_'; a ';' or a line break in any name
-- becomes ':' (it would split the frame).  Only one event's samples are
-- folded: @event, by default that of the file's first sample.
--
-- Every query in sql/ reads the file named by the SQL parameter @file:
--     scripts/perfsql perf.data folded_stacks
--     scripts/perfsql -p "event='cpu-clock'" perf.data folded_stacks
-- The lines flamegraph.pl and other tools read ("stack count", no header):
--     sqlite3 -noheader -separator ' ' -cmd '.load build/perfvtab' \
--         -cmd ".param set @file perf.data" :memory: '.read sql/folded_stacks.sql'
-- sql/flamegraph.sql draws them as an SVG without leaving SQLite.

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
        END AS note
    UNION ALL
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM perf_events(@file) WHERE sample_type LIKE '%CALLCHAIN%')
            THEN 'each stack is its sample''s own function alone: the file has no callchains; record with `perf record -g`'
        END AS note
) WHERE note IS NOT NULL;

WITH chosen AS (
    SELECT coalesce(@event, (SELECT event FROM perf_samples(@file) LIMIT 1)) AS event
)
-- one walk over the samples, their stacks counted in C (perf_folded_stacks:
-- the same rows as grouping perf_callchains by sample, then by stack)
SELECT stack, samples
FROM perf_folded_stacks(@file)
WHERE event = (SELECT event FROM chosen)
ORDER BY stack;
