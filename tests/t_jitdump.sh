#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# JIT frames named from a runtime's jitdump (jit-PID.dump) without perf
# inject: node --perf-prof recorded with perf record -k 1 -g.
#  - the fixture (tests/fixtures/jit/, record.sh): perfvtab on the recording
#    as it is gives every JIT symbol the samples perf report gives it after
#    perf inject --jit (tests/expected/jitdump/report.txt, made by
#    tests/gen/jitdump.sh), exactly: perf inject maps each code load from
#    its timestamp and perfvtab replays the same maps, so the same samples
#    fall into the same code;
#  - the jitdump found beside the recording, under perf_symbol_path's
#    directory, in the other byte order; missing, cut short, garbage;
#  - source lines from its debug-info records, checked against the bytes;
#  - a later CODE_LOAD over used code and a CODE_MOVE, timed mid-run, against
#    perf inject and perf report run now on that jitdump;
#  - a live recording of node, against perf inject and perf report run now.
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture=tests/fixtures/jit
expected=tests/expected/jitdump/report.txt
dump=$(cd "$fixture" && ls jit-*.dump.xz)
dump=${dump%.xz}

# counts per JIT symbol from perf report's rows (jitted-PID-N.so dsos)
perf_jit_counts() {
    awk '$2 ~ /^jitted-[0-9]+-[0-9]+\.so$/ { n = $1; $1 = ""; $2 = ""; $3 = "";
         sub(/^ +/, ""); sum[$0] += n } END { for (s in sum) print s "\t" sum[s] }' "$1" | sort
}
# perfvtab's, for the samples its jitdump names
pv_jit_counts() {
    sqlrun "SELECT sym, count(*) FROM perf_samples($(sql_quote "$1"))
                 WHERE dso GLOB '*/jit-*.dump' AND sym IS NOT NULL GROUP BY sym" | sort
}
# the same, after perf_symbol_path(sysroot, symdir)
pv_jit_counts_symdir() {
    sqlrun "SELECT perf_symbol_path(NULL, $(sql_quote "$1"))" \
        "SELECT sym, count(*) FROM perf_samples($(sql_quote "$2"))
         WHERE dso GLOB '*/jit-*.dump' AND sym IS NOT NULL GROUP BY sym" | tail -n +2 | sort
}

if [ ! -f "$expected" ] || [ ! -f "$fixture/$dump.xz" ]; then
    echo "ok - jitdump fixture # SKIP input absent: $fixture or $expected"
    exit 0
fi
mkdir -p "$tmp/beside" "$tmp/alone" "$tmp/symdir"
cp "$fixture/node.data" "$tmp/beside/"
cp "$fixture/node.data" "$tmp/alone/"
xz -dc "$fixture/$dump.xz" >"$tmp/beside/$dump"
cp "$tmp/beside/$dump" "$tmp/symdir/"

want=$(perf_jit_counts "$expected")
total_want=$(awk '{ n += $1 } END { print n }' "$expected")
js_functions=$(grep -c '^JS:\*\(fib\|sieve\|mix\) ' <<<"$want")
if [ "$js_functions" = 3 ]; then
    echo "ok - fixture: perf report after perf inject names fib, sieve and mix (optimized)"
else
    echo "not ok - fixture: the expected report lacks a JS function: $want"
fi
check "fixture, beside the recording: samples per JIT symbol as perf report after perf inject --jit" \
    "$(pv_jit_counts "$tmp/beside/node.data")" "$want"
check "fixture: every sample counted, as perf report does (the shares' denominator)" \
    "$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/beside/node.data')")" "$total_want"
check "fixture, jitdump under perf_symbol_path's directory: the same counts" \
    "$(pv_jit_counts_symdir "$tmp/symdir" "$tmp/alone/node.data")" "$want"

# the other byte order ("DTiJ" read as a number)
mkdir -p "$tmp/swapped"
cp "$fixture/node.data" "$tmp/swapped/"
python3 tests/tools/jitdump_swap.py "$tmp/beside/$dump" "$tmp/swapped/$dump"
check "fixture, jitdump in the other byte order: the same counts" \
    "$(pv_jit_counts "$tmp/swapped/node.data")" "$want"

# source lines: every JIT frame that has one gives a (file, line) that a
# debug entry of a code load of that name holds, read from the bytes here
python3 - "$tmp/beside/$dump" >"$tmp/lines.want" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
at = struct.unpack_from('<I', b, 8)[0]
pending = []
while len(b) - at >= 16:
    rid, total, _ = struct.unpack_from('<IIQ', b, at)
    if rid == 2:
        nr = struct.unpack_from('<Q', b, at + 24)[0]
        p, pending = at + 32, []
        for _ in range(nr):
            _, line, _ = struct.unpack_from('<QII', b, p)
            end = b.index(b'\0', p + 16)
            pending.append((b[p + 16:end], line))
            p = end + 1
    elif rid == 0:
        end = b.index(b'\0', at + 56)
        name = b[at + 56:end].decode()
        for f, line in pending:
            try:
                print(f"{name}\t{f.decode()}\t{line}")
            except UnicodeDecodeError:
                pass
        pending = []
    at += total
