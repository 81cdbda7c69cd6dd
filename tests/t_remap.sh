#!/usr/bin/env bash
# One address, different files over time (tests/symbols/remap.c): munmap and
# mmap of another file at the same address, a forked child mapping another
# file where its parent keeps the first, an exec then both again.  Every
# sample's and frame's symbol and dso must be perf's: an answer remembered
# for an address (the symbol cache) must not outlive the map it came from.
# First, with no live recording: maps that overlap (rewritten copies of
# example.data), the later one winning where they do.
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# --- Maps that overlap, with no live recording: where two live maps overlap,
# the later one wins (perf splits the older one around it); a map covered
# whole by a later one ends.  Copies of example.data whose later MMAP2
# records of the workload's process are rewritten (tests/tools/overlap_map.py:
# another name, another range, relative to the workload's text map W; its
# hot code is at W + 0x21e..0x299):
#   upper:  libc's record maps /overlap/later.so over W + 0x250 .. W's end +
#           0x250: half the samples in the later map, half in W's rest;
#   below:  libc's record maps /overlap/later.so from below W to W + 0x257,
#           a sampled address: the samples there are W's, those below the
#           later map's;
#   inside: the same from W + 0x100 to W + 0x257, inside W: the samples at
#           W + 0x257 are W's (a map's end is not in it);
#   nested: ld.so's record maps /overlap/big.so over W whole and beyond (W
#           ends), then libc's /overlap/small.so inside big.so's first part:
#           the samples are big.so's, past the small map that ends before
#           them.
# Every sample's dso and every frame's against perf script on the copy (dso
# names need no binary).
f=$root/tests/fixtures/example.data
overlap() {  # out, then overlap_map.py's arguments after IN and OUT, twice with --
    local out=$1 in=$f
    shift
    while [ $# -gt 0 ]; do
        python3 "$root/tests/tools/overlap_map.py" "$in" "$out" "$1" "$2" "$3" "$4" "$5" \
            >>"$tmp/overlap.log" 2>&1 || return 1
        in=$out
        shift 5
        if [ "${1:-}" = -- ]; then shift; fi
    done
}
for case in upper below inside nested; do
    label="overlapping maps ($case)"
    out=$tmp/overlap_$case.data
    : >"$tmp/overlap.log"
    if [ ! -f "$f" ]; then
        echo "ok - $label: the later map wins # SKIP input absent: $f"
        continue
    fi
    case $case in
    upper) overlap "$out" /workload /libc.so.6 0x250 0x250 /overlap/later.so ;;
    below) overlap "$out" /workload /libc.so.6 -0xda9 -0xda9 /overlap/later.so ;;
    inside) overlap "$out" /workload /libc.so.6 0x100 -0xda9 /overlap/later.so ;;
    nested) overlap "$out" /workload /ld-linux-x86-64.so.2 -0x1000 0x1000 /overlap/big.so -- \
                /workload /libc.so.6 -0x800 -0xf00 /overlap/small.so ;;
    esac
    if [ $? -ne 0 ]; then
        echo "not ok - $label: tests/tools/overlap_map.py: $(head -c 300 "$tmp/overlap.log")"
        status=1
        continue
    fi
    q="'$out'"
    perf script -i "$out" --ns -G -F time,ip,dso 2>/dev/null |
        awk '{ d = $0; sub(/^[^(]*\(/, "", d); sub(/\)$/, "", d); print $1 "\t" $2 "\t" d }' |
        sed 's/:\t/\t/' >"$tmp/perf_dso.txt"
    # the case is there: perf gives samples to the maps it is about
    got=$(awk -F'\t' '$3 ~ /^\/overlap\/|\/workload$/ { n[$3]++ }
                      END { for (d in n) printf "%s %d\n", d, n[d] }' "$tmp/perf_dso.txt" | sort)
    case $case in
    upper | below | inside) want='^/overlap/later.so [0-9]+ /tmp/perfvtab-fixtures/workload [0-9]+$' ;;
    nested) want='^/overlap/big.so [0-9]+$' ;;
    esac
    if [[ $(tr '\n' ' ' <<<"$got" | sed 's/ $//') =~ $want ]]; then
        echo "ok - $label: perf's samples per map: $(tr '\n' ' ' <<<"$got")"
    else
        echo "not ok - $label: perf's samples per map: $(tr '\n' ' ' <<<"$got")"
        status=1
    fi
    "$sqlrun" "SELECT printf('%d.%09d', time / 1000000000, time % 1000000000), printf('%x', ip),
                      coalesce(dso, '[unknown]') FROM perf_samples($q)" >"$tmp/ours_dso.txt" 2>&1
    if [ -s "$tmp/perf_dso.txt" ] && cmp -s "$tmp/perf_dso.txt" "$tmp/ours_dso.txt"; then
        echo "ok - $label: every sample's dso is perf's ($(wc -l <"$tmp/ours_dso.txt") samples)"
    else
        echo "not ok - $label: every sample's dso is perf's: $(diff "$tmp/perf_dso.txt" "$tmp/ours_dso.txt" | grep -m2 '^[<>]' | tr '\n\t' '  ')"
        status=1
    fi
    # every frame's dso, sample by sample (perf script prints a blank line after each)
    perf script -i "$out" -F ip,dso 2>/dev/null |
        awk 'NF == 0 { if (n) print s; s = ""; n = 0; next }
             { sub(/^[ \t]*[0-9a-f]+ \(/, ""); sub(/\)$/, ""); s = s (n++ ? " " : "") $0 }
             END { if (n) print s }' >"$tmp/perf_frames.txt"
    "$sqlrun" "SELECT sample, coalesce(dso, '[unknown]') FROM perf_callchains($q)" 2>&1 |
        awk -F'\t' '$1 != last { if (NR > 1) print s; s = $2; last = $1; next } { s = s " " $2 }
                    END { print s }' >"$tmp/ours_frames.txt"
    if grep -q /overlap/ "$tmp/perf_frames.txt" && cmp -s "$tmp/perf_frames.txt" "$tmp/ours_frames.txt"; then
        echo "ok - $label: every frame's dso is perf's ($(wc -l <"$tmp/ours_frames.txt") callchains)"
    else
        echo "not ok - $label: every frame's dso is perf's: $(diff "$tmp/perf_frames.txt" "$tmp/ours_frames.txt" | grep -m2 '^[<>]' | tr '\n\t' '  ')"
        status=1
    fi
