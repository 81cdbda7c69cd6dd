#!/usr/bin/env bash
# Bad input, case by case: every table, given a damaged or wrong file, gives
# an SQL error that names the file and the byte offset -- never a crash, a
# sanitizer report or a hang -- and never writes to its input.
#
# The damaged files are made at test time from tests/bad_input/base.data by
# tests/bad_input/make_bad.py (see tests/bad_input/README.md).  The fuzz
# reproducers and invalid files of $PV_SHARED/corpus must give a clean error
# or rows.
#
# Env: PV_ROOT (repo root), PV_SHARED (../shared), PV_SQLRUN (SQL driver).
# Output: one line per check, "ok - what" or "not ok - what: why".
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SHARED=${PV_SHARED:-$PV_ROOT/../shared}
PV_SQLRUN=${PV_SQLRUN:-$PV_ROOT/build/sqlrun}
PYTHON=/usr/bin/python3
TIMEOUT=10

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs SQL with a time limit; sets rc, and leaves stdout/stderr in files.
run_sql() {
    timeout "$TIMEOUT" "$PV_SQLRUN" "$1" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

first_error_line() { head -n 3 "$tmp/err" | tr '\n' ' ' | cut -c1-300; }

# A crash, a hang or a sanitizer report; prints the reason, returns 0 if so.
broken_run() {
    if [ "$rc" -eq 124 ]; then
        echo "timed out after ${TIMEOUT}s"
    elif [ "$rc" -gt 128 ]; then
        echo "killed by signal $((rc - 128))"
    elif grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
        echo "sanitizer report: $(grep -m1 'Sanitizer\|runtime error:' "$tmp/err")"
    else
        return 1
    fi
    return 0
}

# expect_error WHAT SQL NEEDLE [NEED_OFFSET [MUST_CONTAIN]]
# The statement must fail with "Error: ..." naming NEEDLE (the path), with
# "offset 0x" when NEED_OFFSET is 1, and holding MUST_CONTAIN when given.
expect_error() {
    local what=$1 sql=$2 needle=$3 need_offset=${4:-0} must=${5:--}
    run_sql "$sql"
    local why
    if why=$(broken_run); then
        not_ok "$what" "$why"
    elif [ "$rc" -ne 1 ]; then
        not_ok "$what" "exit status $rc, want 1 (an SQL error); stderr: $(first_error_line)"
    elif ! head -n 1 "$tmp/err" | grep -q '^Error: '; then
        not_ok "$what" "stderr does not start with 'Error: ': $(first_error_line)"
    elif ! grep -qF -- "$needle" "$tmp/err"; then
        not_ok "$what" "message does not name $needle: $(first_error_line)"
    elif [ "$need_offset" = 1 ] && ! grep -q 'offset 0x' "$tmp/err"; then
        not_ok "$what" "message has no 'offset 0x': $(first_error_line)"
    elif [ "$must" != - ] && ! grep -qiF -- "$must" "$tmp/err"; then
        not_ok "$what" "message does not say '$must': $(first_error_line)"
    else
        ok "$what"
    fi
}

# expect_clean WHAT SQL NEEDLE: rows (exit 0) or a clean error naming NEEDLE.
expect_clean() {
    local what=$1 sql=$2 needle=$3
    run_sql "$sql"
    local why
    if why=$(broken_run); then
        not_ok "$what" "$why"
    elif [ "$rc" -eq 0 ]; then
        ok "$what"
    elif [ "$rc" -ne 1 ]; then
        not_ok "$what" "exit status $rc; stderr: $(first_error_line)"
    elif ! head -n 1 "$tmp/err" | grep -q '^Error: '; then
        not_ok "$what" "stderr does not start with 'Error: ': $(first_error_line)"
    elif ! grep -qF -- "$needle" "$tmp/err"; then
        not_ok "$what" "error does not name $needle: $(first_error_line)"
    else
        ok "$what"
    fi
}

# ---- the tables under test ----
tables="perf_samples perf_mmaps perf_records perf_comms perf_events"
# Tables that walk the record stream (a damaged record is their error).
walk_tables="perf_samples perf_mmaps perf_records perf_comms"
run_sql "SELECT name FROM pragma_module_list WHERE name IN ('perf_features','perf_build_ids') ORDER BY name"
for t in $(cat "$tmp/out"); do
    tables="$tables $t"
done
echo "# tables: $tables"

in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# ---- the base file reads cleanly, from a file and from a directory ----
base=$tmp/base.data
cp "$PV_ROOT/tests/bad_input/base.data" "$base"
base_sum=$(sha256sum <"$base")
mkdir "$tmp/dir_with" "$tmp/dir_without"
cp "$base" "$tmp/dir_with/perf.data"
dir_sum=$(sha256sum <"$tmp/dir_with/perf.data")
for t in $tables; do
    run_sql "SELECT count(*) FROM $t('$base')"
    if [ "$rc" -ne 0 ]; then
        not_ok "base.data reads cleanly: $t" "exit $rc: $(first_error_line)"
        continue
    fi
    ok "base.data reads cleanly: $t"
    want=$(cat "$tmp/out")
    run_sql "SELECT count(*) FROM $t('$tmp/dir_with')"
    if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "$want" ]; then
        ok "a directory with perf.data inside reads as the file: $t"
    else
        not_ok "a directory with perf.data inside reads as the file: $t" \
            "exit $rc, rows '$(cat "$tmp/out")' vs '$want': $(first_error_line)"
    fi
    expect_error "a directory without perf.data: $t" "SELECT * FROM $t('$tmp/dir_without')" \
        "$tmp/dir_without"
    expect_error "missing path: $t" "SELECT * FROM $t('$tmp/no/such.data')" "$tmp/no/such.data"
    expect_error "no path at all: $t" "SELECT * FROM $t" "path"
