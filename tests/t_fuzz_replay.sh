#!/usr/bin/env bash
# sanitized-only
# Replays the fuzz seed corpus (tests/fuzz/make_seeds.sh: fixtures, damaged
# copies, ../shared/corpus with its fuzz reproducers) and every file of
# tests/fuzz/regressions/ through both fuzz targets, built with a plain
# main() (tests/fuzz/replay_main.c) in this flavour -- under ASan+UBSan in
# build/san.  Any crash, sanitizer report, leak or hang fails.
#
# Env: PV_ROOT, PV_SHARED, PV_BUILD.
set -u
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
export PV_SHARED=${PV_SHARED:-$PV_ROOT/../shared}
TIMEOUT=300
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bash "$PV_ROOT/tests/fuzz/make_seeds.sh" "$tmp/seeds" >/dev/null
seeds=$(ls "$tmp/seeds" | wc -l)
regressions=$(find "$PV_ROOT/tests/fuzz/regressions" -type f ! -name '*.md' | wc -l)
echo "# fuzz replay: $seeds seeds, $regressions regression files"
[ -f "$PV_SHARED/corpus/MANIFEST.tsv" ] ||
    echo "ok - replay of the shared corpus and its fuzz reproducers (tests/corpus only) # SKIP input absent: $PV_SHARED/corpus/MANIFEST.tsv"

for target in reader sql; do
    bin=$PV_BUILD/fuzz/replay_$target
    if [ ! -x "$bin" ]; then
        echo "not ok - replay_$target: $bin not built"
        continue
    fi
    for set in seeds regressions; do
        if [ "$set" = seeds ]; then
            n=$seeds
            files=("$tmp/seeds")
        else
            n=$regressions
            [ "$n" -eq 0 ] && continue
            mapfile -t files < <(find "$PV_ROOT/tests/fuzz/regressions" -type f ! -name '*.md' | sort)
        fi
        timeout "$TIMEOUT" "$bin" "${files[@]}" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ "$rc" -eq 124 ]; then
            echo "not ok - replay_$target over $set: timed out after ${TIMEOUT}s"
        elif [ "$rc" -ne 0 ] || grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
            echo "not ok - replay_$target over $set: status $rc: $({ grep -m3 'ERROR\|runtime error:\|SUMMARY' "$tmp/err" || tail -n 3 "$tmp/err"; } | tr '\n' ' ' | cut -c1-400)"
        elif ! grep -qx "replayed $n inputs" "$tmp/out"; then
            echo "not ok - replay_$target over $set: $(cat "$tmp/out"), want $n inputs"
        else
            echo "ok - replay_$target over $set: $n inputs, no crash or sanitizer report"
        fi
    done
done
