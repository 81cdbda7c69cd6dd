#!/usr/bin/env bash
# Constraints the reader tests itself (time ranges through the time index,
# pid, tid, cpu and event equality) must give exactly the rows SQLite gives
# when it filters alone.  `+col` hides a constraint from xBestIndex, so
#   WHERE time > X   (pushed down)   and   WHERE +time > X   (not)
# are compared on every table that pushes down, on files with one chunk and
# many, a directory, pipe mode and compressed files (which have no index).
# The plans are pinned with EXPLAIN QUERY PLAN: idxNum bits as documented in
# ext/vtab_plan.c (pv_plan_decode_args, pv_plan_decode_rest).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
corpus=$PV_SHARED/corpus
files=(
    tests/fixtures/multi.data
    tests/fixtures/threads_dir
    tests/corpus/perf_data_converter/src/testdata/single-event-multi-process.perf.data
    "$corpus/simpleperf/simpleperf/testdata/generated_by_linux_perf.data"
    "$corpus/perf_data_converter/src/quipper/testdata/perf.data.piped.ctx_switch_namespaces-4.14"
    tests/corpus/linux-perf-data/tests/fixtures/sleep.compressed.data
)
checked=0
declare -A columns
for table in perf_samples perf_records perf_mmaps perf_comms perf_tasks perf_lost perf_switches; do
    columns[$table]=$(sqlrun "SELECT group_concat(name, ' ') FROM pragma_table_info('$table')")
done
for f in "${files[@]}"; do
    name=$(basename "$f")
    if [ ! -e "$f" ]; then
        echo "ok - $name: pushed-down constraints give SQLite's rows # SKIP input absent: $f"
        continue
    fi
    # Values to filter on, taken from the file itself.
    read -r tmin tmax < <(sqlrun "SELECT min(time), max(time) FROM perf_samples('$f')" | tr '\t' ' ')
    if [ -z "$tmin" ]; then
        echo "not ok - $name: no sample times to test with"
        continue
    fi
    span=$((tmax - tmin))
    third=$((tmin + span / 3))
    lo1=$((tmin + span / 2))
    hi1=$((lo1 + span / 100))
    exact=$(sqlrun "SELECT time FROM perf_samples('$f') LIMIT 1 OFFSET 5")
    pid=$(sqlrun "SELECT pid FROM perf_samples('$f') GROUP BY pid ORDER BY count(*) DESC LIMIT 1")
    tid=$(sqlrun "SELECT tid FROM perf_samples('$f') GROUP BY tid ORDER BY count(*) LIMIT 1")
    cpu=$(sqlrun "SELECT cpu FROM perf_samples('$f') WHERE cpu IS NOT NULL LIMIT 1")
    event=$(sqlrun "SELECT event FROM perf_samples('$f') LIMIT 1")
    conds=(
        "time > $third" "time >= $third" "time < $third" "time <= $exact"
        "time BETWEEN $lo1 AND $hi1" "time = $exact" "time > $tmax" "time < 0"
        "time > $third.5" "time BETWEEN $lo1 AND $hi1 AND pid = $pid"
        "pid = $pid" "tid = $tid" "event = '$event'" "event = 'no such event'" "pid = 1e10"
    )
    [ -n "$cpu" ] && conds+=("cpu = $cpu" "cpu = $cpu AND time > $third")
    # Each table's pairs in one connection, as a user asks one query after
    # another (the first builds the time index, the later ones use it):
    # the pushed-down query, then its twin, each on a line of its own.
    for table in perf_samples perf_records perf_mmaps perf_comms perf_tasks perf_lost perf_switches; do
        asked=() script=""
        for cond in "${conds[@]}"; do
            case $table in
                perf_samples|perf_records|perf_lost|perf_switches) ;;
                *) [[ $cond == time* ]] && [[ $cond != *pid* ]] || continue ;;
            esac
            # a column the table lacks (perf_switches' event) is no pair
            [[ $cond == event* ]] && [[ " ${columns[$table]} " != *" event "* ]] && continue
            hidden=$(sed -E 's/(^| AND )(time|pid|tid|cpu|event)/\1+\2/g' <<<"$cond")
            asked+=("$cond")
            script+="SELECT count(*), total(record), total(time) FROM $table('$f') WHERE $cond;
                     SELECT count(*), total(record), total(time) FROM $table('$f') WHERE $hidden;"
        done
        mapfile -t answers < <(sqlrun "$script")
        if [ "${#answers[@]}" -ne $((2 * ${#asked[@]})) ]; then
            echo "not ok - $name $table: ${#answers[@]} answers to $((2 * ${#asked[@]})) queries: ${answers[*]: -1}"
            continue
        fi
        for i in "${!asked[@]}"; do
            got=${answers[2 * i]} want=${answers[2 * i + 1]}
            checked=$((checked + 1))
            if [ "$got" != "$want" ]; then
                echo "not ok - $name $table WHERE ${asked[i]}: got '$got', SQLite alone gives '$want'"
            fi
        done
    done
    # The 1% window really selects something on the bigger files.
    n=$(sqlrun "SELECT count(*) FROM perf_samples('$f') WHERE time BETWEEN $lo1 AND $hi1")
    all=$(sqlrun "SELECT count(*) FROM perf_samples('$f')")
    echo "# $name: $all samples, $n in the middle 1% of the time range"
done
echo "ok - pushed-down constraints give the rows SQLite gives alone ($checked queries)"

# Plans: idxNum = 1 (path) + 2 (time >=) + 4 (time <=) + 16 (pid) ...
f=tests/fixtures/multi.data
plan() { sqlrun "EXPLAIN QUERY PLAN $1" | cut -f4 | tr '\n' ' '; }
expect_plan() {  # sql, expected substring
    local got
    got=$(plan "$1")
    if [[ $got == *"$2"* ]]; then
        echo "ok - plan of: $1"
    else
        echo "not ok - plan of: $1: got '$got', want '$2'"
    fi
}
expect_plan "SELECT count(*) FROM perf_samples('$f')" "VIRTUAL TABLE INDEX 1:"
expect_plan "SELECT count(*) FROM perf_samples('$f') WHERE time > 5" "VIRTUAL TABLE INDEX 3:"
expect_plan "SELECT count(*) FROM perf_samples('$f') WHERE time BETWEEN 5 AND 6" "VIRTUAL TABLE INDEX 7:"
expect_plan "SELECT count(*) FROM perf_samples('$f') WHERE time = 5" "VIRTUAL TABLE INDEX 9:"
expect_plan "SELECT count(*) FROM perf_samples('$f') WHERE pid = 5 AND tid = 6" "VIRTUAL TABLE INDEX 49:"
expect_plan "SELECT count(*) FROM perf_samples('$f') WHERE cpu = 1 AND event = 'x'" "VIRTUAL TABLE INDEX 193:"
expect_plan "SELECT count(*) FROM perf_samples('$f') WHERE +time > 5" "VIRTUAL TABLE INDEX 1:"
expect_plan "SELECT count(*) FROM perf_mmaps('$f') WHERE time > 5 AND pid = 3" "VIRTUAL TABLE INDEX 3:"
expect_plan "SELECT count(*) FROM perf_features('$f') WHERE id = 3" "VIRTUAL TABLE INDEX 1:"
# In a join, the pid of the outer row is pushed into the inner scan too.
expect_plan "SELECT count(*) FROM perf_samples('$f') s JOIN perf_comms('$f') c ON c.pid = s.pid WHERE s.time > 5" \
    "SCAN s VIRTUAL TABLE INDEX 19:"
