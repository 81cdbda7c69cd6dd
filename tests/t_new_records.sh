#!/usr/bin/env bash
# The records and header features perf added after 6.1, which the perf
# installed here (6.1) can neither record nor read: BPF_METADATA (84),
# SCHEDSTAT_CPU (85) and SCHEDSTAT_DOMAIN (86) of schedstat versions 15-17,
# CPU_DOMAIN_INFO (32), E_MACHINE (33), CLN_SIZE (34).
#
# The fixtures of tests/fixtures/perf7/ are perf 6.1 recordings with those
# bytes added by tests/tools/make_perf7_fixtures.py, which also writes
# expected.json from the values it wrote: the expectation comes from the
# bytes and the layouts (perf's event.h, schedstat-v1[567].h, header.c),
# not from perf, which stops at the first record of type 84 ("failed to
# process type").  What perf 6.1 can read is still compared with perf:
#  1. the generator makes the committed fixtures again, byte for byte;
#  2. every added record's name and fields, and every added feature's value,
#     equal expected.json, in the little-endian file and its big-endian copy;
#  3. the records perf7.data shares with buildid_mmap.data give perf's rows
#     for buildid_mmap.data (tests/expected/perf_oracle/buildid_mmap/), and
#     perf 6.1 reads the header of perf7.data as that of buildid_mmap.data
#     (perf report --header-only -I, live; the lines that must differ aside);
#  4. no diagnostic on perf7.data: nothing is unknown;
#  5. E_MACHINE gives the architecture where the arch feature is missing:
#     dwarf_e_machine.data (no arch, E_MACHINE x86_64) unwinds dwarf.data's
#     frames; a copy whose E_MACHINE says aarch64 unwinds none, so the
#     feature is what decides;
#  6. an unknown record type's diagnostic names the release that added the
#     type, where it is known.
#
# Env: PV_ROOT, PV_SQLRUN.  Output: ok / not ok lines.
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
dir=$root/tests/fixtures/perf7
gen=$root/tests/tools/make_perf7_fixtures.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v python3 >/dev/null 2>&1; then
    echo "ok - perf 7 records and features # SKIP python3 not found"
    exit 0
fi

# 1. the generator reproduces the fixtures
if python3 "$gen" "$tmp/regen" >"$tmp/gen.out" 2>&1; then
    for f in perf7.data big_endian/perf7.data dwarf_e_machine.data expected.json; do
        if cmp -s "$tmp/regen/$f" "$dir/$f"; then
            ok "make_perf7_fixtures.py reproduces perf7/$f"
        else
            not_ok "make_perf7_fixtures.py reproduces perf7/$f" "the bytes differ"
        fi
    done
else
    not_ok "make_perf7_fixtures.py runs" "$(head -c 300 "$tmp/gen.out")"
fi

