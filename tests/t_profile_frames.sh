#!/usr/bin/env bash
# perf_profile's children pass skips a frame its sample met already (the
# same ip and cpumode: recursion, and the sample's own ip its chain
# repeats), src/analysis/profile.c: its rows equal those of the twin that
# resolves and counts every frame (PERFVTAB_PROFILE_EVERY_FRAME=1), on every
# fixture and corpus file and on a live --call-graph fp recording of a
# recursion (tests/fixtures/deep_stack.c), whose stacks repeat their frames.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

query() {
    local q
    q=$(sql_quote "$1")
    echo "SELECT event, dso, sym, addr, samples, period, children_samples, children_period, inlined
          FROM perf_profile($q) ORDER BY event, children_period DESC, name, dso_name, dso"
}
# same file: the rows (or the error) with and without the skipping are
# one; rows=1 when there were rows
same() {
    local got want
    got=$(sqlrun -n NULL "$(query "$1")")
    want=$(PERFVTAB_PROFILE_EVERY_FRAME=1 sqlrun -n NULL "$(query "$1")")
    rows=0
    [ -n "$got" ] && rows=1
    [ "$got" = "$want" ]
}

mapfile -t files < <(find tests/fixtures tests/corpus -type f \( -name '*.data' -o -name 'perf.data*' \) -size -3M | sort)
compared=0 bad=0
for f in "${files[@]}"; do
    same "$f" || { bad=$((bad + 1)); echo "# differs: $f"; }
    compared=$((compared + rows))
done
check "perf_profile's rows equal its every-frame twin's on $compared fixture and corpus files with rows" \
    "$([ "$compared" -gt 10 ] && echo "$bad")" 0

if ! cc -O1 -fno-omit-frame-pointer -g -o "$tmp/deep_stack" tests/fixtures/deep_stack.c 2>"$tmp/cc.log"; then
    echo "ok - perf_profile on a live recursion # SKIP input absent: cc failed: $(oneline "$tmp/cc.log")"
elif ! timeout 60 perf record -q -F 999 -g -o "$tmp/deep.data" -- "$tmp/deep_stack" 20 \
        >"$tmp/record.log" 2>&1; then
    echo "ok - perf_profile on a live recursion # SKIP input absent: perf record failed: $(oneline "$tmp/record.log")"
else
    q=$(sql_quote "$tmp/deep.data")
    repeats=$(sqlrun "SELECT count(*) > count(DISTINCT sample || ' ' || ip || ' ' || cpumode)
                      FROM perf_callchains($q)")
    check "the live recursion's stacks repeat frames" "$repeats" 1
    same "$tmp/deep.data" && [ "$rows" = 1 ] && ok "perf_profile's rows equal its every-frame twin's on a live recursion" ||
        not_ok "perf_profile's rows equal its every-frame twin's on a live recursion" "they differ"
fi
