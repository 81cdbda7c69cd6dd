#!/usr/bin/env bash
# Regenerates tests/expected/trace_fields/<name>.tsv: the fields of every tracepoint
# sample as Linux perf decodes them (`perf script -s tests/oracle/perf_trace_fields.py`,
# perf built with libpython), for the tracepoint fixtures.  perf script
# prints in time order; tests/t_trace_fields.sh compares as a sorted list.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/expected/trace_fields
mkdir -p "$out"
rm -f "$out"/*.tsv
for f in tests/fixtures/tracepoint.data tests/fixtures/tracepoint_kinds.data \
    tests/fixtures/tracepoint_pipe.data tests/fixtures/tracepoint_zpipe.data \
    tests/fixtures/tracepoint_zfile.data; do
    name=$(basename "$f" .data)
    perf script -i "$f" -s tests/oracle/perf_trace_fields.py 2>/dev/null | sort >"$out/$name.tsv"
    echo "$name: $(wc -l <"$out/$name.tsv") tracepoint samples" >&2
done
