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
# Each test sees none of the machine's state: it gets its own empty HOME (no
# ~/.debug build-id cache, no perf config) and, where the runner is root and
# `unshare -m` works, its own mount namespace with an empty tmpfs on /tmp, so
# that nothing an earlier test or recording left in /tmp can help it
# (tests/lib/isolate.sh; the first lines of the output say which).
# PV_TESTS="tests/t_a.sh ..." runs those scripts only, and no unit binaries.
# Tests run as parallel jobs (PV_JOBS, default one more than the core count); each
# result is printed when its test ends.  Each test file's wall time is printed ("# time ..."), the slowest ten again
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
isolate=$PWD/tests/lib/isolate.sh
PV_ISOLATION=$(bash "$isolate" --probe)
export PV_ISOLATION
if [ "$PV_ISOLATION" = tmpfs ]; then
    echo "# isolation: each test has an empty HOME and its own empty /tmp (a tmpfs in a private mount namespace)"
else
    echo "# isolation: could not give each test its own /tmp (${PV_ISOLATION#home: }); each has an empty HOME, and they share this machine's /tmp"
fi
passed=0
failed=0
skipped=0
ci=${CI:-false}
: >"$log/times"
: >"$log/cpu"

now() { date +%s.%N; }

# Each test runs in the background into its own folder; at most PV_JOBS
# (default: the number of cores plus one) run at once, so the plain and sanitizer passes
# overlap.  Tests share nothing but the read-only tree: each makes its own
# temporary files.
# One more than the cores: many tests wait part of their time (on a live
# perf record, a pipe, a child), and a third job takes the core they leave.
jobs_max=${PV_JOBS:-$(( $(nproc 2>/dev/null || echo 2) + 1 ))}
job_count=0
running=0

start_job() {  # label, command...
    job_count=$((job_count + 1))
    local dir="$log/job$job_count"
    mkdir -p "$dir"
    printf '%s\n' "$1" >"$dir/label"
    shift
    printf '%s ' "$@" >"$dir/command"
    (
        start=$(now)
        mkdir -m 700 "$dir/home"
        bash "$isolate" "$dir/home" "$@" >"$dir/out" 2>"$dir/err"
        status=$?
        end=$(now)
        awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }' >"$dir/seconds"
        # the processor time of the test and what it waited for (user +
        # system): unlike the wall time, not stretched by a loaded machine
        # (the builtin, redirected: in a pipe it would count a new subshell's)
        times >"$dir/times"
        awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); cpu += t[1] * 60 + t[2] }
                       printf "%.1f", cpu }' "$dir/times" >"$dir/cpu"
        echo "$status" >"$dir/status.tmp" && mv "$dir/status.tmp" "$dir/status"
    ) &
    running=$((running + 1))
}

report_job() {  # job folder
    local dir=$1 label status seconds cpu out="$1/out"
    label=$(cat "$dir/label")
    status=$(cat "$dir/status")
    seconds=$(cat "$dir/seconds")
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
    # a skip must be "ok - what # SKIP why" to be counted: any other form
    # would pass uncounted
    local stray
    stray=$(grep -c '^skip' "$out")
    if [ "$stray" -gt 0 ]; then
        echo "not ok - [$label] $stray skip lines not in the form 'ok - what # SKIP why': $(grep -m1 '^skip' "$out" | cut -c1-200)"
        nok=$((nok + stray))
    fi
    # A crash, a sanitizer report or a test that neither checked nor skipped
    # anything is a failure even when no "not ok" line was printed.
    if { [ "$status" -ne 0 ] || [ $((ok + skip)) -eq 0 ]; } && [ "$nok" -eq 0 ]; then
        echo "not ok - [$label] $(cat "$dir/command")exited with status $status after $ok checks, $skip skips"
        sed 's/^/    /' "$dir/err" | tail -n 20
        nok=$((nok + 1))
    fi
    cpu=$(cat "$dir/cpu")
    echo "# time $label ${seconds}s (processor ${cpu}s)"
    echo "$seconds $label" >>"$log/times"
    echo "$cpu" >>"$log/cpu"
    passed=$((passed + ok))
    failed=$((failed + nok))
    skipped=$((skipped + skip))
    touch "$dir/reported"
}

report_finished() {
    local dir
    for dir in "$log"/job*; do
        if [ -f "$dir/status" ] && [ ! -f "$dir/reported" ]; then
            report_job "$dir"
            running=$((running - 1))
        fi
    done
}

run_one() {  # label, command...: starts it once a slot is free
    report_finished
    while [ "$running" -ge "$jobs_max" ]; do
        sleep 0.2
        report_finished
    done
    start_job "$@"
}

suite_start=$(now)
# PV_FLAVOURS="build" runs the plain pass only (for a quick check while working).
# The sanitizer pass's scripts start before the plain pass's (they are
# slower), and the short unit binaries fill the slots at the end.
flavours=${PV_FLAVOURS:-build/san build}
# A marker is a line "# NAME" among a script's first 5 lines (below them
# it may be text the script writes: t_runner.sh's probes).
has_marker() {  # name script
    head -n 5 "$2" | grep -q "^# $1"
}
# Scripts marked "# long-running" (a minute or more) start before all others,
# in both flavours, so that none of them begins as the suite's last job.
long_scripts=()
other_scripts=()
for script in ${PV_TESTS:-tests/t_*.sh}; do
    [ -f "$script" ] || continue
    if has_marker long-running "$script"; then
        long_scripts+=("$script")
    else
        other_scripts+=("$script")
    fi
done
run_scripts() {  # script...: each in every flavour that runs it
    local flavour flavour_label script
    for flavour in $flavours; do
        flavour_label=${flavour#build/}
        [ "$flavour_label" = build ] && flavour_label=plain
        for script in "$@"; do
            if [ "$flavour" = build/san ] && has_marker plain-only "$script"; then
                continue
            fi
            # "# sanitized-only": its checks (no crash, hang or sanitizer
            # report) are the plain pass's and more; plain runs it only
            # when the sanitizer pass is not run
            if [ "$flavour" = build ] && [[ " $flavours " == *" build/san "* ]] &&
                has_marker sanitized-only "$script"; then
                continue
            fi
            export PV_BUILD=$PWD/$flavour PV_SQLRUN=$PWD/$flavour/sqlrun
            run_one "$flavour_label $(basename "$script")" bash "$script"
        done
    done
}
run_scripts "${long_scripts[@]}"
run_scripts "${other_scripts[@]}"
for flavour in $flavours; do
    [ -n "${PV_TESTS:-}" ] && break
    flavour_label=${flavour#build/}
    [ "$flavour_label" = build ] && flavour_label=plain
    for unit in "$PWD/$flavour"/unit/*; do
        [ -x "$unit" ] || continue
        export PV_BUILD=$PWD/$flavour PV_SQLRUN=$PWD/$flavour/sqlrun
        run_one "$flavour_label $(basename "$unit")" "$unit"
    done
done
wait
report_finished
echo "# slowest test files:"
sort -rn "$log/times" | head -n 10 | sed 's/^\([^ ]*\) \(.*\)/#   \1s \2/'
awk -v s="$suite_start" -v e="$(now)" -v jobs="$jobs_max" '{ cpu += $1 }
    END { printf "# whole suite: %.0fs; processor time %.0fs (%.0fs over %d jobs)\n", e - s, cpu, cpu / jobs, jobs }' "$log/cpu"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
