#!/usr/bin/env bash
# sqlite3_interrupt and the progress handler stop every long operation of
# the extension soon (tests/tools/interrupt_probe.c): each query below runs
# once to its end, then twice more, stopped (by sqlite3_interrupt, and by a
# progress handler that starts returning 1) once it has read an eighth of
# what the whole query reads.  It must fail with SQLITE_INTERRUPT (stopped
# by SQLite between rows, or by the extension inside one call, "...:
# interrupted"), having read at most 1 MiB more (four of
# the 256 KiB windows the reader reads files in) after the stop.  Bytes read
# (rchar), not seconds: the check does not depend on the machine's speed.
# A pattern over directories reads no file: there the stop is asked in the
# argument that starts the walk, and the walk must see it.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
so=$PV_BUILD/perfvtab.so
probe=$PV_BUILD/tools/interrupt_probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PV_BUILD/tools/make_variants" inflate tests/fixtures/example.data "$tmp/big.data" 400 &&
    "$PV_BUILD/tools/make_variants" inflate tests/fixtures/dwarf.data "$tmp/dwarf.data" 100 &&
    "$PV_BUILD/tools/make_variants" inflate tests/fixtures/deferred/deferred.data "$tmp/deferred.data" 400 ||
    { not_ok "interrupts" "make_variants inflate failed"; exit 0; }
big=$tmp/big.data
# perf_profile splits the 29 MB file into parts of 4 MB or more, one a
# thread (analysis/profile_parallel.h), where perf_threads lets it: this
# thread asks the stop and stops the others
export PERFVTAB_PROFILE_PART_MIN=$((4 << 20))
syms="SELECT perf_symbol_path(NULL, '$PV_ROOT/tests/fixtures/symbols');"
queries=(
    "scan|SELECT count(*), sum(period) FROM perf_samples('$big')"
    "grouped scan|SELECT dso, count(*) FROM perf_samples('$big') GROUP BY dso"
    "perf_profile|SELECT perf_threads(1); SELECT count(*) FROM perf_profile('$big')"
    "perf_profile on threads|SELECT perf_threads(2); SELECT count(*), sum(children_period) FROM perf_profile('$big')"
    "perf_profile's flat pass on threads|SELECT perf_threads(2); SELECT count(*), sum(period) FROM perf_profile('$big')"
    "time index|SELECT count(*) FROM perf_samples('$big') WHERE time BETWEEN 0 AND 10"
    "perf_pprof|$syms SELECT length(perf_pprof('$big'))"
    "flame graph|SELECT length(perf_flamegraph(stack, n)) FROM (SELECT perf_folded(perf_frame_name(sym, dso, ip), depth) AS stack, 1 AS n FROM perf_callchains('$big') GROUP BY sample)"
    "perf_folded_stacks|SELECT count(*) FROM perf_folded_stacks('$big')"
    "perf_folded_stacks, DWARF|$syms SELECT count(*) FROM perf_folded_stacks('$tmp/dwarf.data')"
    "DWARF unwinding|$syms SELECT count(sym) FROM perf_callchains('$tmp/dwarf.data')"
    "deferred callchains' index|SELECT count(*) FROM perf_callchains('$tmp/deferred.data') WHERE origin = 'deferred'"
)
max_after=$((1 << 20))
for entry in "${queries[@]}"; do
    what=${entry%%|*}
    sql=${entry#*|}
    read -r rc total _ <<<"$(timeout 300 "$probe" "$so" none 0 "$sql")"
    total=${total#read=}
    if [ "$rc" != rc=0 ] || [ -z "$total" ] || [ "$total" -lt $((8 << 20)) ]; then
        not_ok "$what: the whole query" "$rc read=$total: want rc=0 and at least 8 MiB read"
        continue
    fi
    # split over 2 threads: each may read the 4 windows (1 MiB) it was
    # granted before the stop was seen, besides what one thread may
    limit=$max_after
    [[ $what == *threads ]] && limit=$((3 * max_after))
    for way in interrupt progress; do
        out=$(timeout 300 "$probe" "$so" $way $((total / 8)) "$sql")
        read -r rc read after message <<<"$out"
        after=${after#after=}
        if [ "$rc" = rc=9 ] && [[ $message == *interrupted ]] && [ "${after:-$limit}" -le $limit ]; then
            ok "$what: stopped by $way after an eighth of its $total bytes, with $after more read"
        else
            not_ok "$what: stopped by $way" "$out (want rc=9, 'interrupted', at most $limit bytes after)"
        fi
    done
done
# a pattern over a directory tree: 8 * 8 * 8 directories
for a in 1 2 3 4 5 6 7 8; do for b in 1 2 3 4 5 6 7 8; do
    mkdir -p "$tmp/tree/$a/$b/1" "$tmp/tree/$a/$b/2" "$tmp/tree/$a/$b/3" "$tmp/tree/$a/$b/4" \
             "$tmp/tree/$a/$b/5" "$tmp/tree/$a/$b/6" "$tmp/tree/$a/$b/7" "$tmp/tree/$a/$b/8"
done; done
for way in interrupt progress; do
    out=$(timeout 60 "$probe" "$so" function 0 \
          "SELECT count(*) FROM perf_samples(stop_by_$way('$tmp/tree/*/*/*/*.data'))")
    check "a pattern walking a directory tree stops when the statement is stopped by $way" \
        "$(cut -d" " -f1 <<<"$out") ${out##* }" "rc=9 interrupted"
    [[ $out == *"$tmp/tree/*/*/*/*.data: interrupted" ]] ||
        not_ok "a pattern walking a directory tree: the walk itself stops" "$out"
done
