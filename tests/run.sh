#!/usr/bin/env bash
# Runs the whole suite twice: with the plain build and with the ASan+UBSan
# build.  Each test (a C unit binary from tests/unit/ or a tests/t_*.sh
# script) prints one line per check:
#   ok - what
#   not ok - what: why
#   ok - what # SKIP why                  a check that could not run here
#   ok - what # SKIP input absent: what   ... because its input file is absent
# Skips are counted apart, never as passed.  With CI=true, an "input absent"
# skip is a failure: CI has ../shared, so every check must find its input
# there.  Other skips (the kernel or perf lacks a feature) stay skips.
# Each test file's wall time is printed ("# time ..."), the slowest ten again
# at the end; the last line is "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
export PV_ROOT=$PWD
export PV_SHARED=${PV_SHARED:-$PWD/../shared}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# libtraceevent's own leak on malformed formats (tests/fuzz/lsan.supp says why)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
passed=0
failed=0
skipped=0
ci=${CI:-false}
: >"$log/times"

now() { date +%s.%N; }

run_one() {  # label, command...
    local label=$1
    shift
    local out="$log/out"
    local start end seconds
    start=$(now)
    "$@" >"$out" 2>"$log/err"
    local status=$?
    end=$(now)
    seconds=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
    local ok nok skip absent
    skip=$(grep -c '^ok - .*# SKIP' "$out")
    absent=$(grep -c '^ok - .*# SKIP input absent' "$out")
    ok=$(( $(grep -c '^ok - ' "$out") - skip ))
    nok=$(grep -c '^not ok - ' "$out")
    grep '^not ok - ' "$out" | sed "s|^|[$label] |"
    grep '^ok - .*# SKIP' "$out" | sed "s|^|[$label] |"
    grep '^# ' "$out" | sed "s|^|[$label] |"
    if [ "$ci" = true ] && [ "$absent" -gt 0 ]; then
        echo "not ok - [$label] CI=true: $absent checks skipped for absent input"
        nok=$((nok + absent))
        skip=$((skip - absent))
    fi
    # A crash, a sanitizer report or a test that neither checked nor skipped
    # anything is a failure even when no "not ok" line was printed.
    if { [ "$status" -ne 0 ] || [ $((ok + skip)) -eq 0 ]; } && [ "$nok" -eq 0 ]; then
        echo "not ok - [$label] $* exited with status $status after $ok checks, $skip skips"
        sed 's/^/    /' "$log/err" | tail -n 20
        nok=$((nok + 1))
    fi
    echo "# time $label ${seconds}s"
    echo "$seconds $label" >>"$log/times"
    passed=$((passed + ok))
    failed=$((failed + nok))
    skipped=$((skipped + skip))
}

suite_start=$(now)
# PV_FLAVOURS="build" runs the plain pass only (for a quick check while working).
for flavour in ${PV_FLAVOURS:-build build/san}; do
    export PV_BUILD=$PWD/$flavour
    export PV_SQLRUN=$PV_BUILD/sqlrun
    flavour_label=${flavour#build/}
    [ "$flavour_label" = build ] && flavour_label=plain
    for unit in "$PV_BUILD"/unit/*; do
        [ -x "$unit" ] && run_one "$flavour_label $(basename "$unit")" "$unit"
    done
    for script in tests/t_*.sh; do
        [ -f "$script" ] || continue
        if [ "$flavour" = build/san ] && grep -q '^# plain-only' "$script"; then
            continue
        fi
        run_one "$flavour_label $(basename "$script")" bash "$script"
    done
done
echo "# slowest test files:"
sort -rn "$log/times" | head -n 10 | sed 's/^\([^ ]*\) \(.*\)/#   \1s \2/'
awk -v s="$suite_start" -v e="$(now)" 'BEGIN { printf "# whole suite: %.0fs\n", e - s }'
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
