#!/usr/bin/env bash
# Big-endian perf.data files (magic "2ELIFREP").
#
# The big-endian files are byte-swapped copies of little-endian ones made by
# tests/tools/perf_to_big_endian.py (see tests/fixtures/big_endian/README.md).
# For each copy, every table must give the same rows as on the little-endian
# original: perf_samples (every column; raw/stack_user/aux are kept as they
# are by the tool, so they compare equal too), perf_mmaps, perf_comms,
# perf_records (all but the data blob), perf_events (all but nothing),
# perf_features (name, value of the features the tool swaps), perf_build_ids.
#
# 1. the committed copies under tests/fixtures/big_endian/: the magic, the
#    tool reproduces them byte for byte, and the table comparison;
# 2. copies made at test time of the other fixtures and of a few
#    little-endian corpus files (a skip each where the corpus is absent), with
#    python3 when it is available.
#
# Env: PV_ROOT, PV_SHARED (../shared), PV_SQLRUN.  Output: ok / not ok lines.
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
shared=${PV_SHARED:-$root/../shared}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
tool=$root/tests/tools/perf_to_big_endian.py
fixtures=$root/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The queries compared, with @ standing for the quoted path.
queries=(
    "perf_samples|SELECT * FROM perf_samples(@) ORDER BY record"
    "perf_mmaps|SELECT * FROM perf_mmaps(@) ORDER BY record"
    "perf_comms|SELECT * FROM perf_comms(@) ORDER BY record"
    "perf_records|SELECT record, file_offset, type, name, misc, size, time, pid, tid, cpu, id, fields FROM perf_records(@) ORDER BY record"
    "perf_events|SELECT idx, name, type, config, sample_period, sample_freq, sample_type, read_format, ids, attr FROM perf_events(@) ORDER BY idx"
    "perf_features|SELECT id, name, value FROM perf_features(@) WHERE id < 128 AND name NOT IN ('bpf_prog_info', 'bpf_btf') ORDER BY id"
    "perf_build_ids|SELECT * FROM perf_build_ids(@)"
)

# A copy whose COMPRESSED containers the tool rebuilt (zstd frames of other
# sizes): the same rows, except the file offsets and the containers' own
# sizes, which moved.
queries_compressed=(
    "perf_samples|SELECT * EXCEPT_FILE_OFFSET FROM perf_samples(@) ORDER BY record"
    "perf_records|SELECT record, type, name, misc, CASE WHEN type IN (81, 83) THEN NULL ELSE size END, time, pid, tid, cpu, id, CASE WHEN type IN (81, 83) THEN NULL ELSE fields END FROM perf_records(@) ORDER BY record"
    "${queries[2]}" "${queries[4]}" "${queries[5]}" "${queries[6]}"
)
sample_columns=$("$sqlrun" "SELECT group_concat(quote(name), ', ') FROM pragma_table_info('perf_samples') WHERE name <> 'file_offset'" | tr "'" '"')
queries_compressed[0]=${queries_compressed[0]/\* EXCEPT_FILE_OFFSET/$sample_columns}

# Under the sanitizers (which look for memory errors, not other rows), the
# copies made at test time are compared on perf_samples and perf_records
# only, which decode every record; the plain pass compares every table.
sanitized=false
[[ ${PV_BUILD:-} == */san ]] && sanitized=true