# 2. every added record and feature, both byte orders
for file in "$dir/perf7.data" "$dir/big_endian/perf7.data"; do
    label=perf7/${file#"$dir"/}
    f=$(sql_quote "$file")
    if ! "$sqlrun" "SELECT name, fields FROM perf_records($f) WHERE type >= 84 ORDER BY record" \
        >"$tmp/records" 2>"$tmp/err" ||
        ! "$sqlrun" "SELECT name, value FROM perf_features($f) WHERE id BETWEEN 32 AND 34 ORDER BY id" \
        >"$tmp/features" 2>>"$tmp/err"; then
        not_ok "$label: added records and features" "$(head -c 300 "$tmp/err")"
        continue
    fi
    python3 - "$dir/expected.json" "$tmp/records" "$tmp/features" "$label" <<'EOF'
import json, sys
expected = json.load(open(sys.argv[1]))
label = sys.argv[4]
got = [line.rstrip('\n').split('\t', 1) for line in open(sys.argv[2])]
want = expected['records']
if len(got) != len(want):
    print('not ok - %s: added records: %d rows, expected %d' % (label, len(got), len(want)))
else:
    for i, ((name, fields), w) in enumerate(zip(got, want)):
        what = '%s: added record %d (%s, %d fields)' % (label, i, w['name'], len(w['fields']))
        f = json.loads(fields)
        if name == w['name'] and f == w['fields']:
            print('ok - %s equal the bytes written' % what)
        else:
            bad = [k for k in w['fields'] if f.get(k) != w['fields'][k]] + \
                  [k for k in f if k not in w['fields']]
            print('not ok - %s: name %s, fields differ at %s' % (what, name, bad[:5]))
feats = {}
for line in open(sys.argv[3]):
    name, value = line.rstrip('\n').split('\t', 1)
    feats[name] = json.loads(value)
for name, value in expected['features'].items():
    if feats.get(name) == value:
        print('ok - %s: feature %s equals the bytes written' % (label, name))
    else:
        print('not ok - %s: feature %s: got %r, expected %r' % (label, name, feats.get(name), value))
EOF
done

# 3. what perf 6.1 reads: the shared records as perf printed them for
# buildid_mmap.data, and the header
exp=$root/tests/expected/perf_oracle/buildid_mmap
f=$(sql_quote "$dir/perf7.data")
check_same() {  # what expected sql
    if "$sqlrun" "$3" >"$tmp/act" 2>"$tmp/err" && cmp -s "$2" "$tmp/act"; then
        ok "perf7/perf7.data: $1 as perf 6.1 printed them for buildid_mmap.data"
    else
        not_ok "perf7/perf7.data: $1 as perf 6.1 printed them for buildid_mmap.data" \
            "$(head -c 200 "$tmp/err")$(diff "$2" "$tmp/act" | head -n 3 | cut -c1-150 | tr '\n' ' ')"
    fi
}
awk -F'\t' -v OFS='\t' '{ print $4, $1, $2, $3, $5, $6, $7, $8 }' "$exp/samples.tsv" >"$tmp/samples.tsv"
check_same samples "$tmp/samples.tsv" \
    "SELECT comm, time, pid, tid, cpu, ip, period, json(callchain) FROM perf_samples($f) ORDER BY record"
check_same mmaps "$exp/mmaps.tsv" \
    "SELECT pid, tid, start, len, pgoff, filename, time, cpu FROM perf_mmaps($f) ORDER BY record"
check_same comms "$exp/comms.tsv" \
    "SELECT pid, tid, comm, time, cpu FROM perf_comms($f) ORDER BY record"
# perf report --stats' counts, plus the 8 added records
awk -F'\t' -v OFS='\t' '{ print }' "$exp/stats.tsv" >"$tmp/stats.tsv"
printf 'BPF_METADATA\t2\nSCHEDSTAT_CPU\t3\nSCHEDSTAT_DOMAIN\t3\n' >>"$tmp/stats.tsv"
sort -o "$tmp/stats.tsv" "$tmp/stats.tsv"
check_same "record counts (perf report --stats, and the 8 added)" "$tmp/stats.tsv" \
    "SELECT name, count(*) FROM perf_records($f) GROUP BY name ORDER BY name"

if command -v perf >/dev/null 2>&1; then
    header() {  # the header lines that do not depend on the data section's size
        (cd "$tmp" && timeout 60 perf report --header-only -I -i "$1" 2>&1) |
            grep -v -e '^# captured on' -e '^# data size' -e '^# feat offset'
    }
    header "$root/tests/fixtures/buildid_mmap.data" >"$tmp/h0"
    header "$dir/perf7.data" >"$tmp/h7"
    if [ -s "$tmp/h0" ] && cmp -s "$tmp/h0" "$tmp/h7"; then
        ok "perf7/perf7.data: perf 6.1 reads its header as buildid_mmap.data's ($(wc -l <"$tmp/h7") lines)"
    else
        not_ok "perf7/perf7.data: perf 6.1 reads its header as buildid_mmap.data's" \
            "$(diff "$tmp/h0" "$tmp/h7" | head -n 4 | tr '\n' ' ')"
    fi
else
    echo "ok - perf7/perf7.data: perf 6.1 reads its header # SKIP perf not found"
fi

# 4. nothing unknown, nothing damaged
got=$("$sqlrun" "SELECT count(*) FROM perf_diagnostics($f)" 2>&1)
check "perf7/perf7.data: no diagnostic (every record and feature decoded)" "$got" 0

# 5. E_MACHINE instead of the missing arch feature
dwarf_frames() {
    "$sqlrun" "SELECT count(*) FROM perf_callchains($(sql_quote "$1")) WHERE origin = 'dwarf'" 2>&1
}
want=$(dwarf_frames "$root/tests/fixtures/dwarf.data")
e=$dir/dwarf_e_machine.data
got=$("$sqlrun" "SELECT (SELECT count(*) FROM perf_features($(sql_quote "$e")) WHERE name = 'arch') || ' ' || (SELECT value ->> 'arch' FROM perf_features($(sql_quote "$e")) WHERE name = 'e_machine')" 2>&1)
check "perf7/dwarf_e_machine.data: no arch feature; E_MACHINE names x86_64" "$got" "0 x86_64"
got=$("$sqlrun" "SELECT value FROM perf_features($(sql_quote "$e")) WHERE name = 'cpu_domain_info'" 2>&1)
if python3 -c 'import json, sys; sys.exit(json.loads(sys.argv[1]) != json.load(open(sys.argv[2]))["features_dwarf_e_machine"]["cpu_domain_info"])' "$got" "$dir/expected.json" 2>/dev/null; then
    ok "perf7/dwarf_e_machine.data: cpu_domain_info of schedstat 16 (domains without names) equals the bytes written"
else
    not_ok "perf7/dwarf_e_machine.data: cpu_domain_info of schedstat 16" "got '$got'"
fi
got=$(dwarf_frames "$e")
if [ "${want:-0}" -gt 0 ] 2>/dev/null && [ "$got" = "$want" ]; then
    ok "perf7/dwarf_e_machine.data: E_MACHINE x86_64 unwinds dwarf.data's $want frames"
else
    not_ok "perf7/dwarf_e_machine.data: unwinds dwarf.data's frames" "got '$got', dwarf.data '$want'"
fi
cp "$e" "$tmp/aarch64.data"
at=$("$sqlrun" "SELECT offset FROM perf_features($(sql_quote "$e")) WHERE name = 'e_machine'")
printf '\267\000\000\000' | dd of="$tmp/aarch64.data" bs=1 seek="$at" conv=notrunc status=none  # 183 EM_AARCH64
got=$(dwarf_frames "$tmp/aarch64.data")
check "perf7/dwarf_e_machine.data with E_MACHINE aarch64: the x86_64 stacks do not unwind as arm64" "$got" 0

# 6. an unknown type: a copy of perf7.data whose first COMM is of type 87
# (which nothing is known to use).  Every type with a known release is
# decoded now, so the release-naming path is test_perf7_records' to check.
comm_at=$("$sqlrun" "SELECT min(file_offset) FROM perf_records($f) WHERE name = 'COMM'")
for type in 87; do
    cp "$dir/perf7.data" "$tmp/t$type.data"
    printf "$(printf '\\%03o' "$type")" | dd of="$tmp/t$type.data" bs=1 seek="$comm_at" conv=notrunc status=none
    got=$("$sqlrun" "SELECT (SELECT count(*) FROM perf_records($(sql_quote "$tmp/t$type.data")) WHERE type = $type AND name IS NULL) || '|' || message FROM perf_diagnostics($(sql_quote "$tmp/t$type.data")) WHERE kind = 'unknown_record_type'" 2>&1)
    case $type:$got in
    87:1\|*"records of type 87, which this reader does not know"*)
        ok "unknown_record_type: type 87, which nothing is known to use, named by number only" ;;
    *) not_ok "unknown_record_type: type $type" "got '$got'" ;;
    esac
