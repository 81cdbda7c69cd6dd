#!/usr/bin/env bash
# Runs the whole suite twice: with the plain build and with the ASan+UBSan
# build.  Each test (a C unit binary from tests/unit/ or a tests/t_*.sh
# script) prints one line per check: "ok - what" or "not ok - what: why".
# The last line of the output is "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
export PV_ROOT=$PWD
export PV_SHARED=${PV_SHARED:-$PWD/../shared}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
passed=0
failed=0

run_one() {  # flavour-label, command...
    local label=$1
    shift
    local out="$log/out"
    "$@" >"$out" 2>"$log/err"
    local status=$?
    local ok nok
    ok=$(grep -c '^ok - ' "$out")
    nok=$(grep -c '^not ok - ' "$out")
    grep '^not ok - ' "$out" | sed "s|^|[$label] |"
    grep '^# ' "$out" | sed "s|^|[$label] |"
    # A crash, a sanitizer report or a test that checked nothing is a failure
    # even when no "not ok" line was printed.
    if { [ "$status" -ne 0 ] || [ "$ok" -eq 0 ]; } && [ "$nok" -eq 0 ]; then
        echo "not ok - [$label] $* exited with status $status after $ok checks"
        sed 's/^/    /' "$log/err" | tail -n 20
        nok=$((nok + 1))
    fi
    passed=$((passed + ok))
    failed=$((failed + nok))
}

for flavour in build build/san; do
    export PV_BUILD=$PWD/$flavour
    export PV_SQLRUN=$PV_BUILD/sqlrun
    label=${flavour#build/}
    [ "$label" = build ] && label=plain
    for unit in "$PV_BUILD"/unit/*; do
        [ -x "$unit" ] && run_one "$label $(basename "$unit")" "$unit"
    done
    for script in tests/t_*.sh; do
        [ -f "$script" ] || continue
        if [ "$flavour" = build/san ] && grep -q '^# plain-only' "$script"; then
            continue
        fi
        run_one "$label $(basename "$script")" bash "$script"
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
