#!/usr/bin/env bash
# plain-only
# make demo's script without a terminal (as in CI): prints the whole tour of
# the bundled example profile and exits 0 instead of staying in the shell.
#
# Env: PV_ROOT; PV_EXT overrides the extension (default $PV_ROOT/build/perfvtab).
set -u
: "${PV_ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$PV_ROOT/tests/fixtures/example.data" ]; then
    echo "not ok - demo: tests/fixtures/example.data is missing"
    exit 0
fi
PERFVTAB=${PV_EXT:-$PV_ROOT/build/perfvtab} timeout 60 bash "$PV_ROOT/scripts/demo.sh" \
    </dev/null >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status -eq 0 ] && [ ! -s "$tmp/err" ]; then
    echo "ok - scripts/demo.sh without a terminal exits 0 with nothing on stderr"
else
    echo "not ok - scripts/demo.sh without a terminal: status $status, stderr: $(head -c 300 "$tmp/err" | tr '\n' ' ')"
fi
for section in '== file' '== header' '== events' '== records' '== samples per process' \
               '== mmaps per file' '== samples per mapped file'; do
    # a section title followed by a header line and at least one row
    if awk -v s="$section" 'index($0, s) == 1 { on = 1; n = 0; next }
                             /^== / { on = 0 } on && NF { n++ } END { exit !(n >= 3) }' "$tmp/out"; then
        echo "ok - demo tour shows '$section' with rows"
    else
        echo "not ok - demo tour: no rows under '$section'"
    fi
done
# every hottest function is named: a symbol, or the address perf report shows
if awk 'index($0, "== hottest functions") == 1 { on = 1; n = 0; next } /^== / { on = 0 }
        on && NF { if (++n > 2) { rows++; if ($2 ~ /^[0-9]+$/) bad++ } }
        END { exit !(rows > 0 && !bad) }' "$tmp/out"; then
    echo "ok - demo tour names every hottest function (a symbol or an address)"
else
    echo "not ok - demo tour: a hottest function without a name: $(grep -A12 '== hottest' "$tmp/out" | tr '\n' '|' | head -c 300)"
fi
if grep -q 'cpu-clock' "$tmp/out" && grep -q '^SAMPLE ' "$tmp/out"; then
    echo "ok - demo tour names the example's event and counts its SAMPLE records"
else
    echo "not ok - demo tour lacks the event name cpu-clock or the SAMPLE count"
fi
