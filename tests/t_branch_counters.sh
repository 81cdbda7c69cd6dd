#!/usr/bin/env bash
# PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8): a u64 of event counts per branch
# entry, after the entries.  No machine here logs events in the LBR, so the
# fixture is fp.data made an LBR recording and given counters by
# tests/tools/add_branch_counters.py (tests/fixtures/branch_counters/README.md).
#  - perf 6.1 reads the file's branch entries (it warns of the unknown
#    branch_sample_type bit and skips the counters): every entry's from and
#    to in perf_samples.branch_stack equal perf script -F brstack's;
#  - each entry's counters, an integer in its JSON object, are the
#    generator's (n * 0x10000 + k + 1 for entry k of the n-th stack; its
#    printed totals);
#  - the counters change no frame: perf_callchains equals the file's
#    without them; a file without the bit has no counters key;
#  - the big-endian copy gives the same rows.
# Env: PV_ROOT, PV_SQLRUN.  Output: "ok - ..." / "not ok - ..." lines.
. "$(dirname "$0")/lib/common.sh"
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$root/build/sqlrun}
fixtures=$root/tests/fixtures
dir=$fixtures/branch_counters
fixture=$dir/branch_counters.data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q() { sql_quote "$1"; }

if ! command -v python3 >/dev/null; then
    echo "not ok - branch counters: python3 is needed to remake the fixture"
    exit 0
fi

# 1. the generators remake the committed fixtures byte for byte
out=$(cd "$tmp" && mkdir -p tests/fixtures/branch_counters && cp "$fixtures/fp.data" tests/fixtures/ &&
      ln -s "$root/tests/tools" tests/tools && bash "$dir/make.sh" 2>/dev/null)
read -r samples entries total <<<"$(printf '%s\n' "$out" | sed -n 2p)"
if cmp -s "$tmp/tests/fixtures/branch_counters/branch_counters.data" "$fixture" &&
    cmp -s "$tmp/tests/fixtures/branch_counters/branch_counters_be.data" "$dir/branch_counters_be.data"; then
    ok "branch_counters/make.sh remakes both fixtures byte for byte ($samples samples, $entries entries)"
else
    not_ok "branch_counters/make.sh remakes the fixtures" "they differ: $(printf '%s' "$out" | tr '\n' ' ')"
fi

# 2. the counters, as the generator wrote them
check "every entry has its counters: count, sum as the generator printed" \
    "$(sqlrun "SELECT count(DISTINCT s.record), count(*), sum(json_extract(b.value, '\$.counters'))
               FROM perf_samples($(q "$fixture")) s, json_each(s.branch_stack) b")" \
    "$samples	$entries	$total"
check "entry k of the n-th stack (file order) has n * 0x10000 + k + 1" \
    "$(sqlrun "SELECT count(*) FROM (SELECT row_number() OVER (ORDER BY record) - 1 n, branch_stack
               FROM perf_samples($(q "$fixture"))) s, json_each(s.branch_stack) b
               WHERE json_extract(b.value, '\$.counters') <> s.n * 65536 + b.key + 1")" "0"
check "counters is an integer" \
    "$(sqlrun "SELECT DISTINCT json_type(b.value, '\$.counters') FROM perf_samples($(q "$fixture")) s, json_each(s.branch_stack) b")" \
    "integer"

# 3. perf 6.1 is the oracle for the entries
if command -v perf >/dev/null; then
    perf script -i "$fixture" -F brstack 2>"$tmp/perf.err" |
        sed 's/^ *//; s/ *$//' >"$tmp/perf.txt"
    sqlrun "SELECT (SELECT group_concat(printf('0x%x/0x%x/-/-/-/0/', json_extract(b.value, '\$.from'),
                    json_extract(b.value, '\$.to')), '  ') FROM json_each(s.branch_stack) b)
            FROM perf_samples($(q "$fixture")) s ORDER BY time, record" >"$tmp/ours.txt"
    if [ -s "$tmp/perf.txt" ] && cmp -s "$tmp/perf.txt" "$tmp/ours.txt"; then
        ok "every entry's from and to equal perf script -F brstack's ($(wc -l <"$tmp/perf.txt") samples)"
    else
        not_ok "entries against perf script -F brstack" "$(diff "$tmp/perf.txt" "$tmp/ours.txt" | head -c 300)"
    fi
    if grep -q "Unknown branch sample type" "$tmp/perf.err"; then
        ok "perf 6.1 does not know the COUNTERS bit (it warns, and skips the counters)"
    else
        not_ok "perf 6.1's warning" "$(oneline "$tmp/perf.err")"
    fi
else
    echo "ok - entries against perf script -F brstack # SKIP perf is not installed"
fi

# 4. no frame changes; without the bit, no counters key
python3 "$root/tests/tools/fp_to_lbr.py" --depth 8 "$fixtures/fp.data" "$tmp/lbr8.data" >/dev/null
frames='SELECT sample, depth, ip, cpumode, origin FROM perf_callchains(@) ORDER BY 1, 2'
check "perf_callchains: the same frames as the file without counters" \
    "$(sqlrun "${frames//@/$(q "$fixture")}" | md5sum)" "$(sqlrun "${frames//@/$(q "$tmp/lbr8.data")}" | md5sum)"
check "a branch stack recorded without COUNTERS has no counters key" \
    "$(sqlrun "SELECT count(*) FROM perf_samples($(q "$tmp/lbr8.data")) s, json_each(s.branch_stack) b
               WHERE json_type(b.value, '\$.counters') IS NOT NULL")" "0"

# 5. the big-endian copy
for query in "SELECT record, branch_stack, branch_hw_idx FROM perf_samples(@) ORDER BY 1" "$frames"; do
    check "branch_counters_be.data: ${query%% FROM*} ... as branch_counters.data" \
        "$(sqlrun "${query//@/$(q "$dir/branch_counters_be.data")}" | md5sum)" "$(sqlrun "${query//@/$(q "$fixture")}" | md5sum)"
done
exit 0
