#!/usr/bin/env bash
# Regenerates tests/expected/stats/<name>.txt: `perf stat report` of every
# `perf stat record` fixture (tests/fixtures/stat*.data), compared with
# perf_stats by tests/t_stats.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p tests/expected/stats
rm -f tests/expected/stats/*.txt
for f in tests/fixtures/stat*.data; do
    name=$(basename "$f" .data)
    perf stat report -i "$f" >"tests/expected/stats/$name.txt" 2>&1
    echo "$name: $(grep -c . "tests/expected/stats/$name.txt") lines" >&2
done
