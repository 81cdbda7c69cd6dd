#!/usr/bin/env bash
# perf_samples.comm is the name of the sampled thread at the sample's time,
# not its process's: tests/fixtures/threadnames.data (threadnames.c: threads
# that name themselves with pthread_setname_np, one of them halfway through
# its work) against perf script on the same file.  The program's binary is in
# tests/fixtures/symbols/ by build-id, so that its symbols resolve from the
# repository alone, for perf (--buildid-dir) and for perfvtab
# (perf_symbol_path).  No live recording.
#
# Env: PV_ROOT, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$PV_ROOT/build/sqlrun}
f=$PV_ROOT/tests/fixtures/threadnames.data
symbols=$PV_ROOT/tests/fixtures/symbols
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$f" ]; then
    echo "ok - threadnames.data: comm per thread as perf # SKIP input absent: $f"
    exit 0
fi
F=$(sql_quote "$f")

# perf's samples: time tid comm sym dso, sorted (perf prints them in time order)
HOME=$tmp perf --buildid-dir "$symbols" script -i "$f" --ns -G -F pid,tid,time,comm,ip,sym,dso \
    >"$tmp/perf.txt" 2>"$tmp/perf.err"
python3 - "$tmp/perf.txt" >"$tmp/perf.tsv" <<'EOF'
import re, sys
line_re = re.compile(r'^\s*(.*?) +(-?\d+)/(-?\d+) +(\d+)\.(\d{9}): +[0-9a-f]+ (.*) \((.*)\)$')
rows = []
for line in open(sys.argv[1], encoding='utf-8', errors='surrogateescape'):
    m = line_re.match(line.rstrip('\n'))
    if not m:
        sys.exit('unparsed perf script line: %r' % line)
    comm, pid, tid, sec, ns, sym, dso = m.groups()
    rows.append((int(sec) * 10**9 + int(ns), int(pid), int(tid), comm,
                 '' if sym == '[unknown]' else sym, dso))
for r in sorted(rows):
    print('\t'.join(str(x) for x in r))
EOF
n=$(wc -l <"$tmp/perf.tsv")
if [ "$n" -lt 100 ]; then
    not_ok "threadnames.data: perf script reads its samples" "$n rows: $(oneline "$tmp/perf.err")"
    exit 0
fi

# The fixture can tell a thread's name from its process's: perf names the
# samples of one process in three ways, and one thread in two (before and
# after its COMM record).
got=$(awk -F'\t' '{ print $2 "\t" $4 }' "$tmp/perf.tsv" | sort -u | awk -F'\t' '{ n[$1]++ } END { for (p in n) print n[p] }')
check "threadnames.data: perf names the samples of its process three ways" "$got" 3
got=$(awk -F'\t' '{ print $3 "\t" $4 }' "$tmp/perf.tsv" | sort -u | awk -F'\t' '{ n[$1]++ } END { for (t in n) if (n[t] > 1) print n[t] }')
check "threadnames.data: perf names one thread two ways (renamed halfway)" "$got" 2

# every sample's comm, in time order
"$PV_SQLRUN" "SELECT time, pid, tid, comm FROM perf_samples($F) ORDER BY time, pid, tid, comm" \
    >"$tmp/ours.tsv" 2>&1
cut -f1-4 "$tmp/perf.tsv" >"$tmp/want.tsv"
if cmp -s "$tmp/want.tsv" "$tmp/ours.tsv"; then
    ok "threadnames.data: every sample's comm is perf's ($n samples)"
else
    not_ok "threadnames.data: every sample's comm is perf's" \
        "first difference: $(diff "$tmp/want.tsv" "$tmp/ours.tsv" | grep -m2 '^[<>]' | tr '\n\t' '  ')"
fi
# the same through GROUP BY (perf_samples' grouped path)
want=$(cut -f3,4 "$tmp/perf.tsv" | sort | uniq -c | awk '{ print $2 "\t" $3 "\t" $1 }' | sort)
got=$("$PV_SQLRUN" "SELECT tid, comm, count(*) FROM perf_samples($F) GROUP BY tid, comm" 2>&1 | sort)
check "threadnames.data: samples per thread and name as perf's" "$got" "$want"

# Symbols from the repository: the program's samples name its functions,
# as perf names them from the same build-id directory.
want=$(awk -F'\t' '$6 ~ /\/threadnames$/ { print $1 "\t" $3 "\t" $4 "\t" $5 }' "$tmp/perf.tsv")
got=$("$PV_SQLRUN" "SELECT perf_symbol_path(NULL, $(sql_quote "$symbols"))" \
    "SELECT time, tid, comm, sym FROM perf_samples($F) WHERE dso LIKE '%/threadnames' ORDER BY time, tid" 2>&1 |
    tail -n +2)
if [ -n "$want" ] && [ "$(grep -c spin <<<"$want")" -gt 0 ]; then
    check "threadnames.data: the program's samples' comm and sym, its binary from tests/fixtures/symbols, as perf's ($(wc -l <<<"$want") samples)" \
        "$got" "$want"
else
    not_ok "threadnames.data: perf names the program's functions from tests/fixtures/symbols" \
        "perf gave no 'spin' in /tmp/perfvtab-fixtures/threadnames: $(oneline "$tmp/perf.err")"
fi
