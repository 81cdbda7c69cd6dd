#!/usr/bin/env bash
# perf_samples' common row and column (PvTableDef.row_next, row_column:
# a record pinned in the walk's buffer, an integer field read alone from
# the word where the row before had it, or read already on the row) are
# answered without the checks of a call that can read or allocate.  Each
# is checked against its hidden twin, the slow path:
#   - the fixed fields read alone (one word each), against the same
#     columns read after event, which decodes the sample first (every
#     value then comes from the decoded sample);
#   - a column read twice on a row, and columns read in turns (each row's
#     first read of a column misses the word the row before had);
#   - the rows of a scan (the common row), against the same records each
#     looked up by its ordinal (a lookup takes the full next).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fields="time, pid, tid, cpu, ip, addr, period, id, stream_id, identifier"
# read first, the event decodes the sample (always true: SQLite must read it)
decoded="length(event) >= 0 OR event IS NULL"
for f in tests/fixtures/*.data; do
    q=$(sql_quote "$f")
    sqlrun_each "$tmp/rows" -n NULL \
        "SELECT record, $fields FROM perf_samples($q)" \
        "SELECT record, $fields FROM perf_samples($q) WHERE $decoded" \
        "SELECT record, period, period, time, time, tid, period FROM perf_samples($q)" \
        "SELECT record, period, period, time, time, tid, period FROM perf_samples($q) WHERE $decoded" \
        "SELECT record, CASE WHEN record % 2 THEN period ELSE time END, CASE WHEN record % 3 THEN tid ELSE period END FROM perf_samples($q)" \
        "SELECT record, CASE WHEN record % 2 THEN period ELSE time END, CASE WHEN record % 3 THEN tid ELSE period END FROM perf_samples($q) WHERE $decoded" \
        "SELECT s.record, s.${fields//, /, s.} FROM perf_samples($q) r JOIN perf_samples($q) s ON s.record = r.record" \
        "EXPLAIN QUERY PLAN SELECT s.record FROM perf_samples($q) r JOIN perf_samples($q) s ON s.record = r.record"
    n=$(wc -l <"$tmp/rows.0")
    check "$f: $n samples' fixed fields read alone as from the decoded sample" \
        "$(cmp -s "$tmp/rows.0" "$tmp/rows.1" && echo same)" same
    check "$f: columns read twice or in turns as from the decoded sample" \
        "$(cmp -s "$tmp/rows.2" "$tmp/rows.3" && cmp -s "$tmp/rows.4" "$tmp/rows.5" && echo same)" same
    # idxNum bit 11: the ordinal looked up (ext/vtab_plan.c, IDX_ORDINAL)
    check "$f: the lookup twin looks each record up" \
        "$(sed -n 's/.*SCAN s VIRTUAL TABLE INDEX \([0-9]*\):.*/\1/p' "$tmp/rows.7" | awk '{ print int($1 / 2048) % 2 }')" 1
    check "$f: the scan's rows as each looked up" \
        "$(sort "$tmp/rows.0" | cmp -s - <(sort "$tmp/rows.6") && echo same)" same
done
