#!/usr/bin/env bash
# perf_pprof(path [, event]): the profile go tool pprof reads, against perf report.
#
#   SELECT writefile('p.pb.gz', perf_pprof('F'))   (sqlrun has the shell's writefile)
#
# then tests/oracle/pprof_vs_perf.py compares `go tool pprof -top` (flat% and cum%)
# with `perf report --no-children` / `--children --sort dso,sym` taken here,
# on the committed fixtures:
#   example.data, fp.data
#                frame-pointer callchains, the workload's binary from
#                fixtures/symbols (perf_symbol_path, perf --buildid-dir)
#                for both; kernel frames named only where this machine runs
#                the recorded kernel;
#   dwarf.data   --call-graph dwarf, unwound through that binary;
#   multi.data   two events (cpu-clock, page-faults; no callchains): the
#                default event and `event` picking the second, and the
#                labels (comm, cpu, pid) against perf report --sort;
# and on two recordings made here, which need the recorded binaries:
#   workload.c with -g: kernel frames that perf names (this machine's
#                kallsyms), every one compared;
#   srcline/hot_lines.c at -O2 with --call-graph dwarf: inline frames (mix
#                inlined into hot_a is one Location, Lines mix then hot_a,
#                with file and line), the mapping's build-id as perf's.
# Without go (Debian's golang-go), the checks that need it are skips; in CI
# (CI=true) scripts/install-deps.sh installs it, so there it is a failure.
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
export PV_SQLRUN=$sqlrun
fixtures=$root/tests/fixtures
compare=$root/tests/oracle/pprof_vs_perf.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# ---- without go: the value and the errors ----
fp=$(sql_quote "$fixtures/fp.data")
check "pprof: a gzip BLOB" \
    "$(sqlrun "SELECT typeof(perf_pprof($fp)), hex(substr(perf_pprof($fp), 1, 3))")" \
    "blob	1F8B08"
got=$(sqlrun "SELECT perf_pprof($(sql_quote "$tmp/missing.data"))")
case "$got" in
*"$tmp/missing.data: cannot open"*) ok "pprof: a missing file is an error naming it" ;;
*) not_ok "pprof: a missing file is an error naming it" "$got"; status=1 ;;
esac
check "pprof: an event the file lacks is an error listing its events" \
    "$(sqlrun "SELECT perf_pprof($(sql_quote "$fixtures/multi.data"), 'cycles')")" \
    "Error: perf_pprof: $fixtures/multi.data has no event 'cycles' (its events: cpu-clock, page-faults, dummy:HG)"
check "pprof: the same profile from the default event and the first event by name" \
    "$(sqlrun "SELECT perf_pprof($(sql_quote "$fixtures/multi.data")) =
                      perf_pprof($(sql_quote "$fixtures/multi.data"), 'cpu-clock')")" 1
check "pprof: DIRECTONLY, a view in the database cannot read files through it" \
    "$(sqlrun "CREATE VIEW v AS SELECT perf_pprof($fp) AS p; SELECT length(p) FROM v")" \
    "Error: unsafe use of perf_pprof()"

# ---- with go tool pprof ----
planned=(
    "example.data: flat% and cum% as perf report, the workload's functions named"
    "fp.data: flat% and cum% as perf report, kernel frames unresolved in both"
    "dwarf.data: flat% and cum% as perf report"
    "multi.data (default event cpu-clock): flat%, cum% and labels comm, cpu, pid as perf report"
    "multi.data, event page-faults: flat%, cum% and labels as perf report's page-faults"
    "live -g recording: kernel frames named, cum% of each as perf report --children"
    "live --call-graph dwarf recording: inline frames, flat% and cum% as perf report"
    "live --call-graph dwarf recording: a location holds mix then hot_a, with their lines"
    "live --call-graph dwarf recording: the mapping carries perf's build-id"
)
if ! command -v go >/dev/null || ! go tool pprof -h >/dev/null 2>&1; then
    for what in "${planned[@]}"; do
        if [ "${CI:-}" = true ]; then
            not_ok "pprof: $what" "go tool pprof is missing (scripts/install-deps.sh installs golang-go)"
            status=1
        else
            echo "ok - pprof: $what # SKIP input absent: go tool pprof (Debian golang-go)"
        fi
    done
    exit $status
fi
export GOCACHE=$tmp/gocache HOME=${HOME:-$tmp}
# pprof must not reach out for symbols: the profile has them
export PPROF_BINARY_PATH=$tmp/none