done

# 7. a pipe's features end with an empty HEADER_FEATURE record whose id is
# perf's HEADER_LAST_FEATURE: 32 up to perf 6.19 (tracepoint_pipe.data's),
# 34 or 35 from perf 7.0 on, where 32 to 34 are real features.  The copy
# with a perf 7 marker has the original's features and diagnostics.
pipe=$root/tests/fixtures/tracepoint_pipe.data
features_and_diagnostics() {
    "$sqlrun" "SELECT group_concat(id || ':' || name || ':' || size, ' ') FROM perf_features($(sql_quote "$1"))" 2>&1
    "$sqlrun" "SELECT count(*) FROM perf_diagnostics($(sql_quote "$1"))" 2>&1
}
marker_at=$("$sqlrun" "SELECT file_offset FROM perf_records($(sql_quote "$pipe")) WHERE name = 'FEATURE' AND size = 16 AND fields ->> 'feat_id' = 32")
want=$(features_and_diagnostics "$pipe")
for id in 34 35; do
    cp "$pipe" "$tmp/pipe$id.data"
    printf "$(printf '\\%03o' "$id")" | dd of="$tmp/pipe$id.data" bs=1 seek=$((marker_at + 8)) conv=notrunc status=none
    got=$(features_and_diagnostics "$tmp/pipe$id.data")
    marker=$("$sqlrun" "SELECT fields ->> 'feat_id' FROM perf_records($(sql_quote "$tmp/pipe$id.data")) WHERE file_offset = $marker_at" 2>&1)
    if [ -n "$marker_at" ] && [ "$marker" = "$id" ] && [ "$got" = "$want" ]; then
        ok "tracepoint_pipe.data with perf 7's end-of-features marker $id: the same features, no diagnostic more"
    else
        not_ok "tracepoint_pipe.data with end-of-features marker $id" "marker '$marker', got '$got', want '$want'"
    fi
done

# 8. sql/overview.sql shows the architecture E_MACHINE gives where the arch
# feature is missing, saying so (the sqlite3 shell with the plain build's
# extension: the query text is what is tested)
so=$root/build/perfvtab
if command -v sqlite3 >/dev/null 2>&1 && [ -f "$so.so" ]; then
    for pair in "dwarf_e_machine.data|arch|x86_64 (from e_machine)" "perf7.data|arch|x86_64"; do
        file=${pair%%|*}
        want=${pair#*|}
        got=$(sqlite3 -cmd ".load $so" -cmd ".param set @file '$dir/$file'" :memory: \
            ".read $root/sql/overview.sql" 2>&1 | grep '^arch|')
        check "sql/overview.sql on perf7/$file: $want" "$got" "$want"
    done
else
    echo "ok - sql/overview.sql shows E_MACHINE's arch # SKIP sqlite3 or $so.so not found"
fi