PY
sqlrun "SELECT DISTINCT sym, srcfile, srcline FROM perf_callchains('$tmp/beside/node.data')
        WHERE dso GLOB '*/jit-*.dump' AND srcfile IS NOT NULL" >"$tmp/lines.got"
n_lines=$(grep -c . "$tmp/lines.got")
missing=$(sort -u "$tmp/lines.want" | comm -23 <(sort -u "$tmp/lines.got") - | head -3)
if [ "$n_lines" -gt 0 ] && [ -z "$missing" ]; then
    echo "ok - fixture: $n_lines JIT frames' source lines, each one a debug entry of its function"
else
    echo "not ok - fixture: JIT source lines ($n_lines) not in the jitdump's debug entries: $missing"
fi
# node 20's V8 writes bytes of memory for a script's file name: no line
got=$(sqlrun "SELECT count(*), count(srcfile) FROM perf_samples('$tmp/beside/node.data')
              WHERE sym GLOB 'JS:[*]mix *'")
case $got in
[1-9]*$'\t'0) echo "ok - fixture: mix's debug entries name no file as text, so its samples have no source line ($got)" ;;
*) echo "not ok - fixture: mix's samples and source lines: $got" ;;
esac

# missing: no name, and sym_status says why.  A sysroot (empty here) stands
# for the recording machine, so the recorded path itself is not read.
mkdir -p "$tmp/emptyroot"
missing_status() {
    sqlrun "SELECT perf_symbol_path($(sql_quote "$tmp/emptyroot"))" \
        "SELECT count(*), count(sym), min(sym_status) FROM perf_samples($(sql_quote "$1"))
         WHERE dso GLOB '/tmp/perf-*.map'" | tail -n +2
}
got=$(missing_status "$tmp/alone/node.data")
case $got in
[1-9]*$'\t'0$'\t'"no JIT map /tmp/perf-"*"; jitdump not found or unusable: $tmp/emptyroot/tmp/perfvtab-jit/$dump: No such file"*)
    echo "ok - missing jitdump: the JIT code's samples unnamed, sym_status says where the jitdump was looked for" ;;
*) echo "not ok - missing jitdump: $got" ;;
esac

# an allocation that fails while a jitdump is read and fed ends the query
# in an error or in its right rows (tests/tools/alloc_sweep.c, as t_alloc.sh)
if [ -x "${PV_BUILD:-build}/tools/alloc_sweep" ]; then
    timeout 900 "${PV_BUILD:-build}/tools/alloc_sweep" --runs 12 \
        "SELECT sym, count(*) FROM perf_samples('$tmp/beside/node.data') WHERE dso GLOB '*/jit-*.dump' GROUP BY sym" \
        "SELECT kind, message FROM perf_diagnostics('$tmp/beside/node.data')"
    [ $? -le 1 ] || echo "not ok - jitdump alloc_sweep: a crash or a time-out"
else
    echo "ok - jitdump alloc_sweep # SKIP input absent: ${PV_BUILD:-build}/tools/alloc_sweep not built"
fi

# damaged jitdumps, beside a copy of the recording (the empty sysroot keeps
# the recorded path out): every query answers, perf_diagnostics says why
python3 - "$tmp/beside/$dump" "$tmp/damaged" <<'PY'
import os, struct, sys, random
src, out = sys.argv[1:]
good = open(src, 'rb').read()
first = struct.unpack_from('<I', good, 8)[0]       # the header's total_size
def put(name, data):
    os.makedirs(f"{out}/{name}", exist_ok=True)
    open(f"{out}/{name}/{os.path.basename(src)}", 'wb').write(data)
# the first CODE_LOAD record
at = first
while struct.unpack_from('<I', good, at)[0] != 0:
    at += struct.unpack_from('<I', good, at + 4)[0]
