#!/usr/bin/env bash
# The short MMAP2 of Linux 3.12-3.15 and RHEL 7's 3.10 kernels: no u32 prot
# and u32 flags, so the filename starts at body offset 56 instead of 64.
# Real recordings are rewritten into that layout by
# tests/tools/mmap2_short_layout.py (nothing else in them changes), and:
#  - perf_mmaps gives the names perf script --show-mmap-events prints for the
#    ORIGINAL file, with prot and flags NULL;
#  - perf_diagnostics has one short_mmap2 info row counting them;
#  - the symbol columns equal what perf says on the original file;
#  - perf 6.1 is wrong on the rewritten file (the documented note): it reads
#    each name from offset 64, 8 bytes late: "/usr/lib/x86_64-linux-gnu/libc.so.6"
#    comes out "/x86_64-linux-gnu/libc.so.6", and a name under 8 bytes
#    ("[vdso]") as whatever follows the record's name: the sample_id trailer.
#  - no MMAP2 of the fixtures and of the corpus (perf 3.x to 6.12, simpleperf),
#    all in today's layout, is taken as short.
# Env: PV_ROOT, PV_SQLRUN, PV_SHARED.  Output: "ok - ..." / "not ok - ...".
. "$(dirname "$0")/lib/common.sh"
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$root/build/sqlrun}
shared=${PV_SHARED:-$root/../shared}
rewrite=$root/tests/tools/mmap2_short_layout.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# perf_names FILE: "pid/tid start filename" of each MMAP2 perf script shows,
# sorted (perf script prints in time order, perf_mmaps in file order)
perf_names() {
    perf script -i "$1" --show-mmap-events 2>/dev/null | python3 -c '
import re, sys
line_re = re.compile(rb"PERF_RECORD_MMAP2 (\d+/\d+): \[(0x[0-9a-f]+)\(.*?\]: [-rwxsp]{4} (.*)$")
out = []
for line in sys.stdin.buffer.read().split(b"\n"):
    m = line_re.search(line)
    if m:
        out.append(b"%s %s %s" % m.groups())
sys.stdout.buffer.write(b"".join(x + b"\n" for x in sorted(out)))'
}

# pv_names FILE: the same from perf_mmaps
pv_names() {
    sqlrun "SELECT printf('%d/%d 0x%x %s', pid, tid, start, filename) FROM perf_mmaps($(sql_quote "$1"))
            WHERE kind = 'MMAP2'" | LC_ALL=C sort
}

