#!/usr/bin/env bash
# A perf.data directory written by `perf record --threads` (data + data.N):
# the tables read every file of it, as perf does (tests/expected/directory/, made
# by tests/gen/directory.sh).  threads_zdir was recorded with -z: each data.N
# holds a zstd stream of its own.
set -u
cd "$PV_ROOT"
dir=tests/fixtures/threads_dir

check() {  # what, expected file, SQL
    local got
    if ! got=$("$PV_SQLRUN" "$3" 2>&1); then
        echo "not ok - $1: SQL error: $got"
    elif [ "$got" == "$(cat "$2")" ]; then
        echo "ok - $1 ($(wc -l <"$2") rows)"
    else
        echo "not ok - $1 differs from perf:"
        diff <(echo "$got") "$2" | head -5 | sed 's/^/    /'
    fi
}

for entry in threads_dir: threads_zdir:zdir_; do
    name=${entry%%:*}
    prefix=${entry#*:}
    check "$name record counts equal perf report --stats" "tests/expected/directory/${prefix}stats.tsv" \
        "SELECT name, count(*) FROM perf_records('tests/fixtures/$name') GROUP BY name ORDER BY name"
    check "$name samples equal perf script's" "tests/expected/directory/${prefix}samples.tsv" \
        "SELECT time, tid, ip, period FROM perf_samples('tests/fixtures/$name') ORDER BY time || char(9) || tid || char(9) || ip || char(9) || period"
done
# The data.N files are read: most samples of a --threads recording live there.
got=$("$PV_SQLRUN" "SELECT count(*) FROM perf_samples('$dir/data') WHERE record > (SELECT max(record) FROM perf_records('$dir') WHERE name = 'FINISHED_INIT')" 2>&1)
if [ "${got:-0}" -gt 0 ] 2>/dev/null; then
    echo "ok - threads_dir/data also brings its data.N files ($got samples after the data file's records)"
else
    echo "not ok - threads_dir/data.N not read: $got"
fi
