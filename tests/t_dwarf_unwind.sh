#!/usr/bin/env bash
# DWARF call stacks (perf record --call-graph dwarf: REGS_USER + STACK_USER)
# unwound by src/unwind/dwarf_unwind.c, against perf's own unwinding of the same
# file, sample by sample.  Computed live: unwinding reads the mapped binaries,
# which must be the ones recorded, so the workload is built and recorded now.
#
#  - tests/fixtures/workload.c built with and without frame pointers, each
#    recorded with `perf record --call-graph dwarf -F 999 -- ./workload 30`;
#  - the same with --max-stack 3 (perf cuts the unwind at 3 frames too);
#  - processes a shell forks and execs (perf's own unwinder misplaces the
#    unwind tables of files the shell had mapped lower; so must we);
#  - tests/fixtures/sigwork.c: samples in a signal handler, whose stacks
#    cross the signal frame;
#  - tests/fixtures/nocfi.c: a loop without CFI, whose caller perf guesses;
#  - the binary removed after recording: perf stops at the first frame in
#    it (it cannot read its CFI), so must we;
#  - the committed dwarf.data, read here as recorded: unwind_dump opens the
#    recorded paths only, and perf runs without the fixtures' build-id
#    cache, so both stop at the workload's first frame.  Its whole stacks,
#    unwound through the binary shipped in tests/fixtures/symbols, are
#    checked against perf in SQL by tests/t_symbols.sh.
# perf's build-id cache ($HOME/.debug) is kept out: perf would find a removed
# binary there.  Each sample is a line "pid/tid time: ip ip ...", as
# `perf script -F pid,tid,time,ip --no-inline` shows the stack (kernel
# frames, then user frames as offsets in their files).  PV_KEEP_TMP=1 keeps
# the recordings and outputs (the directory is printed) to look into a
# difference.
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${PV_BUILD:-$root/build}
dump=$build/tools/unwind_dump
sqlrun=${PV_SQLRUN:-$build/sqlrun}

tmp=$(mktemp -d)
[ -n "${PV_KEEP_TMP:-}" ] && echo "# tmp: $tmp" || trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home
mkdir -p "$HOME" "$tmp/empty"
status=0

# The SQL side (perf_callchains, perf_profile) through the symbols checker:
# every frame's ip, sym+offset and dso, and the flat and inclusive profiles,
# against perf's default output, which adds a frame per function inlined at
# a frame (named from the debug info, "(inlined)"); so does perfvtab.
sql_check() {  # label file [checker options...]
    python3 "$root/tests/oracle/symbols_vs_perf.py" "$sqlrun" "$root" "$1" "$2" "${@:3}" || status=1
}

perf_stacks() {  # file [perf script options...]
    HOME=$tmp/empty perf script -i "$1" -F pid,tid,time,ip --no-inline "${@:2}" 2>/dev/null |
        awk '/^ *[0-9]+\/[0-9]+ +[0-9.]+: *$/ { if (cur != "") print cur; cur = $1 " " $2; next }
             /^\t/ { gsub(/^[ \t]+/, ""); cur = cur " " $1; next }
             END { if (cur != "") print cur }' | sort
}

# compare LABEL FILE MIN_SAMPLES MIN_AVG_FRAMES MAX_AVG_FRAMES [--max-stack N]
# Every sample's stack must equal perf's; the bounds on perf's own numbers
# keep the check from passing on empty or leaf-only output.  Sets frames
# (perf's frame count).
compare() {
    local label=$1 data=$2 min_samples=$3 min_avg=$4 max_avg=$5
    shift 5
    perf_stacks "$data" "$@" >"$tmp/perf.txt"
    if ! "$dump" "$data" "$@" >"$tmp/ours.unsorted" 2>"$tmp/ours.err"; then
        echo "not ok - $label: unwind_dump failed: $(head -c 300 "$tmp/ours.err")"
        status=1
        return
    fi
    sort "$tmp/ours.unsorted" >"$tmp/ours.txt"
    local samples same
    samples=$(wc -l <"$tmp/perf.txt")
    frames=$(awk '{ n += NF - 2 } END { print n + 0 }' "$tmp/perf.txt")
    same=$(comm -12 "$tmp/perf.txt" "$tmp/ours.txt" | wc -l)
    echo "# $label: $samples samples, $frames frames in perf's stacks; $same samples equal"
    if [ "$samples" -lt "$min_samples" ]; then
        echo "not ok - $label: perf shows only $samples samples (want >= $min_samples)"
        status=1
    elif [ $((frames)) -lt $((samples * min_avg)) ] || [ $((frames)) -gt $((samples * max_avg)) ]; then
        echo "not ok - $label: perf's stacks average $((frames / samples)) frames, outside $min_avg..$max_avg"
        status=1
    elif [ "$same" -ne "$samples" ] || [ "$(wc -l <"$tmp/ours.txt")" -ne "$samples" ]; then
        local first
        first=$(diff "$tmp/perf.txt" "$tmp/ours.txt" | grep '^[<>]' | head -2 | cut -c1-200 | tr '\n' ' ')
        echo "not ok - $label: $((samples - same)) of $samples stacks differ from perf's: $first"
        status=1
    else
        echo "ok - $label: all $samples stacks ($frames frames) equal perf's"
    fi
}