put('cut_in_record', good[:len(good) * 3 // 5 + 5])
put('cut_in_header', good[:20])
put('empty', b'')
put('garbage', bytes(random.Random(26).randrange(256) for _ in range(8192)))
d = bytearray(good); struct.pack_into('<I', d, first + 4, 8)
put('record_size_8', bytes(d))
d = bytearray(good); struct.pack_into('<I', d, first + 4, 0xffffffff)
put('record_size_huge', bytes(d))
d = bytearray(good); struct.pack_into('<Q', d, at + 40, 1 << 40)
put('code_size_huge', bytes(d))
d = bytearray(good); struct.pack_into('<I', d, 20, 1)
put('other_pid', bytes(d))
d = bytearray(good); struct.pack_into('<Q', d, 32, 6)
put('unknown_flags', bytes(d))
PY
full_named=$(sqlrun "SELECT count(sym) FROM perf_samples('$tmp/beside/node.data') WHERE dso GLOB '*/jit-*.dump'")
for variant in cut_in_record:jitdump_damaged:"read up to the damage" \
               cut_in_header:jitdump_missing:"shorter than a jitdump header" \
               empty:jitdump_missing:"shorter than a jitdump header" \
               garbage:jitdump_missing:"not a jitdump: magic" \
               record_size_8:jitdump_damaged:"less than its prefix" \
               record_size_huge:jitdump_damaged:"past the end of the file" \
               code_size_huge:jitdump_damaged:"code_size 1099511627776 is more than its record holds" \
               other_pid:jitdump_missing:"it is process 1's" \
               unknown_flags:jitdump_missing:"unknown header flags 0x6"; do
    IFS=: read -r name kind words <<<"$variant"
    dir=$tmp/damaged/$name
    cp "$fixture/node.data" "$dir/"
    sqlrun_each "$tmp/q" "SELECT perf_symbol_path($(sql_quote "$tmp/emptyroot"))" \
        "SELECT kind || ': ' || message FROM perf_diagnostics('$dir/node.data') WHERE kind GLOB 'jitdump_*'" \
        "SELECT count(*), count(sym) FROM perf_samples('$dir/node.data') WHERE dso GLOB '*/jit-*.dump'" \
        "SELECT count(*) FROM perf_callchains('$dir/node.data')" \
        "SELECT count(*) FROM perf_profile('$dir/node.data')"
    diag=$(cat "$tmp/q.1") named=$(cat "$tmp/q.2") frames=$(cat "$tmp/q.3") profile=$(cat "$tmp/q.4")
    IFS=$'\t' read -r in_dump n_named <<<"$named"
    if [[ $diag == "$kind: "*"$words"* ]] && [[ $frames =~ ^[1-9][0-9]*$ ]] &&
       [[ $profile =~ ^[1-9][0-9]*$ ]] && [[ $in_dump =~ ^[0-9]+$ ]] &&
       [ "$n_named" -le "$full_named" ]; then
        echo "ok - damaged jitdump ($name): $kind in perf_diagnostics, every table answers ($n_named of $full_named JIT samples named)"
    else
        echo "not ok - damaged jitdump ($name): diagnostics '$diag', samples '$named', callchains '$frames', profile '$profile'"
    fi
done

# over time: the fixture's jitdump with two records added at its end, timed
# in the middle of the run: a CODE_LOAD of another name over mix's hot code,
# and a CODE_MOVE of sieve's hot code onto fib's.  The samples before
# each keep their old name, those after take the new one; perf inject and
# perf report, run now on the same jitdump (put where the recording names
# it, in the test's own /tmp), say which.
if [ -e /tmp/perfvtab-jit ]; then
    echo "ok - jitdump records over time, against perf inject # SKIP /tmp/perfvtab-jit exists (not the test's own /tmp), where perf inject must read the changed jitdump"
else
    mkdir -p "$tmp/timed" "$tmp/home" /tmp/perfvtab-jit
    cp "$fixture/node.data" "$tmp/timed/"
    starts=$(sqlrun "SELECT sym, ip - dso_offset, (min(time) + max(time)) / 2 FROM perf_samples('$tmp/beside/node.data')
                     WHERE sym GLOB 'JS:[*]mix *' OR sym GLOB 'JS:[*]fib *' OR sym GLOB 'JS:[*]sieve *'
                     GROUP BY 1, 2 ORDER BY count(*) DESC")
    python3 - "$tmp/beside/$dump" "$tmp/timed/$dump" "$starts" <<'PY'
import struct, sys
src, dst, starts = sys.argv[1:]
hot = {}
for line in starts.splitlines():
    sym, start, mid = line.split('\t')
    hot.setdefault(sym.split()[0], (int(start), int(mid)))   # the most sampled code of each
b = open(src, 'rb').read()
loads = {}
at = struct.unpack_from('<I', b, 8)[0]
while len(b) - at >= 16:
    rid, total, _ = struct.unpack_from('<IIQ', b, at)
    if rid == 0:
        pid, tid, _, addr, size, index = struct.unpack_from('<IIQQQQ', b, at + 16)
        loads[addr] = (pid, tid, size, index)
    at += total
mix_start, mix_mid = hot['JS:*mix']
sieve_start, _ = hot['JS:*sieve']
fib_start, fib_mid = hot['JS:*fib']
pid, tid, mix_size, _ = loads[mix_start]
name = b'JS:replaced mix\0'
load = struct.pack('<IIQ', 0, 16 + 40 + len(name) + mix_size, mix_mid)
load += struct.pack('<IIQQQQ', pid, tid, mix_start, mix_start, mix_size, 1 << 40) + name + bytes(mix_size)
_, _, sieve_size, sieve_index = loads[sieve_start]
move = struct.pack('<IIQ', 1, 16 + 48, fib_mid)
move += struct.pack('<IIQQQQQ', pid, tid, fib_start, sieve_start, fib_start, sieve_size, sieve_index)
open(sys.argv[2], 'wb').write(b + load + move)
PY
    cp "$tmp/timed/$dump" /tmp/perfvtab-jit/
    if HOME=$tmp/home perf inject --jit -i "$tmp/timed/node.data" -o "$tmp/timed/injected.data" \
            >"$tmp/timed/inject.log" 2>&1; then
        HOME=$tmp/home perf report -i "$tmp/timed/injected.data" --stdio --no-children -g none \
            --sort dso,sym -F sample,dso,sym 2>/dev/null | grep -v '^#' | grep . | sed 's/ *$//' \
            >"$tmp/timed/report.txt"
        want=$(perf_jit_counts "$tmp/timed/report.txt")
        replaced=$(awk -F '\t' '$1 == "JS:replaced mix" { print $2 }' <<<"$want")
        mix_after=$(grep '^JS:\*mix ' <<<"$want" | cut -f2)
        fib_before=$(grep '^JS:\*fib ' <<<"$(perf_jit_counts "$expected")" | cut -f2)
        fib_after=$(grep '^JS:\*fib ' <<<"$want" | cut -f2)
        if [ "${replaced:-0}" -gt 0 ] && [ "${mix_after:-0}" -gt 0 ] &&
           [ "${fib_after:-0}" -gt 0 ] && [ "${fib_after:-0}" -lt "${fib_before:-0}" ]; then
            check "jitdump records over time: a later load and a move rename the samples after them, as perf inject + perf report ($replaced of mix's, $((fib_before - fib_after)) of fib's samples renamed)" \
                "$(pv_jit_counts "$tmp/timed/node.data")" "$want"
        else
            echo "not ok - jitdump records over time: perf does not rename part of mix's and fib's samples ($replaced, $mix_after, $fib_before, $fib_after): $want"
        fi
    else
        echo "not ok - jitdump records over time: perf inject failed: $(oneline "$tmp/timed/inject.log")"
    fi
    rm -rf /tmp/perfvtab-jit
fi

# live: node recorded now, perf inject --jit and perf report run now
if ! command -v node >/dev/null || ! command -v perf >/dev/null; then
    echo "ok - live node recording against perf inject --jit # SKIP node or perf is not installed (scripts/install-deps.sh installs both)"
    exit 0
fi
mkdir -p "$tmp/live" "$tmp/home"
cp "$fixture/script.js" "$tmp/live/"
if ! (cd "$tmp/live" && HOME=$tmp/home timeout 60 perf record -q -k 1 -g -F 499 -o perf.data -- \
        node --perf-prof --interpreted-frames-native-stack script.js 20 >record.log 2>&1) ||
   ! ls "$tmp"/live/jit-*.dump >/dev/null 2>&1; then
    echo "ok - live node recording against perf inject --jit # SKIP perf record of node failed (permissions?): $(oneline "$tmp/live/record.log")"
    exit 0
fi
if ! HOME=$tmp/home perf inject --jit -i "$tmp/live/perf.data" -o "$tmp/live/injected.data" \
        >"$tmp/live/inject.log" 2>&1; then
    echo "not ok - live: perf inject --jit failed: $(oneline "$tmp/live/inject.log")"
    exit 0
fi
HOME=$tmp/home perf report -i "$tmp/live/injected.data" --stdio --no-children -g none --sort dso,sym \
    -F sample,dso,sym 2>/dev/null | grep -v '^#' | grep . | sed 's/ *$//' >"$tmp/live/report.txt"
want=$(perf_jit_counts "$tmp/live/report.txt")
if [ -z "$want" ]; then
    echo "not ok - live: perf report names no JIT symbol after perf inject: $(oneline "$tmp/live/report.txt")"
else
    check "live: samples per JIT symbol as perf report after perf inject --jit ($(grep -c . <<<"$want") symbols)" \
        "$(pv_jit_counts "$tmp/live/perf.data")" "$want"
fi