# check_file NAME ORIGINAL: rewrites ORIGINAL and checks the copy
check_file() {
    local name=$1 original=$2 short=$tmp/$1.data
    local q
    q=$(sql_quote "$short")
    local rewritten
    if ! rewritten=$(python3 "$rewrite" "$original" "$short" 2>&1) || [ "${rewritten:-0}" -eq 0 ]; then
        not_ok "$name: rewrite into the short layout" "$rewritten"
        return
    fi
    perf_names "$original" | LC_ALL=C sort >"$tmp/$name.perf_original"
    pv_names "$short" >"$tmp/$name.pv_short"
    if [ "$(wc -l <"$tmp/$name.perf_original")" -eq "$rewritten" ] &&
        cmp -s "$tmp/$name.perf_original" "$tmp/$name.pv_short"; then
        ok "$name: perf_mmaps reads the $rewritten short MMAP2 names perf prints for the original"
    else
        not_ok "$name: perf_mmaps names of the short MMAP2" \
            "$(diff "$tmp/$name.perf_original" "$tmp/$name.pv_short" | head -5 | tr '\n' ' ')"
    fi
    check "$name: prot and flags are NULL on the short records, known on the original" \
        "$(sqlrun "SELECT count(*), count(prot), count(flags) FROM perf_mmaps($q) WHERE kind = 'MMAP2';
                   SELECT count(prot) FROM perf_mmaps($(sql_quote "$original")) WHERE kind = 'MMAP2'")" \
        "$rewritten	0	0
$rewritten"
    check "$name: perf_records.fields says short_layout and has no prot" \
        "$(sqlrun "SELECT count(*) FROM perf_records($q) WHERE type = 10
                   AND json_extract(fields, '\$.short_layout') = 1
                   AND json_type(fields, '\$.prot') IS NULL")" "$rewritten"
    local first
    first=$(sqlrun "SELECT min(record) FROM perf_mmaps($q) WHERE kind = 'MMAP2'")
    check "$name: perf_diagnostics has one short_mmap2 info row with the count" \
        "$(sqlrun "SELECT kind, severity, record, count, value, message LIKE '%8 bytes late%'
                   FROM perf_diagnostics($q) WHERE kind = 'short_mmap2'")" \
        "short_mmap2	info	$first	$rewritten	$rewritten	1"
    local others="SELECT group_concat(kind || ' ' || severity || ' ' || count, '; ') FROM
                  (SELECT * FROM perf_diagnostics(%s) WHERE kind <> 'short_mmap2' ORDER BY kind)"
    check "$name: the other perf_diagnostics rows are the original's" \
        "[$(sqlrun "$(printf "$others" "$q")")]" \
        "[$(sqlrun "$(printf "$others" "$(sql_quote "$original")")")]"
    check "$name: the original has no short_mmap2 row" \
        "$(sqlrun "SELECT count(*) FROM perf_diagnostics($(sql_quote "$original"))
                   WHERE kind = 'short_mmap2'")" 0

    # perf 6.1 on the rewritten file: each name read from offset 64, 8 bytes
    # late; names under 8 bytes come out as the bytes after them
    perf_names "$short" >"$tmp/$name.perf_short"
    python3 - "$tmp/$name.perf_original" "$tmp/$name.perf_short" <<'PY'
import sys
name = sys.argv[1].rsplit("/", 1)[1].split(".")[0]
def parse(path):
    rows = {}
    for line in open(path, "rb").read().split(b"\n"):
        if line:
            pid, start, filename = line.split(b" ", 2)
            rows.setdefault((pid, start), []).append(filename)
    return rows
orig, short = parse(sys.argv[1]), parse(sys.argv[2])
late = wrong = other = 0
for key, names in orig.items():
    got = short.get(key, [])
    for n in names:
        if len(n) >= 8 and n[8:] in got:
            late += 1
        elif len(n) < 8 and n not in got:
            wrong += 1
        else:
            other += 1
total = sum(len(v) for v in orig.values())
if late + wrong == total and late > 0 and other == 0:
    print(f"ok - {name}: perf 6.1 is wrong on the short layout (documented): {late} names read "
          f"8 bytes late, {wrong} shorter than 8 bytes read from the trailer")
else:
    print(f"not ok - {name}: perf on the short layout: {late} late, {wrong} unreadable, "
          f"{other} unexpected of {total}")
PY
}

if ! command -v perf >/dev/null; then
    echo "ok - short MMAP2 # SKIP perf is not installed"
    exit 0
fi

# recordings made by others: the example.data fixture (4 MMAP2 from the
# kernel: the workload, ld.so, [vdso], libc) and multi.data (186, most from
# perf's /proc synthesis, one with a space: "/memfd:... (deleted)")
for fixture in example multi; do
    check_file "$fixture" "$root/tests/fixtures/$fixture.data"
done

# symbols on the short layout: perf's answers on the original file are the
# expected values (perf's outputs cached, then compared with perfvtab on the
# rewritten copy); the workload of example.data is in tests/fixtures/symbols
cache=$tmp/perf-said
mkdir -p "$cache"
python3 "$root/tests/oracle/symbols_vs_perf.py" "$PV_SQLRUN" "$root" "example (original)" \
    "$root/tests/fixtures/example.data" --frames --perf-cache "$cache" >"$tmp/sym.log" ||
    echo "not ok - example (original): symbols differ from perf: $(oneline "$tmp/sym.log")"
