#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# A pushdown never changes a result: every constraint and order the tables
# take over from SQLite (time ranges, pid/tid/cpu/event equality, record
# lookups, ORDER BY time and record, grouped scans) against the same query
# with it hidden from the planner, by tests/tools/twins.c (which says how
# the twins are written and judged), over:
#   - every recording of tests/fixtures, the --threads directories too (all
#     the pairs, and a check that every kind was taken over by some pair);
#   - every file of ../shared/corpus/MANIFEST.tsv (a fifth of the pairs;
#     every third file under the sanitizers);
#   - copies of the fixtures with rounds whose rounds run backwards or out
#     of place: `make_variants inflate` (the data section 8 times over, its
#     times starting again with each copy) and tests/tools/twin_variants.py
#     (the rounds reversed, the last round moved to the middle, one late
#     record moved to the start), and its copies with a time of 2^63 (the
#     lowest INTEGER) before a sample of no event (a NULL time) (all the
#     pairs; synth_start's a fifth);
#   - damaged copies: twin_variants.py's (bytes changed, seeded; the end
#     cut), tests/bad_input/make_bad.py's and the fuzz regressions (a fifth
#     of the pairs).
# Values and copies are fixed by the files: the same pairs every run.  The
# sanitizer pass (PV_BUILD .../san) runs a fifth of the pairs throughout:
# the plain pass judges them all, this one looks for memory errors on the
# same paths, in about the same time.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
twins=$PV_BUILD/twins
all=""
[[ $PV_BUILD == */san ]] && all=-q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mapfile -t fixtures < <(find tests/fixtures -name '*.data' | sort)
fixtures+=(tests/fixtures/threads_dir tests/fixtures/threads_zdir)
"$twins" $all -r "${fixtures[@]}"

corpus=$PV_SHARED/corpus
if [ -f "$corpus/MANIFEST.tsv" ]; then
    mapfile -t files < <(tail -n +2 "$corpus/MANIFEST.tsv" | cut -f1 | sed "s|^|$corpus/|")
    # under the sanitizers every third file (the same ones each run)
    if [[ $PV_BUILD == */san ]]; then
        mapfile -t files < <(every_nth 3 "${files[@]}")
    fi
    "$twins" -q "${files[@]}"
else
    echo "ok - twins over the shared corpus # SKIP input absent: $corpus/MANIFEST.tsv"
fi

# Rounds out of order: the recordings with rounds (multi, tracepoint,
# system and synth_start have many; example and dwarf two).
with_rounds=(tests/fixtures/example.data tests/fixtures/dwarf.data tests/fixtures/multi.data
             tests/fixtures/tracepoint.data tests/fixtures/offcpu/system.data
             tests/fixtures/synth_start/synth_start.data)
mkdir -p "$tmp/rounds" "$tmp/damaged" "$tmp/bad"
for f in tests/fixtures/example.data tests/fixtures/dwarf.data tests/fixtures/multi.data; do
    out=$tmp/rounds/$(basename "$f" .data).inflated.data
    "$PV_BUILD/tools/make_variants" inflate "$f" "$out" 8 >/dev/null ||
        echo "not ok - make_variants inflate $f"
done
/usr/bin/python3 tests/tools/twin_variants.py "$tmp/damaged" "${with_rounds[@]}" >/dev/null ||
    echo "not ok - twin_variants.py"
for kind in reversed late_round late_record time_edge; do
    mv "$tmp/damaged/"*."$kind.data" "$tmp/rounds/"
done
n=$(find "$tmp/rounds" -name '*.data' | wc -l)
if [ "$n" -ge 21 ]; then
    ok "copies with rounds out of order or times at the edge: $n"
else
    not_ok "copies with rounds out of order or times at the edge" "$n made, want 21"
fi
# synth_start's copies (3000 samples, with callchains) with a fifth of the pairs
"$twins" $all $(find "$tmp/rounds" -name '*.data' ! -name 'synth_start.*' | sort)
"$twins" -q "$tmp/rounds/synth_start."*

/usr/bin/python3 tests/bad_input/make_bad.py tests/bad_input/base.data "$tmp/bad" >/dev/null ||
    echo "not ok - make_bad.py"
"$twins" -q "$tmp/damaged/"*.data "$tmp/bad/"* tests/fuzz/regressions/sql-*
