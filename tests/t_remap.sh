#!/usr/bin/env bash
# One address, different files over time (tests/symbols/remap.c): munmap and
# mmap of another file at the same address, a forked child mapping another
# file where its parent keeps the first, an exec then both again.  Every
# sample's and frame's symbol and dso must be perf's: an answer remembered
# for an address (the symbol cache) must not outlive the map it came from.
# First, with no live recording: two live maps that overlap (a rewritten
# copy of example.data), the later one winning where they do.
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# --- Two live maps that overlap: the later one wins where they do (perf
# splits the older one around it), the older one keeps the rest.  No live
# recording: a copy of example.data whose libc MMAP2 (after the workload's)
# is rewritten to map /overlap/later.so over the workload's text from 0x250
# on (tests/tools/overlap_map.py), over the hot code of half its samples.
# Every sample's dso and every frame's against perf script on the copy (dso
# names need no binary).
f=$root/tests/fixtures/example.data
if [ ! -f "$f" ]; then
    echo "ok - overlapping maps: the later one wins # SKIP input absent: $f"
elif ! python3 "$root/tests/tools/overlap_map.py" "$f" "$tmp/overlap.data" /workload /libc.so.6 0x250 \
        /overlap/later.so >"$tmp/overlap.log" 2>&1; then
    echo "not ok - overlapping maps: tests/tools/overlap_map.py: $(head -c 300 "$tmp/overlap.log")"
    status=1
else
    q="'$tmp/overlap.data'"
    perf script -i "$tmp/overlap.data" --ns -G -F time,ip,dso 2>/dev/null |
        awk '{ d = $0; sub(/^[^(]*\(/, "", d); sub(/\)$/, "", d); print $1 "\t" $2 "\t" d }' |
        sed 's/:\t/\t/' >"$tmp/perf_dso.txt"
    later=$(grep -c '/overlap/later.so$' "$tmp/perf_dso.txt")
    older=$(grep -c '/workload$' "$tmp/perf_dso.txt")
    if [ "$later" -gt 0 ] && [ "$older" -gt 0 ]; then
        echo "ok - overlapping maps: perf gives $later samples to the later map, $older to the older one's rest"
    else
        echo "not ok - overlapping maps: perf gives samples to both maps: later $later, older $older"
        status=1
    fi
    "$sqlrun" "SELECT printf('%d.%09d', time / 1000000000, time % 1000000000), printf('%x', ip),
                      coalesce(dso, '[unknown]') FROM perf_samples($q)" >"$tmp/ours_dso.txt" 2>&1
    if [ "$later" -gt 0 ] && cmp -s "$tmp/perf_dso.txt" "$tmp/ours_dso.txt"; then
        echo "ok - overlapping maps: every sample's dso is perf's ($(wc -l <"$tmp/ours_dso.txt") samples)"
    else
        echo "not ok - overlapping maps: every sample's dso is perf's: $(diff "$tmp/perf_dso.txt" "$tmp/ours_dso.txt" | grep -m2 '^[<>]' | tr '\n\t' '  ')"
        status=1
    fi
    # every frame's dso, sample by sample (perf script prints a blank line after each)
    perf script -i "$tmp/overlap.data" -F ip,dso 2>/dev/null |
        awk 'NF == 0 { if (n) print s; s = ""; n = 0; next }
             { sub(/^[ \t]*[0-9a-f]+ \(/, ""); sub(/\)$/, ""); s = s (n++ ? " " : "") $0 }
             END { if (n) print s }' >"$tmp/perf_frames.txt"
    "$sqlrun" "SELECT sample, coalesce(dso, '[unknown]') FROM perf_callchains($q)" 2>&1 |
        awk -F'\t' '$1 != last { if (NR > 1) print s; s = $2; last = $1; next } { s = s " " $2 }
                    END { print s }' >"$tmp/ours_frames.txt"
    if grep -q later.so "$tmp/perf_frames.txt" && cmp -s "$tmp/perf_frames.txt" "$tmp/ours_frames.txt"; then
        echo "ok - overlapping maps: every frame's dso is perf's ($(wc -l <"$tmp/ours_frames.txt") callchains)"
    else
        echo "not ok - overlapping maps: every frame's dso is perf's: $(diff "$tmp/perf_frames.txt" "$tmp/ours_frames.txt" | grep -m2 '^[<>]' | tr '\n\t' '  ')"
        status=1
    fi
fi

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
python3 "$root/tests/symbols_vs_perf.py" "$sqlrun" "$root" remap "$tmp/remap.data" --frames || status=1
exit $status
