#!/usr/bin/env bash
# The maps fed ahead of the scan (src/symbols/map_feed.c) pass runs of the
# records they have nothing to do with in one step; the twin reads each
# (PERFVTAB_FEED_EVERY_RECORD).  The samples' comms and symbols, the
# frames' and the profile, byte for byte, on every fixture and every file
# of the shared corpus; again with exited processes' maps dropped at the
# first round after the exit (PERFVTAB_EXIT_GRACE_ROUNDS=0: the feed
# replays from the start) and with them kept (no EXIT fed).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"

twin_inputs "feed twins"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compared=0 differ=0 with_maps=0
for f in "${files[@]}"; do
    q=$(sql_quote "$f")
    query="SELECT record, pid, tid, comm, dso, dso_offset, sym, sym_status FROM perf_samples($q);
           SELECT sample, depth, dso, dso_offset, sym FROM perf_callchains($q);
           SELECT event, dso, name, samples, children_samples, period, children_period
           FROM perf_profile($q)"
    for mode in plain replayed kept; do
        case $mode in
            plain) env=();;
            replayed) env=(PERFVTAB_EXIT_GRACE_ROUNDS=0);;
            kept) env=(PERFVTAB_KEEP_EXITED_MAPS=1);;
        esac
        env "${env[@]}" PERFVTAB_FEED_EVERY_RECORD=1 "$PV_SQLRUN" -n NULL "$query" >"$tmp/every" 2>&1
        env "${env[@]}" "$PV_SQLRUN" -n NULL "$query" >"$tmp/passed" 2>&1
        compared=$((compared + 1))
        if ! cmp -s "$tmp/every" "$tmp/passed"; then
            differ=$((differ + 1))
            echo "# differs ($mode): $f"
            diff "$tmp/every" "$tmp/passed" | head -3 | sed 's/^/# /'
        fi
    done
    n=$("$PV_SQLRUN" "SELECT count(*) > 0 FROM perf_samples($q) WHERE sym IS NOT NULL" 2>/dev/null)
    [ "$n" = 1 ] && with_maps=$((with_maps + 1))
done
check "the feed passing unfed records at once gives what reading each gives ($compared runs, $with_maps files with symbols)" \
    "$([ "$with_maps" -ge 3 ] && echo "$differ")" 0