for variant in fp nofp; do
    flags=-fno-omit-frame-pointer
    [ $variant = nofp ] && flags=-fomit-frame-pointer
    mkdir -p "$tmp/$variant"
    if ! cc -O1 -g $flags -o "$tmp/$variant/workload" "$root/tests/fixtures/workload.c"; then
        echo "not ok - dwarf unwind: the workload does not build"
        exit 1
    fi
    data=$tmp/$variant/dwarf.data
    if ! (cd "$tmp/$variant" && timeout 120 perf record -q --call-graph dwarf -F 999 -o "$data" -- \
            ./workload 30 >"$tmp/record.log" 2>&1); then
        echo "not ok - dwarf unwind: perf record --call-graph dwarf failed: $(head -c 300 "$tmp/record.log")"
        exit 1
    fi
    compare "$variant build" "$data" 50 4 12
    full_frames=$frames
    compare "$variant build, --max-stack 3" "$data" 50 2 6 --max-stack 3
    sql_check "dwarf $variant build (SQL)" "$data" --frames --profiles
done

# The binary gone: samples in it keep their leaf; samples in libc keep the
# frames up to the first one in the workload.
mv "$tmp/nofp/workload" "$tmp/nofp/workload.gone"
compare "binary removed" "$tmp/nofp/dwarf.data" 50 1 100
if [ "$frames" -lt "$full_frames" ]; then
    echo "ok - binary removed: perf and perfvtab show $frames frames instead of $full_frames"
else
    echo "not ok - binary removed: still $frames frames (with the binary: $full_frames)"
    status=1
fi

# Processes forked and exec'd by a recorded shell: perf keeps the maps a
# process had before its exec (or inherited at its fork), and its unwinder
# looks for a file's unwind table at the lowest map of that file, so where
# the old image had the file mapped lower, perf finds no CFI for its frames
# and guesses callers from the frame pointer.  Address space randomization
# decides where that happens; the stacks must equal perf's either way.
if ! (cd "$tmp/fp" && timeout 120 perf record -q --call-graph dwarf -F 999 -o "$tmp/chain.data" -- \
        sh -c 'for i in 1 2 3 4 5 6; do ./workload 3; done' >"$tmp/record.log" 2>&1); then
    echo "not ok - dwarf unwind: perf record of a shell loop failed: $(head -c 300 "$tmp/record.log")"
    exit 1
fi
compare "fork+exec from a shell" "$tmp/chain.data" 30 2 12
echo "# fork+exec from a shell: $("$dump" "$tmp/chain.data" --why | grep -c "perf's frame-pointer guess") stacks took perf's frame-pointer guess"
# Frames only: with its inline frames on, perf report splits the libc
# functions of these processes into a row per process (perf report
# --no-inline does not), some named as perf script does not name them.
sql_check "dwarf, fork+exec from a shell (SQL)" "$tmp/chain.data" --frames

# Signal handlers: the stacks cross the kernel's signal frame (__restore_rt)
# into the interrupted code, whose address is not a return address.
mkdir -p "$tmp/sig"
if ! cc -O1 -g -fomit-frame-pointer -o "$tmp/sig/sigwork" "$root/tests/fixtures/sigwork.c" ||
   ! (cd "$tmp/sig" && timeout 120 perf record -q --call-graph dwarf -F 999 -o "$tmp/sig/dwarf.data" -- \
        ./sigwork >"$tmp/record.log" 2>&1); then
    echo "not ok - dwarf unwind: sigwork does not build or record: $(head -c 300 "$tmp/record.log")"
    exit 1
fi
compare "signal handler" "$tmp/sig/dwarf.data" 20 5 12
sql_check "dwarf, signal handler (SQL)" "$tmp/sig/dwarf.data" --frames --profiles

# Code without CFI (tests/fixtures/nocfi.c): perf's unwinder guesses the
# caller from the frame pointer, with a stack pointer that main's CFI then
# misreads; the stacks must go astray as perf's do.
mkdir -p "$tmp/nocfi"
if ! cc -O1 -g -fomit-frame-pointer -o "$tmp/nocfi/nocfi" "$root/tests/fixtures/nocfi.c" ||
   ! (cd "$tmp/nocfi" && timeout 120 perf record -q --call-graph dwarf -F 999 -o "$tmp/nocfi/dwarf.data" -- \
        ./nocfi >"$tmp/record.log" 2>&1); then
    echo "not ok - dwarf unwind: nocfi does not build or record: $(head -c 300 "$tmp/record.log")"
    exit 1
fi
compare "code without CFI" "$tmp/nocfi/dwarf.data" 20 2 12
sql_check "dwarf, code without CFI (SQL)" "$tmp/nocfi/dwarf.data" --frames --profiles

# In SQL: with no copy anywhere, frames stop there (and have no symbols);
# with perf record's copy in the build-id cache, the whole stacks again.
HOME=$tmp/empty sql_check "dwarf, binary removed (SQL)" "$tmp/nofp/dwarf.data" --frames
sql_check "dwarf, binary in the build-id cache only (SQL)" "$tmp/nofp/dwarf.data" --frames --profiles

# The committed fixture, its binary out of reach for both (above).
compare "dwarf.data fixture" "$root/tests/fixtures/dwarf.data" 40 1 12

exit $status
