#!/usr/bin/env bash
# plain-only: it tests tests/run.sh itself, not a build.
# The runner keeps each test from the machine's state and from the tests
# before it (tests/lib/isolate.sh).  Two probe tests run in order through
# tests/run.sh: the first leaves a file in /tmp and one in its HOME, the
# second looks for them (and a third, marked # sanitized-only, must run in
# one pass only).  With isolation the second finds neither; run again
# with PV_ISOLATE=home (HOME only), it must find the /tmp file, which shows
# that the probe can see a leak.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
work=$(mktemp -d -p "$PV_ROOT/build" runner.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$work"; rm -f "/tmp/pv-runner-probe-$token" "$HOME/left-by-the-runner-test"' EXIT
token=$$.$RANDOM
export PV_PROBE_TOKEN=$token
# a HOME shared with this test would hold this file
touch "$HOME/left-by-the-runner-test"

cat >"$work/t_1_leave.sh" <<'EOF'
echo left >"/tmp/pv-runner-probe-$PV_PROBE_TOKEN" && echo "ok - leave: wrote /tmp/pv-runner-probe-$PV_PROBE_TOKEN"
touch "$HOME/left-by-the-test-before" && echo "ok - leave: wrote a file in HOME ($HOME)"
EOF
cat >"$work/t_2_look.sh" <<'EOF'
if [ -e "/tmp/pv-runner-probe-$PV_PROBE_TOKEN" ]; then
    echo "not ok - look: /tmp/pv-runner-probe-$PV_PROBE_TOKEN, left by the test before, is visible"
else
    echo "ok - look: the file the test before left in /tmp is not visible"
fi
listing=$(ls -A "$HOME" 2>&1)
if [ -d "$HOME" ] && [ -z "$listing" ]; then
    echo "ok - look: HOME ($HOME) is an empty directory of its own"
else
    echo "not ok - look: HOME ($HOME) is not a new empty directory: [$listing]"
fi
EOF

# runs the two probes through the runner; its output in $work/$1
run_probes() {
    local name=$1
    shift
    env "$@" PV_TESTS="$work/t_1_leave.sh $work/t_2_look.sh" PV_FLAVOURS=build PV_JOBS=1 CI=false \
        timeout 120 bash tests/run.sh >"$work/$name" 2>&1
}

# The runner prints a test's "not ok" and "# " lines and counts its "ok"
# lines: the leaving test's two and the looking test's two make 4 passed.
run_probes isolated
mode=$(bash tests/lib/isolate.sh --probe)
summary=$(tail -n 1 "$work/isolated")
if grep -q '^# isolation: ' "$work/isolated"; then
    ok "the runner says how it isolates: $(grep '^# isolation: ' "$work/isolated" | head -n 1 | cut -c 14-)"
else
    not_ok "the runner says how it isolates" "no '# isolation:' line in: $(oneline "$work/isolated")"
fi
if grep -q 'look: HOME' "$work/isolated" || ! [[ $summary == [34]' passed, '* ]]; then
    not_ok "a test's HOME is empty and its own" "$(grep 'look: HOME' "$work/isolated") ($summary)"
else
    ok "a test's HOME is empty and its own, though the test before wrote into its HOME ($summary)"
fi
if [ "$mode" = tmpfs ]; then
    check "a file the test before left in /tmp is not visible to the next" \
        "$summary" "4 passed, 0 failed, 0 skipped"
    # the same probes with HOME-only isolation: the leak must show
    run_probes home_only PV_ISOLATE=home
    if grep -q 'not ok - look: /tmp/pv-runner-probe' "$work/home_only" &&
       grep -q '^# isolation: could not give each test its own /tmp (PV_ISOLATE=home)' "$work/home_only" &&
       [ "$(tail -n 1 "$work/home_only")" = "3 passed, 1 failed, 0 skipped" ]; then
        ok "without a private /tmp (PV_ISOLATE=home) the probe sees the leak, and the runner says it could not isolate"
    else
        not_ok "without a private /tmp the probe sees the leak" "$(oneline "$work/home_only")"
    fi
else
    ok "a file the test before left in /tmp is not visible to the next # SKIP no private /tmp here (${mode#home: })"
fi

# "# sanitized-only": the sanitized pass runs the script and the plain pass
# does not, unless the run has no sanitized pass
cat >"$work/t_3_flavour.sh" <<'EOF2'
# sanitized-only
echo "ok - flavour: ran with $(basename "$PV_BUILD")"
EOF2
for flavours in "build/san build" "build"; do
    env PV_TESTS="$work/t_3_flavour.sh" PV_FLAVOURS="$flavours" PV_JOBS=1 CI=false \
        timeout 120 bash tests/run.sh >"$work/flavours" 2>&1
    want="san"
    [ "$flavours" = build ] && want="plain"
    ran=$(sed -n 's/^# time \([a-z]*\) t_3_flavour.sh .*/\1/p' "$work/flavours" | tr '\n' ' ')
    check "a # sanitized-only script with PV_FLAVOURS='$flavours' runs in: $want" \
        "$ran$(tail -n 1 "$work/flavours")" "$want 1 passed, 0 failed, 0 skipped"
done

# a skip in another form than "ok - what # SKIP why" would pass uncounted:
# the runner fails it
cat >"$work/t_4_stray.sh" <<'EOF2'
echo "ok - stray: a check"
echo "skip - stray: a skip in the wrong form"
EOF2
env PV_TESTS="$work/t_4_stray.sh" PV_FLAVOURS=build PV_JOBS=1 CI=false \
    timeout 120 bash tests/run.sh >"$work/stray" 2>&1
check "a 'skip - ...' line is a failure, not an uncounted skip" \
    "$(tail -n 1 "$work/stray")" "1 passed, 1 failed, 0 skipped"
