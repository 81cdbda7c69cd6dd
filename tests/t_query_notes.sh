#!/usr/bin/env bash
# plain-only: the queries run in the sqlite3 shell, which loads build/perfvtab.so.
# The ready queries of sql/ say why they show nothing, in SQL (run here with
# the shell's .read, as a user without perfsql would): every query on a file
# that lacks what it needs prints a note or a row that says what is missing
# instead of nothing.  The files: an empty recording (example.data's header
# with no records, made here), a `perf stat record` file, recordings without
# sched_switch or callchains, a killed recording, recordings with lost
# events, and one whose cmdline spans two lines (example.data with a byte
# of its cmdline feature made a line break, made here).  Also overview.sql's
# damage: perf_diagnostics' errors and warnings and the lost events, with
# the counts the tables give.
#
# Env: PV_ROOT, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}"
ext=$PV_ROOT/build/perfvtab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx=$PV_ROOT/tests/fixtures
example=$fx/example.data
for f in "$example" "$fx/stat.data" "$fx/fp.data" "$fx/multi.data" "$fx/killed/killed.data"; do
    if [ ! -f "$f" ]; then
        echo "not ok - fixture missing: $f"
        exit 0
    fi
done

dq() {
    local s=${1//\\/\\\\}
    printf '"%s"' "${s//\"/\\\"}"
}

# run QUERY FILE [NAME=SQL-LITERAL]...: sql/QUERY.sql through .read into
# $tmp/out (column mode with headers, as a person reads it), stderr into
# $tmp/err; from $tmp, where the flame graphs write their SVGs; symbols from
# the fixtures' build-id directory.
run() {
    local q=$1 f=$2 p
    shift 2
    local args=(-bail -batch -header -cmd '.mode column --wrap 0' -cmd ".load $(dq "$ext")"
                -cmd ".param set @file $(dq "$(sql_quote "$f")")")
    # the fixtures' binaries, for names
    args+=(-cmd ".output /dev/null" -cmd "SELECT perf_symbol_path(NULL, $(sql_quote "$fx/symbols"));"
           -cmd ".output stdout")
    for p in "$@"; do
        args+=(-cmd ".param set @${p%%=*} $(dq "${p#*=}")")
    done
    (cd "$tmp" && sqlite3 "${args[@]}" :memory: ".read $(dq "$PV_ROOT/sql/$q.sql")" \
        >"$tmp/out" 2>"$tmp/err" </dev/null)
}

# says WHAT QUERY FILE TEXT [PARAM]...: the query runs and prints TEXT
says() {
    local what=$1 q=$2 f=$3 text=$4
    shift 4
    if ! run "$q" "$f" "$@"; then
        not_ok "$what: $q.sql" "failed: $(oneline "$tmp/err")"
    elif grep -qF -- "$text" "$tmp/out"; then
        ok "$what: $q.sql says '$text'"
    else
        not_ok "$what: $q.sql" "does not say '$text'; it prints: $(oneline "$tmp/out")"
    fi
}

# An empty recording: example.data's header and event, no record (data size
# 0, no feature sections).
python3 - "$example" "$tmp/empty.data" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
data_offset, = struct.unpack_from('<Q', d, 40)
head = bytearray(d[:data_offset])
struct.pack_into('<Q', head, 48, 0)     # data size
head[72:104] = bytes(32)                # no feature sections
open(sys.argv[2], 'wb').write(head)
PY
empty=$tmp/empty.data
check "the empty recording has no record and one event" \
    "$(sqlrun "SELECT (SELECT count(*) FROM perf_records('$empty')) || ' ' ||
                      (SELECT count(*) FROM perf_events('$empty'))")" "0 1"

# Every query, on a file without samples, prints something that says so.
for q in "$PV_ROOT"/sql/*.sql; do
    q=$(basename "$q" .sql)
    if ! run "$q" "$empty" "base=$(sql_quote "$empty")"; then
        not_ok "$q.sql on an empty recording" "failed: $(oneline "$tmp/err")"
    elif grep -q 'no samples\|no records\|no sched:sched_switch\|(none)\|no errors or warnings' "$tmp/out"; then
        ok "$q.sql on an empty recording says why it has nothing: $(grep -m1 'no \|(none)' "$tmp/out" | sed 's/  */ /g' | cut -c1-100)"
    else
        not_ok "$q.sql on an empty recording" "prints no reason: $(oneline "$tmp/out")"
    fi
done

# A perf stat record file has counts, not samples.
for q in samples_by_process samples_by_thread samples_by_event flat_profile functions processes \
         inclusive_profile srcline_profile folded_stacks; do
    says "stat.data (perf stat record)" "$q" "$fx/stat.data" 'a `perf stat record` file holds counts'
done

# Off-CPU time needs sched_switch or offcpu-time samples.
for q in offcpu offcpu_flamegraph; do
    says "fp.data (no sched_switch)" "$q" "$fx/fp.data" \
        'no sched:sched_switch or offcpu-time samples: record with `perf record -g -e cpu-clock -e sched:sched_switch --switch-events -- PROGRAM`'
done

# A process that is not there, and one that is not a number.
npids=$(sqlrun "SELECT count(DISTINCT pid) FROM perf_samples('$fx/fp.data')")
says "fp.data, @pid 999999" process_mappings "$fx/fp.data" \
    "no process 999999 in this file (it has $npids with samples" pid=999999
says "fp.data, @pid 'abc'" process_mappings "$fx/fp.data" \
    "pid must be an integer (a process id), not 'abc'" "pid='abc'"
says "multi.data, @pid 0 (the idle task)" process_mappings "$fx/multi.data" \
    "process 0 has no MMAP or MMAP2 records" pid=0

# A function that is not there.
for q in annotate callers_callees; do
    says "example.data, @sym no_such_function" "$q" "$example" \
        "'no_such_function'" "sym='no_such_function'"
done
says "example.data, @sym hash (with the fixtures' symbols)" annotate "$example" \
    "functions like it:" "sym='hash'"

# An event that is not there.
events=$(sqlrun "SELECT group_concat(name, ', ') FROM perf_events('$example')")
for q in folded_stacks flamegraph diff_flamegraph; do
    says "example.data, @event no-such-event" "$q" "$example" \
        "no event 'no-such-event' in $example; its events: $events" "event='no-such-event'"
done
says "example.data, @event no-such-event" offcpu_flamegraph "$fx/offcpu/sleeper.data" \
    "'no-such-event' is not a cpu-clock or task-clock event" "event='no-such-event'"
says "example.data, @weight bytes" flamegraph "$example" \
    "weight must be 'samples' or 'period', not 'bytes'" "weight='bytes'"

# Stacks need callchains: multi.data was recorded without -g.
for q in folded_stacks flamegraph callers_callees inclusive_profile; do
    says "multi.data (no -g)" "$q" "$fx/multi.data" 'the file has no callchains; record with `perf record -g`'
done

# diff.sql needs @base, with samples.  Without @base it cannot run: the
# note comes before the error.
if run diff "$example"; then
    not_ok "diff.sql without @base" "ran: $(oneline "$tmp/out")"
elif grep -q '^the base recording is not set' "$tmp/out" && grep -q 'perf_profile: needs the path' "$tmp/err"; then
    ok "diff.sql without @base says 'the base recording is not set' before the error"
else
    not_ok "diff.sql without @base" "no note: $(oneline "$tmp/out") $(oneline "$tmp/err")"
fi
says "diff.sql, @base a perf stat record file" diff "$example" \
    "no samples in the base recording: a \`perf stat record\` file" "base=$(sql_quote "$fx/stat.data")"

# build_ids.sql on a killed recording: perf wrote no build-ids.
says "killed.data" build_ids "$fx/killed/killed.data" "perf record was stopped (killed?) before it wrote them"

# A query with what it needs prints no note.
for q in flat_profile process_mappings folded_stacks offcpu; do
    f=$example
    [ "$q" = offcpu ] && f=$fx/offcpu/sleeper.data
    if run "$q" "$f" && ! grep -q '^note' "$tmp/out" && [ -s "$tmp/out" ]; then
        ok "$q.sql on $(basename "$f"), which has what it needs: rows and no note"
    else
        not_ok "$q.sql on $(basename "$f")" "a note, or no rows: $(oneline "$tmp/out") $(oneline "$tmp/err")"
    fi
done

# ---- overview.sql: the damage, the lost events, multi-line values ----

# section NAME: the rows of overview's section "== NAME" in $tmp/out,
# without its header lines
section() {
    awk -v s="== $1" '$0 == s { on = 1; n = 0; next } /^== / { on = 0 } on && ++n > 2' "$tmp/out"
}

killed=$fx/killed/killed.data
if run overview "$killed"; then
    want=$(sqlrun "SELECT severity || ' ' || kind || ' ' || count || ' ' || value
                   FROM perf_diagnostics('$killed') WHERE severity IN ('error', 'warning')")
    got=$(section diagnostics | awk '{ print $1, $2, $3, $4 }')
    check "killed.data: overview's diagnostics show perf_diagnostics' warning with its count and value" \
        "$got" "$want"
    if section header | grep -q '^(none) *no header features: perf record was stopped before it wrote them'; then
        ok "killed.data: overview's header section says why it is empty"
    else
        not_ok "killed.data: overview's header section" "says nothing of the missing features: $(section header | head -c 300)"
    fi
else
    not_ok "overview.sql on killed.data" "failed: $(oneline "$tmp/err")"
fi

# Recordings with lost events (committed copies of quipper's and
# simpleperf's test files): the section's counts are perf_lost's.
for f in "$PV_ROOT/tests/corpus/perf_data_converter/src/quipper/testdata/perf.data.lost_samples-4.4" \
         "$PV_ROOT/tests/corpus/simpleperf/simpleperf/testdata/perf_b.data"; do
    name=$(basename "$f")
    if [ ! -f "$f" ]; then
        not_ok "lost events of $name" "the file is missing"
        continue
    fi
    if ! run overview "$f"; then
        not_ok "overview.sql on $name" "failed: $(oneline "$tmp/err")"
        continue
    fi
    want=$(sqlrun "SELECT kind || ' ' || event || ' ' || count(*) || ' ' || sum(lost)
                   FROM perf_lost('$f') GROUP BY kind, event ORDER BY kind, event")
    check "$name: overview's lost events are perf_lost's records and counts per event" \
        "$(section 'lost events' | awk '{ print $1, $2, $3, $4 }')" "$want"
    want=$(sqlrun "SELECT severity || ' ' || kind || ' ' || count || ' ' || value
                   FROM perf_diagnostics('$f') WHERE severity IN ('error', 'warning') ORDER BY 1")
    check "$name: overview's diagnostics show the lost events' warning with its counts" \
        "$(section diagnostics | awk '{ print $1, $2, $3, $4 }')" "$want"
done

if run overview "$example"; then
    check "example.data (no damage): overview's diagnostics say so" \
        "$(section diagnostics | sed 's/  */ /g; s/ *$//')" "none no errors or warnings"
    check "example.data (nothing lost): overview's lost events say so" \
        "$(section 'lost events' | sed 's/  */ /g; s/ *$//')" "none 0 0"
fi

# A cmdline of two lines: example.data with "example.data" in its cmdline
# feature made "example\ndata" (same length, so the file stays whole).
read -r off size < <(sqlrun "SELECT offset || ' ' || size FROM perf_features('$example') WHERE name = 'cmdline'")
python3 - "$example" "$tmp/two_lines.data" "$off" "$size" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, size = int(sys.argv[3]), int(sys.argv[4])
at = d.find(b'example.data', off, off + size)
assert at >= 0
d[at + 7] = 10
open(sys.argv[2], 'wb').write(d)
PY
check "the two-line copy's cmdline holds a line break" \
    "$(sqlrun "SELECT count(*) FROM perf_features('$tmp/two_lines.data') AS f, json_each(f.value) AS w
               WHERE f.name = 'cmdline' AND instr(w.value, char(10)) > 0")" 1
if run overview "$tmp/two_lines.data"; then
    rows=$(section header | wc -l)
    want=$(sqlrun "SELECT count(*) FROM perf_features('$tmp/two_lines.data')
                   WHERE name IN ('hostname', 'osrelease', 'version', 'arch', 'nrcpus', 'cpudesc', 'total_mem', 'cmdline')")
    check "a two-line cmdline: overview's header section has one line per feature, no blank line" \
        "$rows $(section header | grep -c '^ *$')" "$want 0"
    if section header | grep -q '^cmdline .* example\\ndata '; then
        ok "a two-line cmdline: shown with its line break as \\n"
    else
        not_ok "a two-line cmdline" "not shown escaped: $(section header | grep cmdline)"
    fi
else
    not_ok "overview.sql on the two-line copy" "failed: $(oneline "$tmp/err")"
fi
