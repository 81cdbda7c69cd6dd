#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# Truncation and field sweeps (tests/tools/sweep.c): every fixture and a
# handful of other projects' files, damaged thousands of ways -- cut at every
# record boundary, one byte either side and at random offsets (fixed seed);
# header, attr, feature-index, feature-section and record fields set to 0, 7,
# all ones and past the end -- each read completely through the reader.
# Every case must be an error naming the file and `offset 0x`, or the rows
# sweep.c's header defines; under build/san also no sanitizer report.
#
# Env: PV_ROOT, PV_SHARED, PV_BUILD.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SHARED=${PV_SHARED:-$PV_ROOT/../shared}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

corpus=$PV_SHARED/corpus
fixtures=("$PV_ROOT"/tests/fixtures/*.data "$PV_ROOT"/tests/fixtures/big_endian/*.data
          "$PV_ROOT"/tests/fixtures/perf7/perf7.data "$PV_ROOT"/tests/fixtures/perf7/big_endian/perf7.data)
others=()
# other writers: zstd containers (file and pipe), old perf, pipe mode with
# header features, Intel PT, hybrid topology, simpleperf's own features
for f in linux-perf-data/tests/fixtures/sleep.compressed.pipe.data \
         linux-perf-data/tests/fixtures/sleep.compressed2.data \
         linux-perf-data/tests/fixtures/sleep.compressed.data \
         perf_data_converter/src/quipper/testdata/perf.data.piped.lost_samples-4.4 \
         perf_data_converter/src/quipper/testdata/perf.data.singleprocess-3.4 \
         perf_data_converter/src/quipper/testdata/perf.data.piped.header_features-4.16 \
         perf_data_converter/src/quipper/testdata/perf.data.group_desc-4.14 \
         perf_data_converter/src/quipper/testdata/perf.data.intel_pt-4.14 \
         perf_data_converter/src/quipper/testdata/perf.data.hybrid_topology \
         simpleperf/simpleperf/testdata/perf_with_arm_regs.data \
         simpleperf/simpleperf/testdata/perf_with_tracepoint_event.data \
         simpleperf/simpleperf/testdata/lbr/perf_lbr.data \
         simpleperf/simpleperf/testdata/etm/perf_etm.data; do
    if [ -f "$corpus/$f" ]; then
        others+=("$corpus/$f")
    elif [ -f "$PV_ROOT/tests/corpus/$f" ]; then
        others+=("$PV_ROOT/tests/corpus/$f")
    else
        echo "ok - sweep $(basename "$f") # SKIP input absent: $corpus/$f"
    fi
done

# The plain pass cuts each file at every record boundary and 200 random
# offsets, and changes the first 16 words of each feature section and the
# fields of 24 records; the sanitizer pass looks for memory errors at every
# 8th boundary (and the first and last 8), 25 other random offsets (another
# seed), 2 words of each feature section and 4 records' fields, in less
# than the plain pass's time (every case reads the whole file again).
# Most of a file's cost is its fixed cases (header, attrs, feature index),
# so the sanitizer pass also takes every other fixture (sorted; the other
# writers' files all).
sweep_options=(-r 200 -s 6 -m 24)
case "$PV_BUILD" in
*/san)
    sweep_options=(-r 25 -s 7 -m 4 -b 8 -w 2)
    mapfile -t fixtures < <(every_nth 2 "${fixtures[@]}")
    ;;
esac
files=("${fixtures[@]}" "${others[@]}")
start=$SECONDS
timeout 600 "$PV_BUILD/tools/sweep" "${sweep_options[@]}" "$tmp" "${files[@]}" 2>"$tmp/err"
rc=$?
if [ "$rc" -gt 1 ] || grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
    echo "not ok - sweep exited with status $rc: $(grep -m3 'ERROR\|runtime error:\|SUMMARY\|^not' "$tmp/err" | tr '\n' ' ' | cut -c1-400)"
fi
echo "# sweeps: ${#files[@]} files in $((SECONDS - start)) s"

# Allocation and time bombs (tests/fuzz/make_bombs.py): small files whose
# fields ask for memory or time out of proportion to their size.  Every
# table must answer (rows or an error naming the file and offset) within
# 20 s of CPU -- and, in the plain build, within 1 GB of address space; some must
# be refused with the error make_bombs.py names.
bombs=$tmp/bombs
mkdir -p "$bombs"
/usr/bin/python3 "$PV_ROOT/tests/fuzz/make_bombs.py" "$PV_ROOT/tests/bad_input/base.data" "$bombs" >"$tmp/bomb_list"
# a decompression bomb (tests/tools/zstd_bomb.c): MB of records in 1/10000
# of that in zstd; the walk must stream them in flat memory (every table,
# perf_records with a row per record: smaller under the sanitizers)
mb=32
case "$PV_BUILD" in */san) mb=4 ;; esac
"$PV_BUILD/tools/zstd_bomb" "$PV_ROOT/tests/bad_input/base.data" "$bombs/zstd_expansion.data" $mb >/dev/null &&
    printf 'zstd_expansion\t%s\t-\n' "COMPRESSED records expanding about 10000:1 to $mb MB" >>"$tmp/bomb_list"
modules=$("$PV_BUILD/sqlrun" "SELECT name FROM pragma_module_list WHERE name LIKE 'perf\_%' ESCAPE '\' ORDER BY name")
# Under the sanitizers (memory errors, not limits: those are the plain
# pass's) the tables whose walks reach every decoder: records, samples with
# their stacks, the profile, features and events.
case "$PV_BUILD" in
*/san) modules=$(printf '%s\n' $modules | grep -x 'perf_records\|perf_samples\|perf_callchains\|perf_profile\|perf_features\|perf_events') ;;
esac
while IFS=$'\t' read -r name what expect; do
    bad=""
    start=$SECONDS
    for m in $modules; do
        (
            case "$PV_BUILD" in */san) ;; *) ulimit -v 1048576 ;; esac
            # 20 s of CPU, not of wall time, so a loaded machine is no failure;
            # the wall limit only catches a process that waits forever
            ulimit -t 20
            timeout 300 "$PV_BUILD/sqlrun" "SELECT * FROM $m('$bombs/$name.data')" >/dev/null 2>"$tmp/bomb_err"
        )
        rc=$?
        if [ "$rc" -gt 1 ]; then
            bad="$m: status $rc $(head -c 200 "$tmp/bomb_err")"
            break
        elif [ "$rc" -eq 1 ] && ! grep -q "$name.data.*offset 0x" "$tmp/bomb_err"; then
            bad="$m: error without file and offset: $(head -c 200 "$tmp/bomb_err")"
            break
        elif [ "$expect" != - ] && ! grep -q "$expect" "$tmp/bomb_err"; then
            bad="$m: want an error holding '$expect', got status $rc $(head -c 200 "$tmp/bomb_err")"
            break
        fi
    done
    if [ -n "$bad" ]; then
        echo "not ok - bomb $name ($what): $bad"
    else
        echo "ok - bomb $name ($what): every table answers, in $((SECONDS - start)) s in all"
    fi
done <"$tmp/bomb_list"
