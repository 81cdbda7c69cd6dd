#!/usr/bin/env bash
# A tracepoint format libtraceevent would crash on is not handed to it
# (src/trace_format_check.h).  The input: tracepoint_kinds.data with one
# byte changed, so that sched_switch's print fmt hands __print_flags the
# undeclared field REC->0rev_state (the shape fuzz_sql found; same length,
# so the file stays whole).  libtraceevent 1.7 dereferences NULL on it:
# perf script, which uses it too, dies of SIGSEGV on this file (printed
# below, not checked: another perf may not).  perfvtab reads every sample,
# gives the other events' fields, and says which samples have none.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
orig=tests/fixtures/tracepoint_kinds.data
bad=$tmp/bad_format.data
python3 - "$orig" "$bad" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
needle = b'__print_flags(REC->prev_state'
at = d.find(needle)
assert at > 0 and d.find(needle, at + 1) < 0, 'one __print_flags(REC->prev_state in the fixture'
d[at + len(b'__print_flags(REC->')] = ord('0')
open(sys.argv[2], 'wb').write(d)
PY
perf_rc=0
{ timeout 60 perf script -i "$bad" >/dev/null 2>&1; } 2>/dev/null || perf_rc=$?
echo "# perf script on the damaged copy: exit status $perf_rc (139: SIGSEGV, in libtraceevent)"

got=$(sqlrun "SELECT count(*) FROM perf_samples('$bad')")
want=$(sqlrun "SELECT count(*) FROM perf_samples('$orig')")
check "every sample of the damaged copy is read ($want)" "$got" "$want"
got=$(sqlrun "SELECT event, count(trace_fields) FROM perf_samples('$bad') GROUP BY 1 ORDER BY 1")
want=$(sqlrun "SELECT event, count(trace_fields) * (event <> 'sched:sched_switch') FROM perf_samples('$orig') GROUP BY 1 ORDER BY 1")
check "the other events keep their fields, sched_switch has none" "$got" "$want"
got=$(sqlrun "SELECT group_concat(trace_fields) FROM perf_samples('$bad') WHERE event <> 'sched:sched_switch'")
want=$(sqlrun "SELECT group_concat(trace_fields) FROM perf_samples('$orig') WHERE event <> 'sched:sched_switch'")
check "the other events' fields are the original's" "$got" "$want"
got=$(sqlrun "SELECT severity, kind, count FROM perf_diagnostics('$bad')")
want=$(printf 'warning\tundescribed_tracepoint\t%s' "$(sqlrun "SELECT count(*) FROM perf_samples('$orig') WHERE event = 'sched:sched_switch'")")
check "perf_diagnostics: one warning counting the samples without fields" "$got" "$want"
got=$(sqlrun "SELECT count(*) FROM perf_diagnostics('$orig')")
check "the original has no diagnostics" "$got" "0"

# The guard keeps no real format from libtraceevent: every format of the
# running kernel is judged safe (tracefs must be mounted; the test does not
# mount it).
formats=(/sys/kernel/tracing/events/*/*/format)
if [ ! -f "${formats[0]}" ]; then
    echo "ok - every tracefs format of this kernel is judged safe # SKIP tracefs is not mounted at /sys/kernel/tracing"
else
    got=$("$PV_BUILD/tools/trace_format_check" "${formats[@]}" | tail -n 1)
    check "every tracefs format of this kernel is judged safe" "$got" "${#formats[@]} formats, 0 unsafe"
fi
