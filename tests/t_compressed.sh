#!/usr/bin/env bash
# Compressed recordings (perf record -z): the records decompressed on a
# second thread (src/stream/unpack.c; forced with PERFVTAB_UNPACK_THREAD_MIN=0)
# are the ones decompressed without it (the variable set past any size),
# row for row, error for error; and they are the records of the same data
# uncompressed.
#
# 1. twins made by tests/tools/make_variants twin from fixtures: the data repeated
#    into MB of records, one zstd stream cut every FLUSH bytes into
#    COMPRESSED or COMPRESSED2 containers whatever the record boundaries
#    (records span containers; many containers per block of decompressed
#    bytes, many blocks) -- against the plain twin, and thread against none;
# 2. other writers' compressed files (file and pipe mode, both container
#    types, records across containers) and a big-endian copy: thread
#    against none;
# 3. damaged twins (zstd bytes overwritten, a container header saying size
#    4): the same rows and the same error, naming the file and offset, both
#    ways;
# 4. a query that stops after a few rows leaves the thread mid-stream: it
#    ends cleanly (no leak under ASan, status 0);
# 5. records pinned in the blocks of decompressed bytes (perf's order holds
#    them without a copy) against the twin that copies them all
#    (PERFVTAB_UNPACK_PIN=0): the same samples and flat profile.
#
# Env: PV_ROOT, PV_SHARED, PV_BUILD, PV_SQLRUN.
set -u
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SHARED=${PV_SHARED:-$PV_ROOT/../shared}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PV_SQLRUN=${PV_SQLRUN:-$PV_BUILD/sqlrun}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixtures=$PV_ROOT/tests/fixtures

# Runs SQL with @ for the quoted path; prints the rows, then any error.
sql() {  # mode(thread|none) path sql
    local min=0 rc
    [ "$1" = none ] && min=18446744073709551615
    PERFVTAB_UNPACK_THREAD_MIN=$min "$PV_SQLRUN" "${3//@/\'$2\'}" 2>"$tmp/stderr"
    rc=$?
    cat "$tmp/stderr"
    return $rc
}

same() {  # what, file a, file b
    if cmp -s "$2" "$3"; then
        echo "ok - $1 ($(wc -l <"$2") lines)"
    else
        echo "not ok - $1:"
        diff "$2" "$3" | head -4 | cut -c1-200 | sed 's/^/    /'
    fi
}

sample_columns=$("$PV_SQLRUN" "SELECT group_concat('\"' || name || '\"', ', ') FROM pragma_table_info('perf_samples') WHERE name NOT IN ('record', 'file_offset')")
records_all="SELECT record, file_offset, type, misc, size, time, pid, tid, cpu, id, fields, hex(data) FROM perf_records(@)"
samples_all="SELECT record, file_offset, $sample_columns FROM perf_samples(@)"
records_moved="SELECT type, misc, size, time, pid, tid, cpu, id, fields, hex(data) FROM perf_records(@) WHERE type NOT IN (81, 83)"
samples_moved="SELECT $sample_columns FROM perf_samples(@)"

# 1. twins: fixture, repeat, flush bytes, container type
scale=1
case "$PV_BUILD" in */san) scale=4 ;; esac
n=0
for twin in "dwarf.data 20 4099 81" "example.data 60 60000 83" "multi.data 40 777 81"; do
    set -- $twin
    n=$((n + 1))
    plain=$tmp/plain$n.data z=$tmp/z$n.data
    if ! "$PV_BUILD/tools/make_variants" twin "$fixtures/$1" $(($2 / scale)) "$3" "$4" "$plain" "$z" 2>"$tmp/err"; then
        echo "not ok - make_variants twin $twin: $(head -c 300 "$tmp/err")"
        continue
    fi
    what="$1 x$(($2 / scale)) in containers of $3 bytes (type $4, $(sql none "$z" "SELECT count(*) FROM perf_records(@) WHERE type IN (81, 83)") of them)"
    sql thread "$z" "$records_moved" >"$tmp/a"
    sql none "$plain" "${records_moved% WHERE*}" >"$tmp/b"
    same "$what: perf_records on a thread equal the plain twin's" "$tmp/a" "$tmp/b"
    sql thread "$z" "$samples_moved" >"$tmp/a"
    sql none "$plain" "$samples_moved" >"$tmp/b"
    same "$what: perf_samples on a thread equal the plain twin's" "$tmp/a" "$tmp/b"
    sql thread "$z" "$records_all" >"$tmp/a"
    sql none "$z" "$records_all" >"$tmp/b"
    same "$what: perf_records on a thread equal those without" "$tmp/a" "$tmp/b"
done

