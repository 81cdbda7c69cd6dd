#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# plain-only
# Embedding in a threaded program (tests/tools/threads.c): connections in
# separate threads query one file at once and get the single-threaded
# results -- with the plain extension, then with the extension and driver
# built under ThreadSanitizer (make tsan), where any data race fails.
#
# Env: PV_ROOT, PV_BUILD.
set -u
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
tmp=$(mktemp -d)
# perf_profile splits even a small fixture into parts of 4 KB, one a thread
# (analysis/profile_parallel.h), within each connection's thread: its
# children pass and its flat pass
export PERFVTAB_PROFILE_PART_MIN=4096
trap 'rm -rf "$tmp"' EXIT

files=("$PV_ROOT/tests/fixtures/example.data")
files+=("$PV_ROOT/tests/corpus/linux-perf-data/tests/fixtures/sleep.compressed.data")
# a compressed twin of example.data (tests/tools/make_variants.c, twin): several blocks
# of decompressed records, on the decompressing thread (forced by
# PERFVTAB_UNPACK_THREAD_MIN=0: see unpack_env)
if "$PV_BUILD/tools/make_variants" twin "$PV_ROOT/tests/fixtures/example.data" 12 4099 81 \
    "$tmp/plain.data" "$tmp/unpacked_on_a_thread.data" 2>"$tmp/err"; then
    files+=("$tmp/unpacked_on_a_thread.data")
else
    echo "not ok - make_variants twin: $(head -c 300 "$tmp/err")"
fi
unpack_env() {  # file: env(1) arguments choosing how it is decompressed
    if [ "$(basename "$1")" = unpacked_on_a_thread.data ]; then
        echo PERFVTAB_UNPACK_THREAD_MIN=0
    else
        echo -u PERFVTAB_UNPACK_THREAD_MIN
    fi
}

check() {  # label, command...
    local label=$1
    shift
    timeout 300 "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne 0 ] || grep -q 'WARNING: ThreadSanitizer\|Sanitizer' "$tmp/err"; then
        echo "not ok - $label: status $rc: $(grep -m4 'not ok\|WARNING\|SUMMARY\|#0\|#1' "$tmp/out" "$tmp/err" | tr '\n' ' ' | cut -c1-500)"
    elif ! grep -q '^ok - threads' "$tmp/out"; then
        echo "not ok - $label: $(head -c 300 "$tmp/out")"
    else
        echo "ok - $label: $(sed 's/^ok - threads: //' "$tmp/out")"
    fi
}

for f in "${files[@]}"; do
    check "plain, 4 threads, $(basename "$f")" env $(unpack_env "$f") "$PV_BUILD/tools/threads" "$PV_ROOT/build/perfvtab.so" "$f" 4 10
done
# a stream: every connection of the process shares its one spool (docs/streams.md)
pipe_fixture=$PV_ROOT/tests/fixtures/tracepoint_pipe.data
cat "$pipe_fixture" | check "plain, 4 threads, a stream ('-')" "$PV_BUILD/tools/threads" "$PV_ROOT/build/perfvtab.so" - 4 10

if ! make -s -C "$PV_ROOT" tsan >"$tmp/make" 2>&1; then
    echo "not ok - make tsan: $(tail -n 5 "$tmp/make" | tr '\n' ' ')"
    exit 0
fi
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
for f in "${files[@]}"; do
    check "ThreadSanitizer, 2 threads, $(basename "$f")" env $(unpack_env "$f") "$PV_ROOT/build/tsan/threads" "$PV_ROOT/build/tsan/perfvtab.so" "$f" 2 3
done
cat "$pipe_fixture" | check "ThreadSanitizer, 2 threads, a stream ('-')" "$PV_ROOT/build/tsan/threads" "$PV_ROOT/build/tsan/perfvtab.so" - 2 3
