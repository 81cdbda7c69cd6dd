#!/usr/bin/env bash
# Streams: perf_samples('-'), '/dev/stdin', a FIFO, read in one pass as the
# bytes arrive and spooled to an unlinked temporary file for later scans
# (src/base/stream_spool.h).  The oracle is the same bytes saved to a file
# and read as a file (which t_perf_oracle and the others check against
# perf), row for row, over every table; perf script counts the live
# recording's samples.
#   - the committed fixtures of every layout (pipe, compressed pipe, file,
#     compressed file, big-endian) through `cat` into '-': no perf needed;
#   - every query of one process reads the same stream: two scans, a
#     self-join, a correlated subquery, other tables on the same '-';
#   - '-' and '/dev/stdin' in one process are one stream;
#   - a FIFO whose writer stalls gives its first rows before the end, and
#     sqlite3_interrupt (and the progress handler) stop a query waiting on
#     it with SQLITE_INTERRUPT; the spool is in $TMPDIR, unlinked;
#   - a stream cut in the middle of a record gives the file's whole records
#     before the cut, with a warning;
#   - live: `perf record -o -` into the pipe, into /dev/stdin and into a
#     FIFO, and the README's pipeline as it is written (plain pass).
# No time is asserted but generous bounds (timeout 20 s, 60 s under the
# sanitizers) that turn a hang into a failure.
# Env: PV_ROOT, PV_BUILD, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PV_SQLRUN=${PV_SQLRUN:-$PV_BUILD/sqlrun}
cd "$PV_ROOT"
fx=tests/fixtures
tmp=$(mktemp -d)
writers=()
cleanup() {
    local pid
    for pid in "${writers[@]}"; do kill "$pid" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
limit=20
case "$PV_BUILD" in */san) limit=60 ;; esac
syms="SELECT perf_symbol_path(NULL, '$PV_ROOT/$fx/symbols')"

# queries P: every table's rows over the recording at path P (the stream's
# own diagnostic row left out), one query a line
queries() {
    local p
    p=$(sql_quote "$1")
    printf '%s\n' \
        "SELECT * FROM perf_samples($p) ORDER BY record" \
        "SELECT * FROM perf_samples($p)" \
        "SELECT record, file_offset, type, name, misc, size, time, pid, tid, cpu, id, fields, hex(data), event FROM perf_records($p)" \
        "SELECT * FROM perf_callchains($p)" \
        "SELECT * FROM perf_features($p)" \
        "SELECT * FROM perf_mmaps($p)" \
        "SELECT * FROM perf_comms($p)" \
        "SELECT * FROM perf_diagnostics($p) WHERE kind <> 'stream_spooled'" \
        "SELECT count(*), sum(a.period) FROM perf_samples($p) a JOIN perf_samples($p) b ON a.record = b.record" \
        "SELECT count(*) FROM perf_samples($p) s WHERE s.period = (SELECT period FROM perf_samples($p) t WHERE t.record = s.record)" \
        "SELECT * FROM perf_samples($p) ORDER BY record"
}

# rows OUT P [STDIN]: the queries' output over P, in one process (its
# stdin from STDIN when given)
rows() {
    local out=$1 p=$2 input=${3:-/dev/null}
    local -a qs=("$syms")
    mapfile -t -O 1 qs < <(queries "$p")
    timeout "$limit" "$PV_SQLRUN" "${qs[@]}" <"$input" >"$out" 2>&1
    echo "exit $?" >>"$out"
}

# same_rows LABEL GOT WANT: two outputs of rows, equal, and WANT's queries
# all ran (no error)
same_rows() {
    if [ "$(tail -n 1 "$3")" != "exit 0" ]; then
        not_ok "$1" "the file's queries failed: $(tail -n 3 "$3" | tr '\n\t' '  ')"
    elif cmp -s "$2" "$3"; then
        ok "$1 ($(wc -l <"$3") lines)"
    else
        not_ok "$1" "$(diff "$2" "$3" | head -5 | tr '\n\t' '  ')"
    fi
}

# spooled P STDIN: the bytes perf_diagnostics says the stream brought
spooled() {
    timeout "$limit" "$PV_SQLRUN" "SELECT value FROM perf_diagnostics($(sql_quote "$1")) WHERE kind = 'stream_spooled' AND severity = 'info'" <"$2" 2>&1
}

# ---- the committed fixtures, through a pipe --------------------------------
for f in tracepoint_pipe.data tracepoint_zpipe.data example.data tracepoint_zfile.data \
         big_endian/tracepoint_pipe.data big_endian/fp.data; do
    if [ ! -f "$fx/$f" ]; then
        echo "ok - $f through a pipe # SKIP input absent: $fx/$f"
        continue
    fi
    rows "$tmp/file.out" "$fx/$f"
    cat "$fx/$f" | { rows "$tmp/stream.out" - /dev/stdin; }
    same_rows "$f through cat into '-': every table's rows, two scans, a self-join and a correlated subquery, as the file's" \
        "$tmp/stream.out" "$tmp/file.out"
    check "$f through cat: perf_diagnostics says it was spooled, with its bytes" \
        "$(cat "$fx/$f" | spooled - /dev/stdin)" "$(stat -c %s "$fx/$f")"