done
# Every column of every row of the base, to be sure a full decode is clean.
for t in $tables; do
    expect_clean "base.data, every column: $t" "SELECT * FROM $t('$base')" "$base"
done
# The named-table form reports a bad path when it is queried.
expect_error "CREATE VIRTUAL TABLE on a missing path" \
    "CREATE VIRTUAL TABLE temp.s USING perf_samples('$tmp/no/such.data'); SELECT * FROM s" \
    "$tmp/no/such.data"

# ---- special files: a clear error, no hang ----
# A FIFO or a device is read as a stream (t_streams.sh): one whose writer
# closes it at once, and /dev/null, are empty streams.
mkfifo "$tmp/fifo.data"
for t in $tables; do
    timeout "$TIMEOUT" sh -c ": >'$tmp/fifo.data'" &
    expect_error "a FIFO its writer closes at once: $t" "SELECT * FROM $t('$tmp/fifo.data')" \
        "$tmp/fifo.data" 0 "empty stream"
    wait $!
    expect_error "/dev/null: $t" "SELECT * FROM $t('/dev/null')" "/dev/null" 0 "empty stream"
done

# ---- damaged files ----
mkdir "$tmp/bad"
if ! "$PYTHON" "$PV_ROOT/tests/bad_input/make_bad.py" "$base" "$tmp/bad" >"$tmp/manifest" 2>"$tmp/gen_err"; then
    not_ok "make_bad.py writes the damaged files" "$(head -c 300 "$tmp/gen_err")"
else
    ok "make_bad.py writes the damaged files ($(wc -l <"$tmp/manifest") cases)"
    (cd "$tmp/bad" && sha256sum -- *.data) >"$tmp/sums_before"
    while IFS=$'\t' read -r name scope must description; do
        path=$tmp/bad/$name
        for t in $tables; do
            case $scope in
            open) must_fail=1 ;;
            walk) in_list "$t" "$walk_tables" && must_fail=1 || must_fail=0 ;;
            sample) [ "$t" = perf_samples ] && must_fail=1 || must_fail=0 ;;
            feature) [ "$t" = perf_features ] && must_fail=1 || must_fail=0 ;;
            *) must_fail=1 ;;
            esac
            if [ "$must_fail" = 1 ]; then
                expect_error "$description ($name): $t" "SELECT * FROM $t('$path')" "$path" 1 "$must"
            else
                expect_clean "$description ($name), no crash: $t" "SELECT * FROM $t('$path')" "$path"
            fi
        done
    done <"$tmp/manifest"
    # The lazy path: count(*) does not decode samples, the column does.
    expect_error "callchain nr too large, callchain column alone" \
        "SELECT callchain FROM perf_samples('$tmp/bad/callchain_nr.data')" \
        "$tmp/bad/callchain_nr.data" 1 "callchain"
    (cd "$tmp/bad" && sha256sum -- *.data) >"$tmp/sums_after"
    if cmp -s "$tmp/sums_before" "$tmp/sums_after"; then
        ok "damaged files are not written to"
    else
        not_ok "damaged files are not written to" "$(diff "$tmp/sums_before" "$tmp/sums_after" | head -n 4)"
    fi
fi

if [ "$(sha256sum <"$base")" = "$base_sum" ] && [ "$(sha256sum <"$tmp/dir_with/perf.data")" = "$dir_sum" ]; then
    ok "base.data is not written to"
else
    not_ok "base.data is not written to" "checksum changed"
fi

# ---- third-party bad files: a clean error or rows ----
corpus=$PV_SHARED/corpus
bad_corpus=()
[ -f "$corpus/simpleperf/simpleperf/testdata/invalid_perf.data" ] &&
    bad_corpus+=("$corpus/simpleperf/simpleperf/testdata/invalid_perf.data")
for f in "$corpus"/perf_data_converter/src/quipper/corpus/*; do
    [ -f "$f" ] && bad_corpus+=("$f")
done
[ -f "$corpus/simpleperf/simpleperf/testdata/invalid_perf.data" ] ||
    echo "ok - corpus invalid_perf.data: every table a clean error, the magic named # SKIP input absent: $corpus/simpleperf/simpleperf/testdata/invalid_perf.data"
[ -d "$corpus/perf_data_converter/src/quipper/corpus" ] ||
    echo "ok - corpus fuzzer reproducers: every table a clean error or rows # SKIP input absent: $corpus/perf_data_converter/src/quipper/corpus"
for f in "${bad_corpus[@]}"; do
    short=$(basename "$f" | cut -c1-40)
    for t in $tables; do
        expect_clean "corpus $short: $t" "SELECT * FROM $t('$f')" "$(basename "$f")"
    done
done
if [ -f "$corpus/simpleperf/simpleperf/testdata/invalid_perf.data" ]; then
    f=$corpus/simpleperf/simpleperf/testdata/invalid_perf.data
    expect_error "simpleperf invalid_perf.data (1024 zero bytes) is an error" \
        "SELECT * FROM perf_samples('$f')" "$f" 1 "magic"
fi
exit 0