done

build() {
    cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -DSPIN=remap_alpha \
        -o "$tmp/libremap_a.so" "$root/tests/symbols/remap_lib.c" &&
    cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -DSPIN=remap_omega \
        -o "$tmp/libremap_b.so" "$root/tests/symbols/remap_lib.c" &&
    cc -O1 -g -fno-omit-frame-pointer -o "$tmp/remap" "$root/tests/symbols/remap.c" -ldl
}
if ! build; then
    echo "not ok - remap: the workload does not build"
    exit 1
fi
if ! timeout 120 perf record -q -g -F 2999 -o "$tmp/remap.data" -- "$tmp/remap" \
        "$tmp/libremap_a.so" remap_alpha "$tmp/libremap_b.so" remap_omega >"$tmp/record.log" 2>&1; then
    echo "not ok - remap: perf record -g failed: $(head -c 300 "$tmp/record.log")"
    exit 1
fi

# the case is there: one ip named after both files, in one process and across a fork
both=$("$sqlrun" "SELECT count(DISTINCT ip), count(DISTINCT pid) FROM perf_samples('$tmp/remap.data')
                  WHERE ip IN (SELECT ip FROM perf_samples('$tmp/remap.data')
                               WHERE sym IN ('remap_alpha', 'remap_omega')
                               GROUP BY ip HAVING count(DISTINCT sym) = 2)")
ips=${both%%	*} pids=${both##*	}
if [ "${ips:-0}" -gt 0 ] && [ "${pids:-0}" -ge 2 ]; then
    echo "ok - remap: $ips ips hold remap_alpha at some times and remap_omega at others, in $pids processes"
else
    echo "not ok - remap: no ip was sampled in both functions (ips, processes: $both)"
    status=1
fi
python3 "$root/tests/oracle/symbols_vs_perf.py" "$sqlrun" "$root" remap "$tmp/remap.data" --frames || status=1
exit $status
