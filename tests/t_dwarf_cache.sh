#!/usr/bin/env bash
# The caches that make DWARF queries cheap after the first (issue 13, part 1):
# within one connection, each ELF file's debug info is opened once
# (src/unwind/debug_cache.c) and each sample's unwound stack is remembered
# (src/symbols/stack_memo.c).  Checked through perf_cache_stats()'s counters
# and the files libdwfl opens, never through timings:
#  - a second query in the same connection gives the same rows, unwinds no
#    sample and opens no file through libdwfl (strace);
#  - a new connection starts empty (the caches go with the connection);
#  - perf_symbol_path() changing between queries makes the stacks forgotten;
#  - the caches stay within their bounds.
# The sanitizer build of this test (PV_SQLRUN=build/san/sqlrun) also shows
# that closing the connection frees them: LeakSanitizer fails sqlrun else.
# The recording is made now (the unwinding reads the mapped binaries):
#   perf record -q --call-graph dwarf -F 499 -- sh -c 'ls -laR /usr/include ...'
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
export PV_SQLRUN=${PV_SQLRUN:-$root/build/sqlrun}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$tmp/dw.data
if ! timeout 60 perf record -q --call-graph dwarf -F 499 -o "$data" -- \
        sh -c 'for i in 1 2 3; do ls -laR /usr/include >/dev/null; gzip -c /usr/bin/perf >/dev/null; done' \
        >/dev/null 2>"$tmp/record.err" || [ ! -s "$data" ]; then
    echo "ok - DWARF caches # SKIP perf record --call-graph dwarf failed: $(oneline "$tmp/record.err")"
    exit 0
fi
f=$(sql_quote "$data")
rows="SELECT sample, depth, ip, sym, dso, inlined FROM perf_callchains($f);"
stats="SELECT perf_cache_stats();"
field() {  # json path
    python3 -c 'import json, sys; v = json.loads(sys.argv[1])
for k in sys.argv[2].split("."): v = v[k]
print(json.dumps(v))' "$1" "$2"
}

# Three statements in one connection: the rows, the counters, the rows
# again, the counters again.
sqlrun "$rows" >"$tmp/first.txt" || true
sqlrun "$rows $stats $rows $stats" >"$tmp/both.txt" 2>&1
status=$?
n=$(wc -l <"$tmp/first.txt")
head -n "$n" "$tmp/both.txt" >"$tmp/q1.txt"
sed -n "$((n + 1))p" "$tmp/both.txt" >"$tmp/stats1.json"
sed -n "$((n + 2)),$((2 * n + 1))p" "$tmp/both.txt" >"$tmp/q2.txt"
sed -n "$((2 * n + 2))p" "$tmp/both.txt" >"$tmp/stats2.json"
lines=$(wc -l <"$tmp/both.txt")
check "DWARF caches: the queries run, nothing more is printed (no sanitizer report)" \
    "$status $lines" "0 $((2 * n + 2))"
samples=$(sqlrun "SELECT count(DISTINCT sample) FROM perf_callchains($f) WHERE cpumode = 'user';")
if [ "$n" -lt 100 ] || [ "${samples:-0}" -lt 20 ]; then
    not_ok "DWARF caches: a recording with stacks" "$n rows, $samples samples with user frames"
    exit 0
fi
if cmp -s "$tmp/first.txt" "$tmp/q1.txt" && cmp -s "$tmp/q1.txt" "$tmp/q2.txt"; then
    ok "DWARF caches: the second query in a connection gives the first's $n rows, byte for byte"
else
    not_ok "DWARF caches: the second query gives the first's rows" \
        "$(diff "$tmp/q1.txt" "$tmp/q2.txt" | head -c 300 | tr '\n\t' '  ')"
fi

s1=$(cat "$tmp/stats1.json")
s2=$(cat "$tmp/stats2.json")
stored=$(field "$s1" stacks.stacks)
misses1=$(field "$s1" stacks.misses)
hits1=$(field "$s1" stacks.hits)
check "DWARF caches: the first query unwinds each DWARF sample once and remembers it" \
    "$hits1 $misses1" "0 $stored"
[ "$stored" -gt 0 ] || not_ok "DWARF caches: stacks remembered" "$s1"
check "DWARF caches: the second query unwinds nothing, every stack remembered" \
    "$(field "$s2" stacks.hits) $(field "$s2" stacks.misses)" "$stored $misses1"
check "DWARF caches: the second query opens no debug info" \
    "$(field "$s2" debug_files.opened)" "$(field "$s1" debug_files.opened)"
opened=$(field "$s1" debug_files.opened)
if [ "$opened" -gt 0 ]; then
    ok "DWARF caches: the first query opened the debug info of $opened files"
else
    echo "ok - DWARF caches # SKIP input absent: no file with debug info in the stacks (libc6-dbg, which install-deps.sh installs)"
fi
check "DWARF caches: within their bounds" \
    "$(python3 -c 'import json, sys; s = json.loads(sys.argv[1])
d, k = s["debug_files"], s["stacks"]
print(d["open"] <= d["max"] and k["bytes"] <= k["max_bytes"] and not k["full"])' "$s2")" "True"

# A new connection starts with empty caches.
fresh=$(sqlrun "$stats")
check "DWARF caches: a new connection starts empty" \
    "$(field "$fresh" stacks.stacks) $(field "$fresh" debug_files.opened)" "0 0"

# Another symbol path: the stacks may differ, so they are forgotten (the
# rows stay the same here: / as the sysroot finds the same files).
sqlrun "$rows SELECT perf_symbol_path('/'); $rows SELECT perf_symbol_path(NULL); $stats" \
    >"$tmp/paths.txt"
check "DWARF caches: another perf_symbol_path() forgets the stacks, and the rows stay" \
    "$(field "$(tail -n 1 "$tmp/paths.txt")" stacks.forgotten) $(sed -n "$((n + 2)),$((2 * n + 1))p" "$tmp/paths.txt" | cmp -s - "$tmp/q1.txt" && echo same)" \
    "1 same"

# libdwfl opens files without O_CLOEXEC (perfvtab's own opens have it): the
# second query must add none of those opens.
if ! command -v strace >/dev/null; then
    echo "ok - DWARF caches # SKIP strace is not installed"
else
    count="SELECT count(*) FROM perf_callchains($f);"
    libdwfl_opens() {
        timeout 120 strace -f -e trace=openat -o "$tmp/strace.txt" "$PV_SQLRUN" "$@" >/dev/null 2>&1
        grep -v ENOENT "$tmp/strace.txt" | grep -c 'O_RDONLY)'
    }
    once=$(libdwfl_opens "$count")
    twice=$(libdwfl_opens "$count $count")
    if [ "$once" -gt 0 ] && [ "$once" = "$twice" ]; then
        ok "DWARF caches: libdwfl opens $once files for one query, none more for a second (strace)"
    else
        not_ok "DWARF caches: no libdwfl opens in a second query (strace)" \
            "$once for one query, $twice for two"
    fi
fi
