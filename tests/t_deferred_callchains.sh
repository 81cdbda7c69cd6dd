#!/usr/bin/env bash
# Deferred user callchains (Linux 6.19, perf 7.0 `--call-graph fp,defer`):
# PERF_RECORD_CALLCHAIN_DEFERRED (22) and samples whose callchain ends in
# PERF_CONTEXT_USER_DEFERRED and a cookie.  perf 6.1 cannot read such a file
# and this machine cannot record one, so tests/tools/fp_to_deferred.py
# rewrites fp.data as perf 7 writes it (tests/fixtures/deferred/README.md).
#  - perf 6.1 on the original fp.data is the oracle for the stitched
#    stacks: on a rewrite where every record comes, perf_samples,
#    perf_callchains and the profiles equal perf script's and perf report's
#    reading of the original (symbols_vs_perf.py --perf-data), and
#    perf_profile, the flame graph and perf_pprof equal perfvtab's of fp.data;
#  - the committed fixture leaves one record out: its sample stays
#    kernel-only, and perf_diagnostics says how many (the generator's count);
#  - the record's fields, read from the bytes here, in perf_records;
#  - perf 7's rule, the next record of the task: a wrong cookie leaves
#    that record's samples kernel-only; a damaged record is a malformed one;
#  - the big-endian copy gives the same rows.
# Env: PV_ROOT, PV_SQLRUN.  Output: "ok - ..." / "not ok - ..." lines.
. "$(dirname "$0")/lib/common.sh"
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$root/build/sqlrun}
fixtures=$root/tests/fixtures
dir=$fixtures/deferred
fixture=$dir/deferred.data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q() { sql_quote "$1"; }

# every sample's frames, one line a sample, by task and time (the rewrite
# adds records, so ordinals differ between the files)
stacks() {
    sqlrun "SELECT tid, time, group_concat(printf('%x', ip) || ':' || cpumode, ' ')
            FROM (SELECT * FROM perf_callchains($(q "$1")) ORDER BY sample, depth)
            GROUP BY sample ORDER BY time, tid"
}

if ! command -v python3 >/dev/null; then
    echo "not ok - deferred callchains: python3 is needed to read the fixture's bytes"
    exit 0
fi

# 1. the generator remakes the committed fixtures byte for byte
counts=$(cd "$tmp" && mkdir -p tests/fixtures/deferred && cp "$fixtures/fp.data" tests/fixtures/ &&
         ln -s "$root/tests/tools" tests/tools && bash "$dir/make.sh" 2>/dev/null | head -n 1)
read -r rewritten written waiting left_out <<<"$counts"
if cmp -s "$tmp/tests/fixtures/deferred/deferred.data" "$fixture" &&
    cmp -s "$tmp/tests/fixtures/deferred/deferred_be.data" "$dir/deferred_be.data"; then
    ok "deferred/make.sh remakes deferred.data and deferred_be.data byte for byte ($counts)"
else
    not_ok "deferred/make.sh remakes the fixtures" "they differ ($counts)"
fi

# 2. the records: perf_records' fields against the bytes
python3 - "$fixture" >"$tmp/first.txt" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', b, 40)
at, n = off, 0
first = None
while at < off + size:
    typ, misc, sz = struct.unpack_from('<IHH', b, at)
    if typ == 22:
        n += 1
        if first is None:
            cookie, nr = struct.unpack_from('<QQ', b, at + 8)
            ips = struct.unpack_from('<%dQ' % nr, b, at + 24)
            addrs = [str(v if v < 1 << 63 else v - (1 << 64)) for v in ips if v < (1 << 64) - 4095]
            pid, tid, time = struct.unpack_from('<IIQ', b, at + 24 + 8 * nr)
            first = (cookie, nr, '[' + ','.join(addrs) + ']', pid, tid, time)
    at += sz
print(n)
print('\t'.join(str(x) for x in first))
PY
check "perf_records: $written CALLCHAIN_DEFERRED records, as the generator wrote and the bytes hold" \
    "$(sqlrun "SELECT count(*) FROM perf_records($(q "$fixture")) WHERE type = 22 AND name = 'CALLCHAIN_DEFERRED'")" \
    "$(head -n 1 "$tmp/first.txt")"
