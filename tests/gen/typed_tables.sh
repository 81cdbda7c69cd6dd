#!/usr/bin/env bash
# Regenerates tests/expected/typed_tables/ from perf 6.1's reading of the files
# that have FORK/EXIT, LOST_SAMPLES and SWITCH records.
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${PV_SHARED:-../shared}
[ -f "$shared/corpus/MANIFEST.tsv" ] || {
    echo "$0: $shared/corpus/MANIFEST.tsv not found: the expected outputs need the corpus (../shared or PV_SHARED); nothing changed" >&2
    exit 1
}
corpus=$shared/corpus/perf_data_converter/src/quipper/testdata
python3 tests/oracle/typed_tables_expect.py tests/expected/typed_tables \
    datasrc=tests/fixtures/datasrc.data \
    fp=tests/fixtures/fp.data \
    multi=tests/fixtures/multi.data \
    switch_cpu_wide=tests/fixtures/switch_cpu_wide.data \
    ctx_switch_namespaces=$corpus/perf.data.ctx_switch_namespaces-4.14 \
    lost_samples=$corpus/perf.data.lost_samples-4.4 \
    singleprocess=$corpus/perf.data.singleprocess-3.4
