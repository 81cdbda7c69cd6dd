#!/usr/bin/env bash
# Regenerates tests/expected/perf_oracle/<name>/ from the local `perf` (6.1 when committed)
# for every fixture in tests/fixtures/*.data and every file- or pipe-mode, little-endian
# PERFILE2 file of $PV_SHARED/corpus/MANIFEST.tsv that perf can read
# (`perf script -D -i F` exits 0).  The files stay where they are; each
# expected directory has a meta.tsv whose "source" says where the test finds
# the file: "fixture:<name>" (tests/fixtures/) or "corpus:<path>"
# ($PV_SHARED/corpus/).  tests/oracle/perf_expect.py does the parsing.
# (The header features and build-ids perf prints are tests/gen/features.sh's.)
#
# Corpus files left out (the list is rewritten to tests/expected/perf_oracle/SKIPPED.tsv):
#   refused by perf 6.1 (`perf script -D` fails, "incompatible file format"
#   or a processing error):
#     linux-perf-data/tests/fixtures/sleep.data (perf 6.16 file)
#     linux-perf-data/tests/fixtures/sleep.compressed.data
#     linux-perf-data/tests/fixtures/sleep.compressed2.data
#     simpleperf/simpleperf/testdata/perf_with_tracepoint_event.data
#     simpleperf/simpleperf/testdata/perf_with_tracepoint_event_dynamic_field.data
#     simpleperf/simpleperf/testdata/perf_with_big_trace_data.data
#     simpleperf/simpleperf/testdata/etm/perf_for_small_binary.data
#     simpleperf/simpleperf/testdata/lbr/perf_lbr.data
#     simpleperf/simpleperf/testdata/perf_with_trace_offcpu.data
#     simpleperf/simpleperf/testdata/perf_with_trace_offcpu_v2.data
#     simpleperf/simpleperf/testdata/perf_with_callchain_record.data
#     simpleperf/simpleperf/testdata/perf_with_failed_unwinding_debug_info.data
#     simpleperf/simpleperf/scripts/test/script_testdata/perf_test_vmlinux.data
#     perf_data_converter/src/quipper/corpus/* (fuzzer crash inputs, file mode)
#   expected output over 1.25 MB (SKIPPED.tsv has the exact list):
#     perf_data_converter/src/testdata/single-event-single-process.perf.data
#   (the limit was 1 MB until samples.tsv got its cpu and comm columns, which
#   took single-event-multi-process.perf.data from 1.0 to 1.17 MB; 1.25 MB
#   keeps it and lets in generated_by_linux_perf.data, 1.12 MB)
# Pipe-mode files are candidates too (perf reads them with -i); big-endian
# corpus files are not (perf 6.1 crashes on some).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
shared=${PV_SHARED:-$root/../shared}
corpus=$shared/corpus
exp=$root/tests/expected/perf_oracle
[ -f "$corpus/MANIFEST.tsv" ] || {
    echo "$0: $corpus/MANIFEST.tsv not found: the expected outputs need the whole corpus (../shared or PV_SHARED); nothing changed" >&2
    exit 1
}
py=$root/tests/oracle/perf_expect.py
limit=$((1280 * 1024))

rm -rf "$exp"
mkdir -p "$exp"
skipped=$exp/SKIPPED.tsv
printf 'file\treason\n' >"$skipped"

gen() {  # name, path, source-label
    local name=$1 path=$2 label=$3 rc=0
    python3 "$py" "$path" "$exp/$name" "$label" 2>"$exp/.err" || rc=$?
    if [ "$rc" -eq 2 ]; then
        rm -rf "${exp:?}/$name"
        printf '%s\tperf script -D refuses it\n' "$label" >>"$skipped"
        return
    elif [ "$rc" -ne 0 ]; then
        cat "$exp/.err" >&2
        rm -rf "${exp:?}/$name"
        printf '%s\tperf_expect.py failed: %s\n' "$label" "$(tail -n 1 "$exp/.err")" >>"$skipped"
        return
    fi
    local size
    size=$(du -sb "$exp/$name" | cut -f1)
    if [ "$size" -gt "$limit" ]; then
        rm -rf "${exp:?}/$name"
        printf '%s\texpected outputs are %s bytes (over 1.25 MB)\n' "$label" "$size" >>"$skipped"
        return
    fi
    echo "$name: $(wc -l <"$exp/$name/samples.tsv") samples" >&2
}

for f in tests/fixtures/*.data; do
    b=$(basename "$f")
    gen "${b%.data}" "$f" "fixture:$b"
done

declare -A seen=()
while IFS=$'\t' read -r file _repo _path _commit _lic _bytes magic mode endian _rest; do
    [ "$file" = file ] && continue
    [ "$magic" = PERFILE2 ] && [ "$endian" = little ] || continue
    src=${file%%/*}
    name="${src}__$(basename "$file")"
    if [ -n "${seen[$name]:-}" ]; then
        echo "duplicate expected name $name" >&2
        exit 1
    fi
    seen[$name]=1
    gen "$name" "$corpus/$file" "corpus:$file"
done <"$corpus/MANIFEST.tsv"
rm -f "$exp/.err"
echo "skipped:" >&2
cat "$skipped" >&2
