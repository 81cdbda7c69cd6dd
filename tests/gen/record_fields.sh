#!/usr/bin/env bash
# Regenerates tests/expected/record_fields/<name>.tsv, the perf-oracle values of
# tests/t_record_fields.sh, from the local `perf script -D` (6.1 when
# committed) with tests/oracle/record_fields_expect.py.  Files: every fixture in
# tests/fixtures/*.data and the corpus files listed below (file mode,
# little-endian, read by perf 6.1), chosen for their record types.
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${PV_SHARED:-$PWD/../shared}
out=tests/expected/record_fields
py=tests/oracle/record_fields_expect.py
[ -f "$shared/corpus/MANIFEST.tsv" ] || {
    echo "$0: $shared/corpus/MANIFEST.tsv not found: the expected outputs need the whole corpus (../shared or PV_SHARED); nothing changed" >&2
    exit 1
}

corpus=(
    perf_data_converter/src/quipper/testdata/perf.data.branch_stack_spec        # KSYMBOL BPF_EVENT THROTTLE CPU_MAP(mask)
    perf_data_converter/src/quipper/testdata/perf.data.intel_pt-4.14            # AUX AUXTRACE(_INFO) ITRACE_START SWITCH_CPU_WIDE
    perf_data_converter/src/quipper/testdata/perf.data.lost_samples-4.4         # LOST_SAMPLES
    perf_data_converter/src/quipper/testdata/perf.data.ctx_switch_namespaces-4.14  # SWITCH NAMESPACES
    perf_data_converter/src/quipper/testdata/perf.data.hybrid_topology          # EVENT_UPDATE(cpus) CPU_MAP THREAD_MAP
    perf_data_converter/src/quipper/testdata/perf.data.singleprocess-3.4        # perf 3.4, 6 events
    simpleperf/simpleperf/testdata/perf_b.data                                  # LOST
    simpleperf/simpleperf/testdata/etm/perf_etm.data                            # AUXTRACE_INFO type 3, AUXTRACE
)

rm -rf "$out"
mkdir -p "$out"
gen() {  # name path label
    local rc=0
    python3 "$py" "$2" "$out/$1.tsv" "$3" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "$3: perf refused it or the parse failed (status $rc)" >&2
        rm -f "$out/$1.tsv"
        return
    fi
    echo "$1: $(grep -vc '^#' "$out/$1.tsv") checks" >&2
}
for f in tests/fixtures/*.data; do
    b=$(basename "$f")
    gen "${b%.data}" "$f" "fixture:$b"
done
for f in "${corpus[@]}"; do
    src=${f%%/*}
    gen "${src}__$(basename "$f")" "$shared/corpus/$f" "corpus:$f"
done
