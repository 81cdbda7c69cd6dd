# perf_folded_stacks (the fast path of sql/folded_stacks.sql and
# sql/flamegraph.sql) against its slow twin: the SQL those queries ran
# before it, kept here word for word.  Source after common.sh; needs
# PV_ROOT and PV_SQLRUN.
#
#   folded_twins NAME DATA [flamegraphs]
#
# prints one line: ok when, on DATA,
#   - perf_folded_stacks' rows (every event, in the table's own order) are
#     those of grouping perf_callchains by sample and perf_samples by
#     (event, stack), ordered by event and stack;
#   - sql/folded_stacks.sql prints what it printed with its old final query;
#   - with "flamegraphs": sql/flamegraph.sql writes the same SVG bytes and
#     prints the same rows as with its old final query, weighted by samples
#     and by period.
# The symbols of tests/fixtures/symbols are found in both.  FOLDED_KEEP=1
# keeps the outputs (their directory is printed as a comment).

# The old final statements: "F" is the file, EVENT the chosen event.
folded_twin_rows() {  # file: every event's stacks, as the old SQL grouped them
    cat <<EOF
WITH chain AS (
    SELECT sample,
           perf_folded(perf_frame_name(sym, dso, ip), depth) AS frames
    FROM perf_callchains('$1')
    GROUP BY sample
)
SELECT s.event,
       replace(replace(coalesce(s.comm, ':' || s.pid), ' ', '_'), ';', ':') || ';' ||
       coalesce(chain.frames, replace(perf_frame_name(s.sym, s.dso, s.ip), ';', ':')) AS stack,
       count(*) AS samples,
       sum(coalesce(s.period, 1)) AS period
FROM perf_samples('$1') AS s
LEFT JOIN chain ON chain.sample = s.record
WHERE s.event IS NOT NULL
GROUP BY s.event, stack
ORDER BY s.event, stack
EOF
}

folded_twin_folded_stacks() {  # sql/folded_stacks.sql's old final query
    cat <<'EOF'
WITH chosen AS (
    SELECT coalesce(@event, (SELECT event FROM perf_samples(@file) LIMIT 1)) AS event
),
chain AS (
    SELECT sample,
           perf_folded(perf_frame_name(sym, dso, ip), depth) AS frames
    FROM perf_callchains(@file)
    GROUP BY sample
)
SELECT replace(replace(coalesce(s.comm, ':' || s.pid), ' ', '_'), ';', ':') || ';' ||
       coalesce(chain.frames, replace(perf_frame_name(s.sym, s.dso, s.ip), ';', ':')) AS stack,
       count(*) AS samples
FROM perf_samples(@file) AS s
LEFT JOIN chain ON chain.sample = s.record
WHERE s.event = (SELECT event FROM chosen)
GROUP BY stack
ORDER BY stack;
EOF
}

folded_twin_flamegraph() {  # sql/flamegraph.sql's old final query
    cat <<'EOF'
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
EOF
}

# A ready query with its parameters as literals (sqlrun binds none): the
# current one, or (twin) its notes followed by the old final query.
folded_twin_query() {  # query, file, weight, svg, twin(0/1)
    local text
    if [ "$5" = 1 ]; then
        text="$(sed '/^WITH chosen AS (/,$d' "$PV_ROOT/sql/$1.sql")
$(folded_twin_"$1")"
    else
        text=$(cat "$PV_ROOT/sql/$1.sql")
    fi
    sed "s|@file|'$2'|g; s|@event|NULL|g; s|@weight|$3|g; s|@svg|'$4'|g; s|@title|NULL|g" <<<"$text"
}

folded_twins() {  # name, data, [flamegraphs]
    local name=$1 data=$2 dir k what why=
    dir=$(mktemp -d)
    local -a queries=(
        "SELECT perf_symbol_path(NULL, '$PV_ROOT/tests/fixtures/symbols') IS NULL"
        "SELECT event, stack, samples, period FROM perf_folded_stacks('$data')"
        "$(folded_twin_rows "$data")"
        "$(folded_twin_query folded_stacks "$data" NULL - 0)"
        "$(folded_twin_query folded_stacks "$data" NULL - 1)"
    )
    local -a whats=("perf_folded_stacks' rows" "sql/folded_stacks.sql")
    if [ "${3:-}" = flamegraphs ]; then
        queries+=("$(folded_twin_query flamegraph "$data" NULL "$dir/fg.svg" 0)"
                  "$(folded_twin_query flamegraph "$data" NULL "$dir/fg.svg.twin" 1)"
                  "$(folded_twin_query flamegraph "$data" "'period'" "$dir/fgp.svg" 0)"
                  "$(folded_twin_query flamegraph "$data" "'period'" "$dir/fgp.svg.twin" 1)")
        whats+=("sql/flamegraph.sql" "sql/flamegraph.sql, weight period")
    fi
    sqlrun_each "$dir/out" -n NULL "${queries[@]}"
    for k in "${!whats[@]}"; do
        local new=$dir/out.$((2 * k + 1)) old=$dir/out.$((2 * k + 2))
        what=${whats[$k]}
        # the flame graphs' rows name the file each wrote
        sed -i "s|\.svg\.twin|.svg|" "$old"
        if grep -q '^Error' "$new" "$old"; then
            why="$what: an error: $(grep -h '^Error' "$new" "$old" | head -n 2 | tr '\n' ' ')"
        elif ! cmp -s "$new" "$old"; then
            why="$what differs from its twin: $(diff "$new" "$old" | grep '^[<>]' | head -n 2 |
                                               cut -c1-150 | tr '\n\t' '  ')"
        fi
        case $what in
        *flamegraph*)
            local svg=fg.svg
            [ "$k" = 3 ] && svg=fgp.svg
            if [ -z "$why" ] && ! cmp -s "$dir/$svg" "$dir/$svg.twin"; then
                why="$what: the SVG differs from its twin's"
            fi
            ;;
        esac
        [ -n "$why" ] && break
    done
    if [ -n "$why" ]; then
        echo "not ok - $name: $why"
    else
        echo "ok - $name: perf_folded_stacks and the ready queries over it equal their slow twins ($(wc -l <"$dir/out.1") stacks)"
    fi
    [ -n "${FOLDED_KEEP:-}" ] && echo "# kept $dir" || rm -rf "$dir"
}
