#!/usr/bin/env bash
# plain-only
# examples/query.c (compiled with cc -lsqlite3) and examples/query.py (with
# Debian's /usr/bin/python3) load build/perfvtab.so at run time and query
# tests/fixtures/example.data; their numbers must be those perf printed
# (tests/expected/perf_oracle/example/samples.tsv has one line per sample).
#
# Env: PV_ROOT; PV_EXT overrides the extension (default $PV_ROOT/build/perfvtab).
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}"
ext=${PV_EXT:-$PV_ROOT/build/perfvtab}
data=$PV_ROOT/tests/fixtures/example.data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$data" ]; then
    echo "not ok - examples: tests/fixtures/example.data is missing"
    exit 0
fi
want=$(wc -l <"$PV_ROOT/tests/expected/perf_oracle/example/samples.tsv")

if cc -Wall -Wextra -Werror -o "$tmp/query" "$PV_ROOT/examples/query.c" -lsqlite3 2>"$tmp/err"; then
    echo "ok - examples/query.c compiles with cc -lsqlite3 (-Wall -Wextra -Werror)"
    if "$tmp/query" "$data" "$ext" >"$tmp/out" 2>"$tmp/err"; then
        got=$(awk 'NR > 1 { n += $3 } END { print n + 0 }' "$tmp/out")
        if [ "$got" = "$want" ] && grep -q '^cpu-clock' "$tmp/out"; then
            echo "ok - examples/query.c counts $got samples of cpu-clock, as perf"
        else
            echo "not ok - examples/query.c counted $got samples, want $want: $(oneline "$tmp/out")"
        fi
    else
        echo "not ok - examples/query.c failed: $(oneline "$tmp/err")"
    fi
    if "$tmp/query" "$tmp/missing.data" "$ext" >/dev/null 2>"$tmp/err"; then
        echo "not ok - examples/query.c on a missing file exited 0"
    elif grep -q "missing.data" "$tmp/err"; then
        echo "ok - examples/query.c on a missing file fails with an error naming it"
    else
        echo "not ok - examples/query.c on a missing file: $(oneline "$tmp/err")"
    fi
else
    echo "not ok - examples/query.c does not compile: $(oneline "$tmp/err")"
fi

py=/usr/bin/python3
if [ ! -x "$py" ]; then
    echo "not ok - examples/query.py: $py is missing (scripts/install-deps.sh installs it)"
    exit 0
fi
if "$py" "$PV_ROOT/examples/query.py" "$data" "$ext" >"$tmp/out" 2>"$tmp/err"; then
    if grep -qx "$data: $want samples" "$tmp/out" \
            && grep -Eq '^ +[0-9]+ workload +[0-9]+$' "$tmp/out" \
            && grep -q '^error, as expected: .*nonexistent/perf.data' "$tmp/out"; then
        echo "ok - examples/query.py with $py: $want samples, per-process comm, a clear error"
    else
        echo "not ok - examples/query.py output: $(oneline "$tmp/out")"
    fi
else
    echo "not ok - examples/query.py with $py failed: $(oneline "$tmp/err")"
fi

# A Python without extension loading gets a clear message, not a traceback.
cat >"$tmp/nolo.py" <<'PY'
import runpy, sqlite3, sys
class Conn:  # a sqlite3 connection as pyenv builds have it
    def __init__(self, *a):
        pass
sqlite3.connect = lambda *a, **k: Conn()
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
PY
"$py" "$tmp/nolo.py" "$PV_ROOT/examples/query.py" "$data" "$ext" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status -ne 0 ] && grep -q 'enable_load_extension is missing' "$tmp/err" \
        && ! grep -q Traceback "$tmp/err"; then
    echo "ok - examples/query.py without enable_load_extension says so"
else
    echo "not ok - examples/query.py without enable_load_extension: status $status: $(oneline "$tmp/err")"
fi

# The README shows both examples' output, run from the repository root as it
# says ($ lines): that output must be what they print now, line for line.
readme_block() {  # the lines after "$ <command>" up to the end of its code block
    awk -v cmd="\$ $1" '$0 == cmd { on = 1; next } on && /^```/ { exit } on' "$PV_ROOT/README.md"
}
if [ -x "$tmp/query" ] && [ -f "$ext.so" ]; then
    readme_block 'cc -o query examples/query.c -lsqlite3 && ./query' >"$tmp/shown"
    (cd "$PV_ROOT" && "$tmp/query" tests/fixtures/example.data "$ext") >"$tmp/out" 2>&1
    if [ -s "$tmp/shown" ] && cmp -s "$tmp/shown" "$tmp/out"; then
        echo "ok - README shows what examples/query.c prints"
    else
        echo "not ok - README's examples/query.c output differs from what it prints: $(oneline "$tmp/out")"
    fi
fi
if [ "$ext" = "$PV_ROOT/build/perfvtab" ]; then
    readme_block '/usr/bin/python3 examples/query.py' >"$tmp/shown"
    (cd "$PV_ROOT" && "$py" examples/query.py) >"$tmp/out" 2>&1
    if [ -s "$tmp/shown" ] && cmp -s "$tmp/shown" "$tmp/out"; then
        echo "ok - README shows what examples/query.py prints"
    else
        echo "not ok - README's examples/query.py output differs from what it prints: $(oneline "$tmp/out")"
    fi
else
    echo "ok - README's examples/query.py output # SKIP input absent: PV_EXT is not build/perfvtab, the script's default"
fi