done

pipe=$fx/tracepoint_pipe.data
size=$(stat -c %s "$pipe")
rows "$tmp/pipe_file.out" "$pipe"

cat "$pipe" | { rows "$tmp/stdin.out" /dev/stdin /dev/stdin; }
same_rows "tracepoint_pipe.data through cat into '/dev/stdin': as the file's" "$tmp/stdin.out" "$tmp/pipe_file.out"

q="SELECT count(*), sum(period) FROM perf_samples"
check "'-' then '/dev/stdin' in one process: one stream, both read it whole" \
    "$(cat "$pipe" | timeout "$limit" "$PV_SQLRUN" "$q('-')" "$q('/dev/stdin')" "$q('/proc/self/fd/0')" 2>&1)" \
    "$(for _ in 1 2 3; do "$PV_SQLRUN" "$q('$pipe')"; done)"

check "an empty stream is an error naming it" \
    "$(timeout "$limit" "$PV_SQLRUN" "$q('-')" </dev/null 2>&1)" \
    "Error: -: empty stream (offset 0x0): not a perf.data file"

# ---- a FIFO: as it arrives, interrupts, TMPDIR ------------------------------
fifo=$tmp/fifo
mkfifo "$fifo"
( cat "$pipe" >"$fifo" ) &
rows "$tmp/fifo.out" "$fifo"
wait $!
same_rows "tracepoint_pipe.data through a FIFO: as the file's" "$tmp/fifo.out" "$tmp/pipe_file.out"

# a writer that wrote `half` bytes and stalls, holding the FIFO open
half=20000
stall() {
    ( head -c "$half" "$pipe"; exec sleep 300 ) >"$fifo" &
    writers+=($!)
}
first3=$("$PV_SQLRUN" "SELECT group_concat(record) FROM (SELECT record FROM perf_samples('$pipe') ORDER BY record LIMIT 3)")
stall
check "a FIFO whose writer stalls gives its first rows (file order) before the stream ends" \
    "$(timeout "$limit" "$PV_SQLRUN" "SELECT group_concat(record) FROM (SELECT record FROM perf_samples('$fifo') ORDER BY record LIMIT 3)" 2>&1)" \
    "$first3"
kill "${writers[-1]}" 2>/dev/null

probe=$PV_BUILD/tools/interrupt_probe
for way in interrupt progress; do
    stall
    out=$(timeout "$limit" "$probe" "$PV_BUILD/perfvtab.so" "$way" "$half" "SELECT count(*) FROM perf_samples('$fifo')" 2>&1)
    case "$out" in
        "rc=9 "*) ok "a query waiting on a stalled FIFO stops with SQLITE_INTERRUPT ($way)" ;;
        *) not_ok "a query waiting on a stalled FIFO stops with SQLITE_INTERRUPT ($way)" "got '$out'" ;;
    esac
    kill "${writers[-1]}" 2>/dev/null
done
# a writer that opened the FIFO and writes nothing: the opening waits.  The
# stop is asked in the path argument, while the statement runs (an
# interrupt before it starts would be no interrupt at all).
for way in interrupt progress; do
    ( exec sleep 300 ) >"$fifo" &
    writers+=($!)
    out=$(timeout "$limit" "$probe" "$PV_BUILD/perfvtab.so" none 0 "SELECT count(*) FROM perf_samples(stop_by_$way('$fifo'))" 2>&1)
    case "$out" in
        "rc=9 "*) ok "a query waiting for a stream's first bytes stops with SQLITE_INTERRUPT ($way)" ;;
        *) not_ok "a query waiting for a stream's first bytes stops with SQLITE_INTERRUPT ($way)" "got '$out'" ;;
    esac
    kill "${writers[-1]}" 2>/dev/null
done

mkdir "$tmp/spool"
stall
# (not under timeout: its pid is the reader's; killed below)
TMPDIR=$tmp/spool "$PV_SQLRUN" "SELECT count(*) FROM perf_samples('$fifo')" >/dev/null 2>&1 &
reader=$!
spool=""
for _ in $(seq 100); do
    spool=$(ls -l "/proc/$reader/fd" 2>/dev/null | grep -o "$tmp/spool/perfvtab-stream-[^ ]* (deleted)")
    [ -n "$spool" ] && break
    sleep 0.2
done
check "the spool is an unlinked file in \$TMPDIR" "${spool:+unlinked in TMPDIR}" "unlinked in TMPDIR"
check "the spool leaves no name in \$TMPDIR" "$(ls -A "$tmp/spool")x" "x"
kill "$reader" 2>/dev/null
kill "${writers[-1]}" 2>/dev/null
wait "$reader" 2>/dev/null
got=$(cat "$pipe" | TMPDIR=$tmp/absent timeout "$limit" "$PV_SQLRUN" "$q('-')" 2>&1)
case "$got" in
    "Error: -: cannot make a temporary file in $tmp/absent to spool the stream to (TMPDIR chooses where): No such file or directory")
        ok "a TMPDIR that cannot hold the spool is an error naming it" ;;
    *) not_ok "a TMPDIR that cannot hold the spool is an error naming it" "got '$got'" ;;
