#!/usr/bin/env bash
# plain-only
# docs/fleet.md's recipe, run literally (its ```sh block, with the sqlite3
# shell loading the plain build/perfvtab.so, hence plain-only): per-file
# partials written in parallel by xargs -P, merged by one query.  The merged
# top 5 per event must print exactly what one perfvtab query over all the files
# at once prints (perf_profile over the pattern, summed and ranked the same
# way), on every fixture (several events, sampleless files) and on the four
# the document's example uses.
set -u
. "$(dirname "$0")/lib/common.sh"
# the documents' outputs were made where the fixtures' kernel was not the
# running one: so here too, whatever this machine runs (its kallsyms would
# name their kernel frames where its kernel is theirs)
export PERFVTAB_NOT_RUNNING_KERNEL=1
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' docs/fleet.md >"$tmp/recipe.sh"
if [ ! -s "$tmp/recipe.sh" ] || ! grep -q 'xargs -P' "$tmp/recipe.sh"; then
    not_ok "docs/fleet.md has its recipe" "no sh block with xargs -P"
    exit 0
fi

single_query() {  # the files' pattern
    echo "SELECT event, dso, sym, samples, period, percent, files FROM (
        SELECT event, dso, sym, sum(samples) AS samples, sum(period) AS period,
               round(100.0 * sum(period) / sum(sum(period)) OVER (PARTITION BY event), 2) AS percent,
               count(DISTINCT path) AS files,
               rank() OVER (PARTITION BY event ORDER BY sum(period) DESC) AS rank
        FROM perf_profile('$1') WHERE samples > 0 GROUP BY event, dso, sym)
    WHERE rank <= 5
    ORDER BY event, rank, dso, sym"
}

for set in all example; do
    dir=$tmp/$set
    mkdir -p "$dir/profiles"
    if [ $set = all ]; then
        cp tests/fixtures/*.data "$dir/profiles/"
    else
        cp tests/fixtures/{fp,datasrc,buildid_mmap,multi}.data "$dir/profiles/"
    fi
    n=$(ls "$dir/profiles" | wc -l)
    (cd "$dir" && PERFVTAB=$PV_ROOT/build/perfvtab bash "$tmp/recipe.sh" >"$dir/merged" 2>"$dir/err")
    want=$(cd "$dir" && sqlite3 -header -column :memory: -cmd ".load $PV_ROOT/build/perfvtab" \
               "$(single_query 'profiles/*.data')" 2>&1)
    got=$(cat "$dir/merged" "$dir/err")
    check "fleet recipe on $n files ($set): merged partials = one query over all files" "$got" "$want"
    check "fleet recipe on $n files ($set): one partial per file" "$(ls "$dir/partials" | wc -l)" "$n"
done
# the document shows what the recipe prints on the example set
doc=$(awk '/it prints:$/ { seen = 1; next } seen && !on && /^```$/ { on = 1; next } on && /^```$/ { exit } on' docs/fleet.md)
check "docs/fleet.md's example output is what the recipe prints on its four files" \
    "$doc" "$(cat "$tmp/example/merged")"
readme=$(awk '/^example against what it prints:$/ { ready = 1; next } ready && !on && /^```$/ { on = 1; next } on && /^```$/ { exit } on' README.md)
check "the README's fleet example is what the recipe prints" "$readme" "$(cat "$tmp/example/merged")"