check "perf_records: the first one's cookie, nr, ips (markers left out) and sample_id, as the bytes hold" \
    "$(sqlrun "SELECT json_extract(fields, '\$.cookie'), json_extract(fields, '\$.nr'), json(json_extract(fields, '\$.ips')),
               pid, tid, time FROM perf_records($(q "$fixture")) WHERE type = 22 ORDER BY record LIMIT 1")" \
    "$(tail -n 1 "$tmp/first.txt")"

# 3. perf 6.1 on the original is the oracle for a rewrite whose records all come
python3 "$root/tests/tools/fp_to_deferred.py" --unmatched -1 "$fixtures/fp.data" "$tmp/all.data" >/dev/null
if command -v perf >/dev/null; then
    python3 "$root/tests/oracle/symbols_vs_perf.py" "$PV_SQLRUN" "$root" deferred_all "$tmp/all.data" \
        --frames --profiles --buildid-dir "$fixtures/symbols" --perf-data "$fixtures/fp.data"
else
    echo "ok - deferred_all: perf's frames # SKIP perf is not installed"
fi
check "all records come: every sample's stack is fp.data's" "$(stacks "$tmp/all.data")" "$(stacks "$fixtures/fp.data")"
check "all records come: user frames from the deferred records, kernel frames from the callchain" \
    "$(sqlrun "SELECT group_concat(o, ' ') FROM (SELECT DISTINCT cpumode || ':' || origin o
               FROM perf_callchains($(q "$tmp/all.data")) ORDER BY o)")" "kernel:callchain user:deferred"
same() {    # same WHAT QUERY: the query's result on the rewrite equals fp.data's
    local a b
    a=$(sqlrun "SELECT perf_symbol_path(NULL, $(q "$fixtures/symbols"))" "${2//@/$(q "$tmp/all.data")}" | md5sum)
    b=$(sqlrun "SELECT perf_symbol_path(NULL, $(q "$fixtures/symbols"))" "${2//@/$(q "$fixtures/fp.data")}" | md5sum)
    check "all records come: $1 equals fp.data's" "$a" "$b"
}
same "perf_profile" "SELECT * FROM perf_profile(@) ORDER BY 1, 2, 3, 4"
same "the flame graph of perf_callchains' folded stacks" \
    "SELECT perf_flamegraph(stack) FROM (SELECT group_concat(coalesce(sym, '[unknown]'), ';') stack
     FROM (SELECT * FROM perf_callchains(@) ORDER BY sample, depth DESC) GROUP BY sample)"
same "perf_pprof" "SELECT hex(perf_pprof(@))"
check "all records come: no diagnostic about them" \
    "$(sqlrun "SELECT count(*) FROM perf_diagnostics($(q "$tmp/all.data")) WHERE kind LIKE '%deferred%' OR kind = 'unknown_record_type'")" "0"

# 4. the committed fixture: record $left_out left out, its samples kernel-only
stacks "$fixture" >"$tmp/fixture.stacks"
stacks "$fixtures/fp.data" >"$tmp/fp.stacks"
python3 - "$tmp/fixture.stacks" "$tmp/fp.stacks" "$waiting" <<'PY'
import sys
ours = open(sys.argv[1]).read().splitlines()
orig = open(sys.argv[2]).read().splitlines()
waiting = int(sys.argv[3])
diff = [(a, b) for a, b in zip(ours, orig) if a != b]
kernel_only = all(':user' not in a.split('\t')[2] and
                  a.split('\t')[2] == ' '.join(f for f in b.split('\t')[2].split() if f.endswith(':kernel'))
                  for a, b in diff)
ok = len(ours) == len(orig) and len(diff) == waiting and kernel_only
print(('ok' if ok else 'not ok') + ' - deferred.data: every stack is fp.data\'s but the %d whose record '
      'never came, which keep their kernel frames alone%s' % (waiting, '' if ok else
      ': %d of %d samples differ, kernel-only %s' % (len(diff), len(ours), kernel_only)))
