#!/usr/bin/env bash
# Regenerates tests/expected_stat/<name>.txt: `perf stat report` of every
# `perf stat record` fixture (tests/fixtures/stat*.data), compared with
# perf_stats by tests/t_stats.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p tests/expected_stat
rm -f tests/expected_stat/*.txt
for f in tests/fixtures/stat*.data; do
    name=$(basename "$f" .data)
    perf stat report -i "$f" >"tests/expected_stat/$name.txt" 2>&1
    echo "$name: $(grep -c . "tests/expected_stat/$name.txt") lines" >&2
done
