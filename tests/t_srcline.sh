#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# srcfile and srcline (perf_samples, perf_callchains) as perf shows srcline,
# live: tests/fixtures/srcline/hot_lines.c is built here with -g at -O2 (frame
# pointers) and -O0, and each build recorded with -g and with --call-graph
# dwarf.  tests/oracle/srcline_vs_perf.py compares every sample and every frame with
# perf script -F srcline, sql/srcline_profile.sql with perf report --sort
# srcline and sql/annotate.sql with perf annotate -l.
#
# What perf 6.1 does, and perfvtab with it:
#   - the sample's ip is looked up as it is;
#   - a frame-pointer callchain's callers are return addresses, looked up as
#     they are: a caller's line is the line the call returns to (libc's
#     __libc_start_call_main shows libc_start_call_main.h:74, the exit after
#     main returns, not :58, the call);
#   - a --call-graph dwarf frame's caller is its return address less one (the
#     unwinder's), so it gets the call's line; its inline frames get, the
#     innermost, the address's line, each outer one the line it called the
#     inner one from (DW_AT_call_line: hot_a at line 21 of hot_lines.c, where
#     mix is called);
#   - no line info (??:0, the kernel without vmlinux, a dso without debug
#     info) is NULL.
# perf annotate -l leaves out of its summary the instructions with 0.5% of
# the function or less: sql/annotate.sql gives every line (percent) and
# perf's figure beside it (perf_percent), compared here.
# Where perf is wrong: perf 6.1 asks binutils' addr2line, which names the
# compile unit's own file instead of the line table's for DWARF 5 rows that
# keep the file register's first value (libc's __libc_start_call_main:
# libc-start.c:58 where the table says libc_start_call_main.h:58).  The
# comparison proves each such row from binutils' own dump of the table
# (objdump --dwarf=decodedline) and counts it apart.
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
export PV_SQLRUN=$sqlrun
compare=$root/tests/oracle/srcline_vs_perf.py
source_file=$root/tests/fixtures/srcline/hot_lines.c

for tool in gcc perf objdump; do
    if ! command -v $tool >/dev/null; then
        echo "ok - srcline # SKIP no $tool"
        exit 0
    fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

for opt in O2 O0; do
    flags=(-g "-$opt")
    [ $opt = O2 ] && flags+=(-fno-omit-frame-pointer)
    rounds=300
    [ $opt = O0 ] && rounds=150
    binary=$tmp/hot_$opt
    if ! gcc "${flags[@]}" -o "$binary" "$source_file" >"$tmp/gcc.log" 2>&1; then
        not_ok "srcline: gcc ${flags[*]}" "$(oneline "$tmp/gcc.log")"
        status=1
        continue
    fi
    for callgraph in fp dwarf; do
        name="srcline $opt ($callgraph)"
        data=$tmp/${opt}_$callgraph.data
        cg=(-g)
        [ $callgraph = dwarf ] && cg=(--call-graph dwarf,8192)
        if ! timeout 20 perf record -q "${cg[@]}" -F 999 -o "$data" -- "$binary" $rounds \
                >"$tmp/record.log" 2>&1; then
            not_ok "$name: perf record" "$(oneline "$tmp/record.log")"
            status=1
            continue
        fi
        if [[ $sqlrun == */san/* ]]; then
            # perf's side is the plain flavour's (perf script -F srcline asks
            # addr2line for each address: most of this test's time); under
            # the sanitizers, the reads that comparison makes, ours alone
            q=$(sql_quote "$data")
            if out=$("$sqlrun" "SELECT count(*), count(srcline) FROM perf_samples($q)" \
                         "SELECT count(*), count(srcline) FROM perf_callchains($q)" \
                         "$(sed "s|@file|$q|g; s|@event|NULL|g" "$root/sql/srcline_profile.sql")" \
                         "$(sed "s|@file|$q|g; s|@sym|'hot_a'|g" "$root/sql/annotate.sql")" 2>&1) &&
               ! grep -q "Sanitizer\|runtime error\|^Error" <<<"$out"; then
                ok "$name: the samples' and frames' lines, srcline_profile.sql and annotate.sql read under the sanitizers (perf compares them in the plain flavour)"
            else
                not_ok "$name: lines under the sanitizers" "$(head -c 300 <<<"$out")"
                status=1
            fi
        else
            python3 "$compare" "$sqlrun" "$root" "$name" "$data" --frames --sym hot_a --sym hot_b ||
                status=1
        fi
    done
    # the lines are the program's: the hot functions' loops, never NULL there
    data=$tmp/${opt}_fp.data
    [ -f "$data" ] || continue
    nulls=$("$sqlrun" "SELECT count(*) FROM perf_samples($(sql_quote "$data"))
                       WHERE sym IN ('hot_a', 'hot_b') AND srcline IS NULL")
    check "srcline $opt: no sample in hot_a or hot_b lacks its line" "$nulls" 0
    files=$("$sqlrun" "SELECT DISTINCT srcfile FROM perf_samples($(sql_quote "$data"))
                       WHERE sym IN ('hot_a', 'hot_b')")
    check "srcline $opt: srcfile is the path the debug info has" "$files" "$source_file"
    # lazily and once per connection: a query not reading the lines opens no
    # debug info; a second query reading them opens no file again
    q="SELECT count(srcline) FROM perf_callchains($(sql_quote "$data"))"
    opened="SELECT json_extract(perf_cache_stats(), '\$.debug_files.opened')"
    got=$("$sqlrun" "SELECT count(sym) FROM perf_callchains($(sql_quote "$data"))" "$opened" \
              "$q" "$opened" "$q" "$opened" | tr '\n' ' ')
    read -r _ before _ first _ second <<<"$got"
    if [ "$before" = 0 ] && [ "${first:-0}" -gt 0 ] && [ "$second" = "$first" ]; then
        ok "srcline $opt: debug files opened: 0 without srcline, $first for the first query, none more for the second"
    else
        not_ok "srcline $opt: debug info read lazily, once per connection" "counts and opened: $got"
    fi
done
exit $status
