#!/usr/bin/env bash
# Tracepoint samples: perf_samples.trace_event and trace_fields, the RAW
# payload decoded with the tracing data's event formats.
#  1. fixtures (file mode, pipe mode, compressed pipe): every tracepoint
#     sample's fields equal perf's own decoding (tests/expected/trace_fields/, made
#     by tests/gen/trace_fields.sh with `perf script -s`), sample for sample.
#  2. simpleperf's files (perf 6.1 refuses them): the facts simpleperf's
#     tests assert, read from the corpus's EXPECTED_simpleperf_tests.txt.
#  3. damaged tracing data, and a RAW payload shorter than its format: an
#     error naming the file and an offset.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

total=0
for exp in tests/expected/trace_fields/*.tsv; do
    name=$(basename "$exp" .tsv)
    f=tests/fixtures/$name.data
    if ! "$PV_SQLRUN" "SELECT time, cpu, tid, trace_event, trace_fields FROM perf_samples($(sql_quote "$f")) WHERE trace_event IS NOT NULL" >"$tmp/got" 2>"$tmp/err"; then
        echo "not ok - $name: trace fields: $(head -c 300 "$tmp/err")"
        continue
    fi
    verdict=$(python3 tests/oracle/trace_fields_compare.py "$exp" "$tmp/got")
    case $verdict in
    ok\ *)
        echo "ok - $name: the fields of all ${verdict#ok } tracepoint samples equal perf's"
        total=$((total + ${verdict#ok }))
        ;;
    *) echo "not ok - $name: trace fields differ from perf: ${verdict#bad }" ;;
    esac
    # every tracepoint sample got fields, and only those
    got=$("$PV_SQLRUN" "SELECT count(*) FROM perf_samples($(sql_quote "$f")) WHERE (trace_event IS NULL) != (trace_fields IS NULL)" 2>&1)
    [ "$got" = 0 ] && echo "ok - $name: trace_event and trace_fields set together" \
        || echo "not ok - $name: $got samples with only one of trace_event/trace_fields"
done
echo "# trace_fields: $total tracepoint samples compared with perf script -s"

# 2. simpleperf
corpus=$PV_SHARED/corpus/simpleperf
facts=$corpus/EXPECTED_simpleperf_tests.txt
sp=$corpus/simpleperf/testdata
if [ -f "$facts" ]; then
    # "one sample has prev_pid == 9896 and next_comm == "swapper/4""
    line=$(grep -o 'one sample has prev_pid == [0-9]* and next_comm == "[^"]*"' "$facts")
    pid=$(sed 's/.*prev_pid == \([0-9]*\).*/\1/' <<<"$line")
    comm=$(sed 's/.*next_comm == "\([^"]*\)".*/\1/' <<<"$line")
    f=$sp/perf_with_tracepoint_event.data
    got=$("$PV_SQLRUN" "SELECT count(*) FROM perf_samples($(sql_quote "$f")) WHERE trace_event = 'sched:sched_switch' AND trace_fields ->> 'prev_pid' = $pid AND trace_fields ->> 'next_comm' = $(sql_quote "$comm")" 2>&1)
    if [ -n "$pid" ] && [ "$got" -ge 1 ] 2>/dev/null; then
        echo "ok - simpleperf perf_with_tracepoint_event.data: a sched_switch sample has prev_pid $pid and next_comm $comm"
    else
        echo "not ok - simpleperf perf_with_tracepoint_event.data: no sample with prev_pid '$pid' and next_comm '$comm': $got"
    fi
    # "cpu-cycles samples have no tracing data": per event, samples and
    # samples with fields; the tracepoint's all have them, the other's none
    got=$("$PV_SQLRUN" "SELECT group_concat(n || '/' || with_fields, ' ') FROM (SELECT count(*) AS n, count(trace_fields) AS with_fields FROM perf_samples($(sql_quote "$f")) GROUP BY (trace_event IS NULL) ORDER BY 2)" 2>&1)
    if [[ $got =~ ^([1-9][0-9]*)/0\ ([1-9][0-9]*)/([0-9]+)$ ]] && [ "${BASH_REMATCH[2]}" = "${BASH_REMATCH[3]}" ]; then
        echo "ok - simpleperf perf_with_tracepoint_event.data: ${BASH_REMATCH[2]} sched_switch samples have fields, ${BASH_REMATCH[1]} cpu-cycles samples none"
    else
        echo "not ok - simpleperf perf_with_tracepoint_event.data: fields on the wrong samples (samples/with fields per event): $got"
    fi
    # "one sample has name == "...""
    name=$(grep -A3 '^perf_with_tracepoint_event_dynamic_field.data' "$facts" | grep -o 'name == "[^"]*"' | head -1 | sed 's/name == "\(.*\)"/\1/')
    f=$sp/perf_with_tracepoint_event_dynamic_field.data
    got=$("$PV_SQLRUN" "SELECT count(*) FROM perf_samples($(sql_quote "$f")) WHERE trace_event = 'kprobes:myopen' AND trace_fields ->> 'name' = $(sql_quote "$name")" 2>&1)
    if [ -n "$name" ] && [ "$got" = 1 ]; then
        echo "ok - simpleperf perf_with_tracepoint_event_dynamic_field.data: the __data_loc string field name is $name in one sample"
    else
        echo "not ok - simpleperf perf_with_tracepoint_event_dynamic_field.data: name '$name' found in $got samples"
    fi
else
    echo "ok - simpleperf tracepoint files: 3 facts of simpleperf's tests # SKIP input absent: $facts"
fi

# 3. damaged tracing data
python3 - "$tmp" tests/fixtures/tracepoint.data tests/fixtures/tracepoint_pipe.data <<'PY'
import struct, sys
tmp, filemode, pipe = sys.argv[1:]
data = bytearray(open(filemode, 'rb').read())
i = data.find(b'\x17\x08\x44tracing')
bad = bytearray(data); bad[i + 3:i + 10] = b'XXXXXXX'          # magic
open(tmp + '/magic.data', 'wb').write(bad)
j = data.find(b'header_page\0', i)
bad = bytearray(data); bad[j + 12:j + 20] = struct.pack('<Q', 1 << 40)  # page header size
open(tmp + '/size.data', 'wb').write(bad)
p = bytearray(open(pipe, 'rb').read())
k = p.find(b'\x17\x08\x44tracing')
bad = p[:k + 200]                                             # cut inside the payload
open(tmp + '/cut_pipe.data', 'wb').write(bad)
# the first sample's RAW size cut to 12 bytes (the sample still parses: the
# size is the u32 after IDENTIFIER, IP, TID, TIME, CPU, PERIOD)
data_off = struct.unpack_from('<Q', data, 40)[0]
at = data_off
while struct.unpack_from('<I', data, at)[0] != 9:
    at += struct.unpack_from('<H', data, at + 6)[0]
bad = bytearray(data); struct.pack_into('<I', bad, at + 8 + 48, 12)
open(tmp + '/short_raw.data', 'wb').write(bad)
PY
for bad in magic size cut_pipe short_raw; do
    f=$tmp/$bad.data
    if out=$("$PV_SQLRUN" "SELECT count(trace_fields) FROM perf_samples($(sql_quote "$f"))" 2>&1); then
        echo "not ok - damaged tracing data ($bad): no error, got $out"
    elif grep -q "$bad.data" <<<"$out" && grep -q 'offset 0x' <<<"$out"; then
        echo "ok - damaged tracing data ($bad): ${out#Error: }"
    else
        echo "not ok - damaged tracing data ($bad): the error does not name file and offset: $out"
    fi
done