# compare LABEL LITTLE BIG [compressed [few]]: one check per table
compare() {
    local label=$1 le=$2 be=$3 entry table q n_le
    local -a list=("${queries[@]}")
    [ "${4:-}" = compressed ] && list=("${queries_compressed[@]}")
    if [ "${5:-}" = few ]; then  # perf_samples and perf_records
        list=("${queries[0]}" "${queries[3]}")
        [ "${4:-}" = compressed ] && list=("${queries_compressed[@]:0:2}")
    fi
    for entry in "${list[@]}"; do
        table=${entry%%|*}
        q=${entry#*|}
        if ! "$sqlrun" "${q//@/$(sql_quote "$le")}" >"$tmp/le" 2>"$tmp/le.err"; then
            not_ok "$label: $table" "the little-endian original fails: $(head -c 200 "$tmp/le.err")"
            continue
        fi
        if ! "$sqlrun" "${q//@/$(sql_quote "$be")}" >"$tmp/be" 2>"$tmp/be.err"; then
            not_ok "$label: $table" "the big-endian copy fails: $(head -c 200 "$tmp/be.err")"
            continue
        fi
        n_le=$(wc -l <"$tmp/le")
        if cmp -s "$tmp/le" "$tmp/be"; then
            ok "$label: $table same $n_le rows as little-endian"
        else
            not_ok "$label: $table" "rows differ from little-endian ($n_le rows), first difference: $(diff "$tmp/le" "$tmp/be" | head -n 3 | cut -c1-200 | tr '\n' ' ')"
        fi
    done
}

have_python=false
command -v python3 >/dev/null 2>&1 && have_python=true

# 1. committed copies
for be in "$fixtures"/big_endian/*.data; do
    name=$(basename "$be")
    le=$fixtures/$name
    magic=$(head -c 8 "$be")
    if [ "$magic" = 2ELIFREP ]; then
        ok "big_endian/$name: magic 2ELIFREP"
    else
        not_ok "big_endian/$name: magic" "got '$magic'"
    fi
    # the tool's output does not depend on the build: the plain pass checks it
    if $have_python && ! $sanitized; then
        if python3 "$tool" "$le" "$tmp/regen.data" 2>"$tmp/tool.err" && cmp -s "$tmp/regen.data" "$be"; then
            ok "big_endian/$name: perf_to_big_endian.py reproduces it"
        else
            not_ok "big_endian/$name: perf_to_big_endian.py reproduces it" "$(head -c 200 "$tmp/tool.err")"
        fi
    fi
    compare "big_endian/$name" "$le" "$be"
done

# The attr flags are bit-reversed per byte in a big-endian file: the decoded
# attr must still say sample_id_all (bit 18) and the comm/mmap flags.
if "$sqlrun" "SELECT json_extract(attr, '$.sample_id_all') || json_extract(attr, '$.comm') || json_extract(attr, '$.mmap') FROM perf_events($(sql_quote "$fixtures/big_endian/fp.data"))" >"$tmp/flags" 2>&1 \
    && [ "$(cat "$tmp/flags")" = 111 ]; then
    ok "big_endian/fp.data: attr flags sample_id_all, comm, mmap decoded"
else
    not_ok "big_endian/fp.data: attr flags decoded" "$(head -c 200 "$tmp/flags")"
fi

# 2. copies made now
if ! $have_python; then
    echo "ok - copies made at test time of the other fixtures and corpus files # SKIP python3 not found"
    exit 0
fi
corpus=$shared/corpus
qt=perf_data_converter/src/quipper/testdata
more=()
# A corpus file: the copy in ../shared, else the one kept in tests/corpus,
# else a skip.
add_corpus() {  # label path [how]
    local path=$2 rel=${2#"$corpus"/}
    [ -f "$path" ] || [ ! -f "$root/tests/corpus/$rel" ] || path=$root/tests/corpus/$rel
    if [ -f "$path" ]; then
        more+=("$1|$path${3:+|$3}")
    else
        echo "ok - $1 (converted): every table as on the little-endian file # SKIP input absent: $2"
    fi
}
for name in buildid_mmap.data dwarf.data example.data tracepoint.data tracepoint_kinds.data \
    tracepoint_pipe.data stat_interval.data switch_cpu_wide.data; do
    more+=("fixture:$name|$fixtures/$name")
done
# perf 7's records and features (tests/fixtures/perf7/, made by
# tests/tools/make_perf7_fixtures.py; the copy is committed there too)
more+=("fixture:perf7/perf7.data|$fixtures/perf7/perf7.data")
# COMPRESSED records (rebuilt by the tool with libzstd): a compressed pipe
# with tracing data, perf 6.5's (81) and 6.16's (83) files, pipes whose
# records span containers
more+=("fixture:tracepoint_zpipe.data|$fixtures/tracepoint_zpipe.data|compressed")
for name in sleep.compressed.data sleep.compressed2.data fibo.compressed2.pipe.data \
    sleep.compressed.pipe.data sleep.compressed2.pipe.data; do
    add_corpus "corpus:$name" "$corpus/linux-perf-data/tests/fixtures/$name" compressed
done
# branch stacks (flags in a big-endian kernel's bit order, hw_idx, spec
# bits), KSYMBOL/BPF_EVENT, EVENT_UPDATE with cpus, weight struct,
# SWITCH/NAMESPACES, group_desc, AUXTRACE with payload, LOST_SAMPLES with
# group read, a 32-bit writer, old perf 3.x files
for name in branch-4.14 branch_stack_hw_index branch_stack_spec hybrid_topology weight_struct \
    ctx_switch_namespaces-4.14 group_desc-4.14 intel_pt-4.14 lost_samples-4.4 i686-3.4 \
    singleprocess-3.4 remmap-3.2 piped.target-3.4 piped.lost_samples-4.4 piped.intel_pt-4.14 \
    piped.header_features_aligned-6.12 piped.header_feautres_group_desc-6.8 \
    piped.ctx_switch_namespaces-4.14; do
    add_corpus "corpus:$name" "$corpus/$qt/perf.data.$name"
done
for f in "$corpus"/simpleperf/simpleperf/testdata/perf_b.data \
    "$corpus"/simpleperf/simpleperf/testdata/perf_with_two_event_types.data; do
    add_corpus "corpus:$(basename "$f")" "$f"
done

for entry in "${more[@]}"; do
    IFS='|' read -r label le how <<<"$entry"
    be=$tmp/be.data
    if python3 "$tool" "$le" "$be" 2>"$tmp/tool.err"; then
        compare "$label (converted)" "$le" "$be" "${how:--}" "$($sanitized && echo few)"
    else
        not_ok "$label: perf_to_big_endian.py converts it" "$(head -c 200 "$tmp/tool.err")"
    fi
done

# The tool refuses what it cannot swap, cleanly: a record type it does not
# know (the first record of fp.data retyped 0x7000).
python3 - "$fixtures/fp.data" "$tmp/unknown.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
data_off = struct.unpack_from('<Q', d, 40)[0]
struct.pack_into('<I', d, data_off, 0x7000)
open(sys.argv[2], 'wb').write(d)
PY
python3 "$tool" "$tmp/unknown.data" "$tmp/refused.data" 2>"$tmp/tool.err"
status=$?
if [ "$status" = 2 ] && grep -q 'record type 28672' "$tmp/tool.err" && [ ! -e "$tmp/refused.data" ]; then
    ok "perf_to_big_endian.py refuses a record type it does not know"
else
    not_ok "perf_to_big_endian.py refuses a record type it does not know" "status $status: $(head -c 200 "$tmp/tool.err")"
fi
exit 0