esac

# ---- a stream cut in the middle of a record --------------------------------
# samples whose records end before the cut, and where the cut record began,
# from the whole file's perf_records
for cut_in in 40 200 -1; do
    read -r cut begin <<<"$("$PV_SQLRUN" -n - "SELECT file_offset + min(size - 1, 13), file_offset FROM perf_records('$pipe') WHERE name = 'SAMPLE' ORDER BY record LIMIT 1 OFFSET $((cut_in < 0 ? 0 : cut_in))" | tr '\t' ' ')"
    [ "$cut_in" -lt 0 ] && { cut=$((size - 3)); begin=$("$PV_SQLRUN" "SELECT max(file_offset) FROM perf_records('$pipe')"); }
    want_rows=$("$PV_SQLRUN" "SELECT count(*), sum(period) FROM perf_samples('$pipe') WHERE record IN (SELECT record FROM perf_records('$pipe') WHERE file_offset + size <= $cut)")
    got=$(head -c "$cut" "$pipe" | timeout "$limit" "$PV_SQLRUN" "$q('-')" \
          "SELECT severity, file_offset, value FROM perf_diagnostics('-') WHERE kind = 'trailing_garbage'" 2>&1)
    check "a stream cut at byte $cut, in a record: the whole records before it, and a warning for the $((cut - begin)) bytes left" \
        "$got" "$want_rows
warning	$begin	$((cut - begin))"
done

# ---- live: perf record -o - ------------------------------------------------
if ! command -v perf >/dev/null || ! timeout "$limit" perf record -o - -- true >/dev/null 2>&1; then
    echo "ok - live perf record -o - # SKIP perf cannot record here"
    exit 0
fi
workload=$tmp/workload
cc -O1 -fno-omit-frame-pointer -g -o "$workload" "$fx/workload.c" ||
    { not_ok "live" "cannot build $fx/workload.c"; exit 0; }
export HOME=$tmp     # perf's build-id cache

# live LABEL PATH: a recording made now, read from PATH as perf writes it,
# and the same bytes saved (tee) and read as a file
live() {
    local label=$1 p=$2
    case "$p" in
        -|/dev/stdin)
            timeout "$limit" perf record -o - -- "$workload" 2>/dev/null | tee "$tmp/live.data" |
                { rows "$tmp/live.out" "$p" /dev/stdin; } ;;
        *)
            ( timeout "$limit" perf record -o - -- "$workload" 2>/dev/null | tee "$tmp/live.data" >"$p" ) &
            rows "$tmp/live.out" "$p"
            wait $! ;;
    esac
    rows "$tmp/live_file.out" "$tmp/live.data"
    same_rows "live perf record -o - into $label: every table as the saved bytes read as a file" \
        "$tmp/live.out" "$tmp/live_file.out"
    check "live perf record -o - into $label: the samples perf script counts" \
        "$(grep -c . < <("$PV_SQLRUN" "SELECT record FROM perf_samples('$tmp/live.data')"))" \
        "$(perf script -i "$tmp/live.data" -F ip 2>/dev/null | grep -c .)"
}
live "'-'" -
live "'/dev/stdin'" /dev/stdin
live "a FIFO" "$fifo"

# perf killed while it records: the stream ends where perf stopped (in the
# middle of a record, or not); small buffers (-m 8) so that perf writes
# samples before it is killed
timeout -s KILL 2 perf record -m 8 -o - -- timeout 4 "$workload" 100000 2>/dev/null |
    tee "$tmp/killed.data" | { rows "$tmp/killed.out" - /dev/stdin; }
rows "$tmp/killed_file.out" "$tmp/killed.data"
n=$("$PV_SQLRUN" "SELECT count(*) FROM perf_samples('$tmp/killed.data')" 2>&1)
same_rows "live perf record -o - killed while it records ($n samples): as the saved bytes read as a file" \
    "$tmp/killed.out" "$tmp/killed_file.out"

# the README's pipeline, as it is written (it loads the plain build)
line=$(grep -m1 "^ *perf record -o - -- .* | sqlite3 " README.md | sed 's/^ *//')
if [ "$PV_BUILD" != "$PV_ROOT/build" ]; then
    :   # the sanitized pass: sqlite3 cannot load this flavour's extension
elif [ -z "$line" ]; then
    not_ok "the README's perf record -o - pipeline" "no such line in README.md"
else
    got=$(timeout "$limit" bash -c "$line" 2>/dev/null)
    case "$got" in
        *"|"[1-9]*) ok "the README's pipeline, run literally, gives rows: $(head -1 <<<"$got")" ;;
        *) not_ok "the README's perf record -o - pipeline" "got '$got' from: $line" ;;
    esac
fi
exit 0
