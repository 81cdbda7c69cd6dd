#!/usr/bin/env bash
# The maps of exited processes, dropped once no sample asks for them
# (src/symbols/addr_space.h), against the twin that keeps them all
# (PERFVTAB_KEEP_EXITED_MAPS): the samples' and frames' symbols and the
# profile, byte for byte, on every fixture and every file of the shared
# corpus.  A third run drops them at the first round after the exit
# (PERFVTAB_EXIT_GRACE_ROUNDS=0), so that lookups and forks need dropped
# maps and the symbolizer replays the maps again, keeping them: the same
# bytes too.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"

twin_inputs "exited maps twins"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compared=0 differ=0 exits=0
for f in "${files[@]}"; do
    q=$(sql_quote "$f")
    query="SELECT record, pid, dso, dso_offset, sym, sym_status FROM perf_samples($q);
           SELECT sample, depth, dso, dso_offset, sym FROM perf_callchains($q);
           SELECT event, dso, name, samples, children_samples, period, children_period
           FROM perf_profile($q)"
    PERFVTAB_KEEP_EXITED_MAPS=1 "$PV_SQLRUN" -n NULL "$query" >"$tmp/kept" 2>&1
    "$PV_SQLRUN" -n NULL "$query" >"$tmp/dropped" 2>&1
    PERFVTAB_EXIT_GRACE_ROUNDS=0 "$PV_SQLRUN" -n NULL "$query" >"$tmp/replayed" 2>&1
    compared=$((compared + 1))
    if ! cmp -s "$tmp/kept" "$tmp/dropped" || ! cmp -s "$tmp/kept" "$tmp/replayed"; then
        differ=$((differ + 1))
        echo "# differs: $f"
        diff "$tmp/kept" "$tmp/dropped" | head -3 | sed 's/^/# dropped: /'
        diff "$tmp/kept" "$tmp/replayed" | head -3 | sed 's/^/# replayed: /'
    fi
    n=$("$PV_SQLRUN" "SELECT count(*) > 0 FROM perf_tasks($q) WHERE kind = 'EXIT' AND pid = tid
                      AND EXISTS (SELECT 1 FROM perf_samples($q))" 2>/dev/null)
    [ "$n" = 1 ] && exits=$((exits + 1))
done
check "exited processes' maps dropped, or dropped at once and replayed, give what keeping them gives ($compared files, $exits with samples and a leader's EXIT)" \
    "$([ "$exits" -ge 3 ] && echo "$differ")" 0