PY
check "deferred.data: perf_diagnostics warns of the $waiting samples whose record never came" \
    "$(sqlrun "SELECT kind, severity, count, value, message LIKE '$waiting of $rewritten samples%'
               FROM perf_diagnostics($(q "$fixture")) WHERE kind LIKE '%deferred%'")" \
    "deferred_callchain_missing	warning	$waiting	$waiting	1"

check "deferred.data: perf_samples.callchain holds the kernel entries, no cookie (all under 0x1000000 here)" \
    "$(sqlrun "SELECT count(*) FROM perf_samples($(q "$fixture")) s, json_each(s.callchain) j
               WHERE j.value BETWEEN 0 AND 16777215;
               SELECT sum(json_array_length(callchain)) FROM perf_samples($(q "$fixture"))")" \
    "0
$(sqlrun "SELECT count(*) FROM perf_callchains($(q "$fixtures/fp.data")) WHERE cpumode = 'kernel'")"

# 5. perf 7's rule: a record answers the samples of its task before it when
# its cookie is theirs; a record of the task with another cookie (here the
# 3rd's cookie changed) leaves them kernel-only.  A record that does not
# decode (the 2nd's nr past its end) is a malformed record, its samples
# kernel-only too.
python3 - "$fixture" "$tmp/damaged.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
at, n = off, 0
while at < off + size:
    typ, misc, sz = struct.unpack_from('<IHH', b, at)
    if typ == 22:
        n += 1
        if n == 2:
            struct.pack_into('<Q', b, at + 16, 1 << 40)
        if n == 3:
            struct.pack_into('<Q', b, at + 8, 0xdead)
    at += sz
open(sys.argv[2], 'wb').write(b)
PY
# the samples each of those two records answered in the fixture
answered=$(python3 - "$fixture" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', b, 40)
at, n, cookies = off, 0, []
counts = {}
while at < off + size:
    typ, misc, sz = struct.unpack_from('<IHH', b, at)
    if typ == 9:
        nr, = struct.unpack_from('<Q', b, at + 8 + 8 * 4)   # IP, TID, TIME, PERIOD
        chain = struct.unpack_from('<%dQ' % nr, b, at + 48)
        if nr >= 2 and chain[-2] == (1 << 64) - 640:
            counts[chain[-1]] = counts.get(chain[-1], 0) + 1
    if typ == 22:
        n += 1
        if n in (2, 3):
            cookies.append(struct.unpack_from('<Q', b, at + 8)[0])
    at += sz
print(sum(counts[c] for c in cookies))
PY
)
check "damaged records: $((waiting + answered)) samples kernel-only, the malformed record counted" \
    "$(sqlrun "SELECT group_concat(kind || ':' || count, ' ') FROM (SELECT kind, count FROM perf_diagnostics($(q "$tmp/damaged.data"))
               WHERE kind IN ('deferred_callchain_missing', 'malformed_record') ORDER BY kind)")" \
    "deferred_callchain_missing:$((waiting + answered)) malformed_record:1"
check "damaged records: those samples have no user frame" \
    "$(sqlrun "SELECT count(*) FROM perf_samples($(q "$tmp/damaged.data")) s WHERE NOT EXISTS
               (SELECT 1 FROM perf_callchains($(q "$tmp/damaged.data")) c WHERE c.sample = s.record AND c.cpumode = 'user')")" \
    "$((waiting + answered))"

# 6. the big-endian copy
for query in "SELECT sample, depth, ip, cpumode, origin FROM perf_callchains(@) ORDER BY 1, 2" \
             "SELECT record, type, fields, pid, tid, time FROM perf_records(@) WHERE type = 22 ORDER BY 1" \
             "SELECT kind, count, value FROM perf_diagnostics(@) WHERE kind LIKE '%deferred%'"; do
    check "deferred_be.data: ${query%% FROM*} ... as deferred.data" \
        "$(sqlrun "${query//@/$(q "$dir/deferred_be.data")}" | md5sum)" "$(sqlrun "${query//@/$(q "$fixture")}" | md5sum)"
done
exit 0