# 2. other writers' files, thread against none
# (from ../shared, else the copies kept in tests/corpus, else a skip)
rel=linux-perf-data/tests/fixtures
others=("$fixtures/tracepoint_zfile.data" "$fixtures/tracepoint_zpipe.data")
for f in sleep.compressed.data sleep.compressed2.data sleep.compressed.pipe.data \
         sleep.compressed2.pipe.data fibo.compressed2.pipe.data; do
    if [ -f "$PV_SHARED/corpus/$rel/$f" ]; then
        others+=("$PV_SHARED/corpus/$rel/$f")
    elif [ -f "$PV_ROOT/tests/corpus/$rel/$f" ]; then
        others+=("$PV_ROOT/tests/corpus/$rel/$f")
    else
        echo "ok - $f: perf_records and perf_samples on a thread equal those without (2 checks) # SKIP input absent: $PV_SHARED/corpus/$rel/$f"
    fi
done
sleep_compressed=$PV_ROOT/tests/corpus/$rel/sleep.compressed.data
if ! command -v python3 >/dev/null; then
    echo "ok - sleep.compressed.be.data: on a thread equal to without # SKIP python3 not found"
elif python3 "$PV_ROOT/tests/tools/perf_to_big_endian.py" "$sleep_compressed" \
        "$tmp/sleep.compressed.be.data" >/dev/null 2>&1; then
    others+=("$tmp/sleep.compressed.be.data")
else
    echo "not ok - sleep.compressed.be.data: perf_to_big_endian.py fails on $sleep_compressed"
fi
for f in "${others[@]}"; do
    for q in "$records_all" "$samples_all"; do
        sql thread "$f" "$q" >"$tmp/a"
        sql none "$f" "$q" >"$tmp/b"
        table=${q#*FROM }
        same "$(basename "$f"): ${table%%(*} on a thread equal those without" "$tmp/a" "$tmp/b"
    done
done

# 3. damaged twins: the zstd bytes of a container in the middle overwritten;
# the header of a container further on saying size 4 (the thread meets it
# first, the walk must still give every record before it)
z=$tmp/z1.data
container_at() {  # fraction: file offset of the container that far into the file
    sql none "$z" "SELECT file_offset FROM perf_records(@) WHERE type = 81 LIMIT 1 OFFSET (SELECT count(*) * $1 FROM perf_records(@) WHERE type = 81)"
}
poke() {  # file, offset, bytes (printf escapes)
    printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
if [ -f "$z" ]; then
    cp "$z" "$tmp/damaged.data"
    poke "$tmp/damaged.data" $(($(container_at "1 / 2") + 8)) '\x55\x55\x55\x55'
    cp "$z" "$tmp/badheader.data"
    poke "$tmp/badheader.data" $(($(container_at "3 / 4") + 6)) '\x04\x00'
    for bad in damaged badheader; do
        sql thread "$tmp/$bad.data" "$records_all" >"$tmp/a"
        sql none "$tmp/$bad.data" "$records_all" >"$tmp/b"
        same "$bad twin: rows and error on a thread equal those without" "$tmp/a" "$tmp/b"
        if grep -q "^Error: .*$bad.data.*offset 0x" "$tmp/a"; then
            echo "ok - $bad twin: $(grep -o 'offset 0x.*' "$tmp/a" | head -1 | cut -c1-120)"
        else
            echo "not ok - $bad twin: no error naming the file and offset: $(tail -c 200 "$tmp/a")"
        fi
    done
fi

# 4. stopped mid-stream: the thread is ended with the cursor
for q in "SELECT record FROM perf_samples(@) LIMIT 3" \
         "SELECT count(*) FROM (SELECT record FROM perf_records(@) LIMIT 2000)"; do
    out=$(sql thread "$z" "$q")
    rc=$?
    if [ "$rc" -eq 0 ] && [ -n "$out" ] && ! grep -q 'Sanitizer\|runtime error' <<<"$out"; then
        echo "ok - stopped mid-stream on a thread: $q"
    else
        echo "not ok - stopped mid-stream on a thread: $q: status $rc: $(head -c 300 <<<"$out")"
    fi
done

# 5. pinned against copied, on a thread and without
flat="SELECT * FROM perf_profile(@)"
for f in "$tmp"/z[0-9].data "${others[@]}"; do
    [ -f "$f" ] || continue
    for mode in thread none; do
        for q in "$samples_all" "$flat"; do
            sql "$mode" "$f" "$q" >"$tmp/a"
            PERFVTAB_UNPACK_PIN=0 sql "$mode" "$f" "$q" >"$tmp/b"
            table=${q#*FROM }
            same "$(basename "$f"): ${table%%(*} ($mode) with records pinned equal the copying twin's" "$tmp/a" "$tmp/b"
        done
    done
done
