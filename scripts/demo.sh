#!/usr/bin/env bash
# make demo: a short tour of the bundled example profile in the sqlite3 shell
# with perfvtab loaded.  When stdin is a terminal the shell then stays open,
# with the extension loaded and @file set; otherwise (CI, pipes) the tour is
# printed and the script exits.
#
#   scripts/demo.sh [PERF.DATA]     default: tests/fixtures/example.data
#   PERFVTAB=path/to/perfvtab       another build of the extension
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=tests/fixtures/example.data
[ $# -ge 1 ] && data=$(realpath -- "$1")
cd "$root"
ext=${PERFVTAB:-build/perfvtab}

if [ ! -f "$ext.so" ] && [ ! -f "$ext" ]; then
    echo "demo: $ext.so is not built; run: make demo" >&2
    exit 1
fi
if [ ! -e "$data" ]; then
    echo "demo: no profile at $data" >&2
    exit 1
fi
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "demo: the sqlite3 shell is missing; run: scripts/install-deps.sh" >&2
    exit 1
fi

# A dot-command argument in double quotes (the shell undoes \\ and \").
dq() {
    local s=${1//\\/\\\\}
    printf '"%s"' "${s//\"/\\\"}"
}
sqlpath=$(printf "'%s'" "${data//\'/\'\'}")
setup=(-header -cmd '.mode column --wrap 0' -cmd ".load $(dq "$ext")"
       -cmd ".param set @file $(dq "$sqlpath")")

if [ -t 0 ]; then
    exec sqlite3 "${setup[@]}" -cmd '.read scripts/demo.sql' \
        -cmd '.print' \
        -cmd ".print $(dq "perfvtab is loaded and @file is $data; try:")" \
        -cmd ".print '  SELECT pid, tid, count(*) FROM perf_samples(@file) GROUP BY pid, tid;'" \
        -cmd ".print '  .read sql/samples_by_event.sql       (more in sql/; .quit to leave)'" \
        :memory:
fi
exec sqlite3 -bail "${setup[@]}" :memory: '.read scripts/demo.sql' </dev/null