python3 "$root/tests/oracle/symbols_vs_perf.py" "$PV_SQLRUN" "$root" "example (short MMAP2)" \
    "$tmp/example.data" --frames --perf-cache "$cache"
syms="SELECT perf_symbol_path(NULL, $(sql_quote "$root/tests/fixtures/symbols"));
      SELECT dso, count(*), count(sym), group_concat(DISTINCT sym) FROM
        (SELECT dso, sym FROM perf_callchains(%s) ORDER BY sample, depth) GROUP BY dso ORDER BY dso"
want=$(sqlrun "$(printf "$syms" "$(sql_quote "$root/tests/fixtures/example.data")")")
got=$(sqlrun "$(printf "$syms" "$(sql_quote "$tmp/example.data")")")
if [ "$got" = "$want" ] && grep -q 'fill_and_hash' <<<"$got"; then
    ok "example: the workload's frames (tests/fixtures/symbols) are named as on the original"
else
    not_ok "example: the workload's frames on the short layout" "$(head -c 300 <<<"$got")"
fi

# a recording made now, of a binary built now: every user frame named
work=$tmp/workload
if cc -O1 -fno-omit-frame-pointer -g -o "$work" "$root/tests/fixtures/workload.c" 2>"$tmp/cc.log" &&
    timeout 120 perf record -q -N -g -F 999 -o "$tmp/live_original.data" -- "$work" 10 \
        >"$tmp/record.log" 2>&1; then
    check_file live "$tmp/live_original.data"
    mkdir -p "$tmp/live-said"
    python3 "$root/tests/oracle/symbols_vs_perf.py" "$PV_SQLRUN" "$root" "live (original)" \
        "$tmp/live_original.data" --frames --perf-cache "$tmp/live-said" >"$tmp/sym.log" ||
        echo "not ok - live (original): symbols differ from perf: $(oneline "$tmp/sym.log")"
    python3 "$root/tests/oracle/symbols_vs_perf.py" "$PV_SQLRUN" "$root" "live (short MMAP2)" \
        "$tmp/live.data" --frames --perf-cache "$tmp/live-said"
else
    echo "ok - live # SKIP perf record could not record here: $(oneline "$tmp/record.log")"
fi

# today's layout is never taken as short: every MMAP2 of the fixtures and the corpus
files=("$root"/tests/fixtures/*.data)
if [ -f "$shared/corpus/MANIFEST.tsv" ]; then
    while IFS=$'\t' read -r file _; do
        files+=("$shared/corpus/$file")
    done < <(tail -n +2 "$shared/corpus/MANIFEST.tsv")
else
    echo "ok - the corpus's MMAP2 records # SKIP input absent: $shared/corpus"
fi
mmap2=0 short=0 unread=0 crashed=
for f in "${files[@]}"; do
    # the fuzzer's files and other damaged ones are an SQL error, never a crash
    counts=$("$PV_SQLRUN" "SELECT count(*), count(*) - count(prot) FROM perf_mmaps($(sql_quote "$f"))
                           WHERE kind = 'MMAP2'" 2>"$tmp/err")
    rc=$?
    if [ $rc -gt 1 ] || grep -q "Sanitizer\|runtime error" "$tmp/err"; then
        crashed+=" ${f##*/}"
    elif [ $rc -ne 0 ]; then
        unread=$((unread + 1))
    else
        mmap2=$((mmap2 + ${counts%%	*}))
        short=$((short + ${counts#*	}))
    fi
done
if [ "$mmap2" -gt 0 ] && [ "$short" -eq 0 ] && [ -z "$crashed" ]; then
    ok "none of the $mmap2 MMAP2 records of $((${#files[@]} - unread)) real files (fixtures, corpus) is taken as short ($unread damaged files are an error)"
else
    not_ok "real MMAP2 records taken as short" "$short of $mmap2; crashed on:${crashed:- none}"
fi