profile() {     # profile OUT DATA [EVENT]; $symdir: perf_symbol_path's
    local event="" paths="SELECT perf_symbol_path(NULL, $(sql_quote "${symdir:-}"));"
    [ $# -gt 2 ] && event=", $(sql_quote "$3")"
    sqlrun "$paths SELECT writefile($(sql_quote "$1"), perf_pprof($(sql_quote "$2")$event))" \
        >"$tmp/write.log"
}

compare_file() {    # compare_file NAME DATA [EVENT] -- compare args
    local name=$1 data=$2 event=""
    shift 2
    if [ $# -gt 0 ] && [ "$1" != -- ]; then event=$1; shift; fi
    [ "${1:-}" = -- ] && shift
    local out=$tmp/$name.pb.gz
    if ! profile "$out" "$data" ${event:+"$event"}; then
        not_ok "pprof $name: perf_pprof" "$(oneline "$tmp/write.log")"
        status=1
        return
    fi
    python3 "$compare" "pprof $name" "$out" "$data" ${event:+--event "$event"} "$@" || status=1
}

for f in example fp dwarf; do
    symdir=$fixtures/symbols compare_file $f.data "$fixtures/$f.data" -- --buildid-dir "$fixtures/symbols"
done
compare_file multi.data "$fixtures/multi.data" -- --labels
compare_file multi.data-page-faults "$fixtures/multi.data" page-faults -- --labels

# ---- live recordings: the binaries must be the recorded ones ----
if ! command -v gcc >/dev/null; then
    for what in "${planned[@]:5}"; do
        echo "ok - pprof: $what # SKIP input absent: gcc"
    done
    exit $status
fi
gcc -O1 -fno-omit-frame-pointer -g -o "$tmp/workload" "$fixtures/workload.c" 2>"$tmp/gcc.log" &&
    gcc -g -O2 -fno-omit-frame-pointer -o "$tmp/hot_lines" "$fixtures/srcline/hot_lines.c" \
        2>>"$tmp/gcc.log" || { not_ok "pprof: gcc" "$(oneline "$tmp/gcc.log")"; exit 1; }

# perf's kernel functions by name (`[k]` rows of perf report --children)
kernel_named() {
    perf report -i "$1" --children --sort dso,sym --stdio 2>/dev/null |
        grep -E '\[k\] [a-zA-Z_]' | wc -l
}
# The check needs a recording in which perf names kernel functions.  In one
# CI run of many, perf report named none (every [k] row an address) while
# the recording had its usual few dozen kernel frames: not reproduced since.
# Such a recording is made once more, and what perf showed is printed.
recorded=
for attempt in 1 2; do
    if ! timeout 60 perf record -q -g -F 999 -o "$tmp/live_fp.data" -- "$tmp/workload" 20 \
            >"$tmp/record.log" 2>&1; then
        break
    fi
    recorded=yes
    named=$(kernel_named "$tmp/live_fp.data")
    [ "$named" -ge 3 ] && break
    echo "# pprof live -g, recording $attempt: perf report names $named kernel functions;" \
         "its [k] rows: $(perf report -i "$tmp/live_fp.data" --children --sort dso,sym --stdio 2>/dev/null |
                          grep -c '\[k\]')"
done
if [ -n "$recorded" ]; then
    compare_file live-fp "$tmp/live_fp.data" -- --min-kernel 3 --labels
else
    not_ok "pprof live -g: perf record" "$(oneline "$tmp/record.log")"
    status=1
fi

data=$tmp/live_dwarf.data
if timeout 60 perf record -q --call-graph dwarf,8192 -F 999 -o "$data" -- "$tmp/hot_lines" 100 \
        >"$tmp/record.log" 2>&1; then
    compare_file live-dwarf "$data"
    raw=$(go tool pprof -raw "$tmp/live-dwarf.pb.gz" 2>&1)
    # a Location's Lines: "id: address M=n function file:line", then the
    # functions it is inlined into on the lines below, innermost first
    inline=$(awk -v src="$fixtures/srcline/hot_lines.c" '
        /^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ mix / { mix = index($0, src ":") > 0; next }
        mix && $1 == "hot_a" && index($0, src ":21 ") { found = 1 }
        { mix = 0 }
        END { print found ? "mix, then hot_a at hot_lines.c:21" : "none" }' <<<"$raw")
    check "pprof live-dwarf: a location holds mix then hot_a, with their lines" \
        "$inline" "mix, then hot_a at hot_lines.c:21"
    build_id=$(perf buildid-list -i "$data" 2>/dev/null | awk -v b="$tmp/hot_lines" '$2 == b { print $1 }')
    mapped=$(awk -v b="$tmp/hot_lines" -v id="$build_id" \
        '/^Mappings/ { on = 1 } on && index($0, b) && index($0, id) { n++ } END { print n + 0 }' <<<"$raw")
    if [ -n "$build_id" ] && [ "$mapped" -ge 1 ]; then
        ok "pprof live-dwarf: the mapping of hot_lines carries perf's build-id $build_id"
    else
        not_ok "pprof live-dwarf: the mapping carries perf's build-id" \
            "perf buildid-list says '$build_id'; pprof -raw mappings: $(grep -A5 '^Mappings' <<<"$raw" | tr '\n' ' ' | head -c 300)"
        status=1
    fi
else
    not_ok "pprof live --call-graph dwarf: perf record" "$(oneline "$tmp/record.log")"
    status=1
fi
exit $status
