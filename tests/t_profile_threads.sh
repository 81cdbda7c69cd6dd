#!/usr/bin/env bash
# long-running: a minute or two under the sanitizers
# perf_profile split over threads (analysis/profile_parallel.h) against its
# twin on one thread (perf_threads(1)): every fixture and the shared corpus
# give the same bytes -- full rows unsorted, as the table makes them (row
# order included), without the children columns (the flat pass, which
# reads only the samples' fixed fields), and sql/flat_profile.sql and
# sql/inclusive_profile.sql sorted by the table -- errors included.
# PERFVTAB_PROFILE_PART_MIN makes the
# small fixtures split into parts of a few KB; perf_cache_stats counts the
# passes that split, the flat ones apart, so a fallback everywhere (or in
# either pass) cannot pass unnoticed.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

flat=$(grep -v '^--' sql/flat_profile.sql)
inclusive=$(grep -v '^--' sql/inclusive_profile.sql)
# side threads file: every query's output, then how many passes split
side() {
    local q
    q=$(sql_quote "$2")
    "$PV_SQLRUN" -n NULL "SELECT 'threads ' || perf_threads($1)" \
        "SELECT * FROM perf_profile($q)" \
        "SELECT event, dso, sym, addr, samples, period, inlined, name, event_period, dso_name
         FROM perf_profile($q)" \
        "${flat//@file/$q}" \
        "SELECT 'flat split ' || (perf_cache_stats()->>'$.profiles.split')" \
        "${inclusive//@file/$q}" \
        "SELECT 'split ' || (perf_cache_stats()->>'$.profiles.split')" 2>&1
}
compare() {  # threads part_min file...
    local threads=$1 part_min=$2 f
    shift 2
    local compared=0 split=0 flat_split=0 differ=0
    for f in "$@"; do
        PERFVTAB_PROFILE_PART_MIN=$part_min side 1 "$f" >"$tmp/one"
        PERFVTAB_PROFILE_PART_MIN=$part_min side "$threads" "$f" >"$tmp/four"
        compared=$((compared + 1))
        # 3 or more before the inclusive query: the children pass and both flat ones split
        grep -q '^flat split [3-9]\|^flat split [1-9][0-9]' "$tmp/four" && flat_split=$((flat_split + 1))
        grep -q '^split [1-9]' "$tmp/four" && split=$((split + 1))
        if ! diff <(grep -v '^split \|^flat split \|^threads ' "$tmp/one") \
            <(grep -v '^split \|^flat split \|^threads ' "$tmp/four") \
            >"$tmp/diff"; then
            differ=$((differ + 1))
            echo "# differs: $f: $(oneline "$tmp/diff")"
        fi
        # (an error ends the output before the count: then both sides end alike)
        grep -q '^split [1-9]\|^flat split [1-9]' "$tmp/one" && { differ=$((differ + 1)); echo "# perf_threads(1) split: $f"; }
    done
    echo "$compared $split $flat_split $differ"
}

files=()
while IFS= read -r f; do files+=("$f"); done < <(find tests/fixtures -name '*.data' | sort)
# 4 parts of 4 KB or more on every fixture, then up to 64 of 512 bytes
# (boundaries everywhere) on every 2nd, every 3rd under the sanitizers: the
# suite's longest script, its time in the tiny parts' repeated setup
tiny_every=2
case "$PV_BUILD" in */san) tiny_every=3 ;; esac
for threads_part in 4:4096:1 64:512:$tiny_every; do
    IFS=: read -r threads part every <<<"$threads_part"
    mapfile -t picked < <(every_nth "$every" "${files[@]}")
    read -r compared split flat_split differ < <(compare "$threads" "$part" "${picked[@]}" |
                                                 tee "$tmp/log" | tail -n 1)
    grep '^#' "$tmp/log"
    # most fixtures split (21 and 26 of 35 did): over 2 in 7 of them, both passes
    least=$((compared * 2 / 7))
    check "perf_profile on $threads threads (parts of $part bytes or more) equals perf_threads(1), rows and order, on $compared fixtures ($split split, $flat_split in every flat pass)" \
        "$([ "$split" -gt "$least" ] && [ "$flat_split" -gt "$least" ] && echo "$differ")" 0
done

# other writers' files (../shared/corpus: perf of many versions, simpleperf,
# perf_data_converter's test data), split into parts of 16 KB or more
corpus=()
if [ -d "$PV_SHARED/corpus" ]; then
    while IFS= read -r f; do corpus+=("$f"); done < <(find "$PV_SHARED/corpus" -name '*.data' | sort)
    case "$PV_BUILD" in */san) mapfile -t corpus < <(every_nth 3 "${corpus[@]}") ;; esac
fi
if [ ${#corpus[@]} -eq 0 ]; then
    echo "ok - perf_profile on threads over the shared corpus # SKIP input absent: $PV_SHARED/corpus"
else
    read -r compared split flat_split differ < <(compare 4 16384 "${corpus[@]}" | tee "$tmp/log" | tail -n 1)
    grep '^#' "$tmp/log"
    check "perf_profile on 4 threads (parts of 16 KB or more) equals perf_threads(1) on $compared corpus files ($split split, $flat_split in every flat pass)" \
        "$([ "$split" -gt 0 ] && [ "$flat_split" -gt 0 ] && echo "$differ")" 0
fi

# the setting: the connection's, 1 to 64 or NULL, refused where a statement writes
check "perf_threads(3) is read back by perf_threads(); NULL is the machine's cores" \
    "$(sqlrun "SELECT perf_threads(3)" "SELECT perf_threads()" "SELECT perf_threads(NULL) = perf_threads() AND perf_threads() >= 1")" \
    "$(printf '3\n3\n1')"
for bad in 0 65 "'x'" 1.5; do
    got=$(sqlrun "SELECT perf_threads($bad)")
    [[ $got == *"perf_threads: a number of threads from 1 to 64, or NULL"* ]] ||
        not_ok "perf_threads($bad) is an error" "$got"
done
got=$(sqlrun "CREATE TABLE t(x)" "INSERT INTO t SELECT perf_threads(1)")
[[ $got == *perf_threads* ]] && [[ $got == *writ* ]] && ok "perf_threads in a statement that writes is refused" ||
    not_ok "perf_threads in a statement that writes is refused" "$got"
