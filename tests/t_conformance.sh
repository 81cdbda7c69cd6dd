#!/usr/bin/env bash
# Conformance suite: every file of the shared corpus against the expected
# outputs its own project keeps (quipper's dumps and .buildids, simpleperf's
# and perfetto's facts, linux-perf-data's facts); the corrupted and fuzz
# files fail with a clear error.  tests/oracle/conformance.py does the work and
# prints one "# <source>: ..." summary line per source.  (The comparisons
# with local perf of the files perf reads are t_perf_oracle.sh, for the
# records, and t_features.sh, for header values and build-ids.)
set -u
cd "$PV_ROOT"
corpus=$PV_SHARED/corpus
if [ ! -f "$corpus/MANIFEST.tsv" ]; then
    echo "ok - conformance: every corpus file against its project's expected outputs # SKIP input absent: $corpus/MANIFEST.tsv"
    exit 0
fi
python3 tests/oracle/conformance.py "$PV_SQLRUN" "$corpus"
