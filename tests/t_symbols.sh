#!/usr/bin/env bash
# Symbols, callchains and the profile queries against perf, computed live:
# symbol resolution depends on this machine's binaries, so perf runs now.
#  - a workload built here (tests/symbols: a shared library, a thread, a
#    forked child, an exec'd child; frame pointers) recorded with perf record -g;
#  - the committed fixtures: the same checks, with their workload binaries
#    from tests/fixtures/symbols (perf --buildid-dir, perf_symbol_path).
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
fixtures=$root/tests/fixtures
check=$root/tests/oracle/symbols_vs_perf.py

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -o "$tmp/libpvwork.so" "$root/tests/symbols/libwork.c" &&
cc -O1 -g -fno-omit-frame-pointer -o "$tmp/pvwork" "$root/tests/symbols/work.c" \
    -L"$tmp" -lpvwork -Wl,-rpath,"$tmp" -lpthread
if [ $? -ne 0 ]; then
    echo "not ok - symbols: the workload does not build"
    exit 1
fi
if ! timeout 120 perf record -q -g -F 2999 -o "$tmp/live.data" -- "$tmp/pvwork" >"$tmp/record.log" 2>&1; then
    echo "not ok - symbols: perf record -g failed: $(head -c 300 "$tmp/record.log")"
    exit 1
fi

status=0
python3 "$check" "$sqlrun" "$root" live "$tmp/live.data" --frames --profiles || status=1
# User stacks unwound from registers and stack copies (libdw, as perf's
# libunwind does), inlined frames named from the debug info: every frame
# equals perf's.  The profiles on the main loop only: perf report splits a
# function of the forked and exec'd children into several rows.
for mode in full single; do
    arg=$mode
    [ $mode = full ] && arg=
    if timeout 120 perf record -q --call-graph dwarf,8192 -F 999 -o "$tmp/dwarf_$mode.data" -- \
            "$tmp/pvwork" $arg >"$tmp/record.log" 2>&1; then
        profiles=
        [ $mode = single ] && profiles=--profiles
        python3 "$check" "$sqlrun" "$root" "live dwarf ($mode)" "$tmp/dwarf_$mode.data" --frames \
            $profiles || status=1
    else
        echo "not ok - symbols: perf record --call-graph dwarf failed: $(head -c 300 "$tmp/record.log")"
        status=1
    fi
done
# Pipe mode with the build-ids perf inject -b adds as HEADER_BUILD_ID
# records, each record one entry of the build-id table.
if timeout 120 perf record -q -g -F 2999 -o - -- "$tmp/pvwork" 2>"$tmp/record.log" |
        perf inject -b -o "$tmp/injected.data" 2>>"$tmp/record.log" &&
        [ "$("$sqlrun" "SELECT count(*) FROM perf_records('$tmp/injected.data') WHERE type = 67")" -gt 0 ]; then
    python3 "$check" "$sqlrun" "$root" "pipe, perf inject -b" "$tmp/injected.data" --frames || status=1
else
    echo "not ok - symbols: perf record -o - | perf inject -b gave no HEADER_BUILD_ID records: $(head -c 300 "$tmp/record.log")"
    status=1
fi
# The committed recordings, with their workload binaries from the fixtures'
# build-id cache (tests/fixtures/symbols) for perf and perfvtab alike: every
# frame (dwarf.data's unwound through the shipped binary's CFI) and both
# profiles.  The workload must be named: a check that passed with both
# sides blind would prove nothing.
# datasrc.data and buildid_mmap.data have no callchains: their samples only.
for f in fp example dwarf datasrc buildid_mmap; do
    stacks="--frames --profiles"
    case $f in datasrc | buildid_mmap) stacks= ;; esac
    python3 "$check" "$sqlrun" "$root" "$f.data" "$fixtures/$f.data" $stacks \
        --buildid-dir "$fixtures/symbols" || status=1
    named=$("$sqlrun" "SELECT perf_symbol_path(NULL, '$fixtures/symbols')" \
            "SELECT count(*) FROM perf_samples('$fixtures/$f.data') WHERE dso GLOB '*/workload' AND sym = 'spin'" |
            tail -n 1)
    if [ "${named:-0}" -gt 0 ]; then
        echo "ok - $f.data: the workload's functions are named from tests/fixtures/symbols ($named samples in spin)"
    else
        echo "not ok - $f.data: no sample of the workload is named spin from tests/fixtures/symbols"
        status=1
    fi
done
# A JIT: code in anonymous memory named by /tmp/perf-PID.map (x86-64 code)
if [ "$(uname -m)" = x86_64 ]; then
    if cc -O1 -fno-omit-frame-pointer -o "$tmp/jit" "$root/tests/symbols/jit.c" &&
       timeout 120 perf record -q -g -o "$tmp/jit.data" -- "$tmp/jit" >"$tmp/jit.out" 2>&1; then
        python3 "$check" "$sqlrun" "$root" jit "$tmp/jit.data" --frames --profiles || status=1
        ok=$("$sqlrun" "SELECT count(*) FROM perf_samples('$tmp/jit.data') WHERE sym = 'jitted_loop'")
        if [ "${ok:-0}" -gt 0 ]; then
            echo "ok - jit: $ok samples in jitted_loop, named by the JIT map"
        else
            echo "not ok - jit: no sample named jitted_loop"; status=1
        fi
        rm -f "$(tail -1 "$tmp/jit.out")"
    else
        echo "not ok - jit: the JIT workload did not build or record: $(head -c 300 "$tmp/jit.out")"
        status=1
    fi
else
    echo "ok - jit: skipped, its machine code is x86-64"
fi

# A perf.data directory's kcore_dir/kallsyms comes first (perf record --kcore
# cannot run here: no /proc/modules; so a directory is made by hand, its
# kallsyms this kernel's with every name prefixed "kc_").
if awk 'NR == 1 { exit !($1 ~ /[1-9a-f]/) }' /proc/kallsyms; then
    mkdir -p "$tmp/kcore.data/kcore_dir"
    cp "$tmp/live.data" "$tmp/kcore.data/data"
    awk '{ $3 = "kc_" $3; print }' /proc/kallsyms >"$tmp/kcore.data/kcore_dir/kallsyms"
    counts=$("$sqlrun" "SELECT count(sym), count(CASE WHEN sym GLOB 'kc_*' THEN 1 END)
                        FROM perf_samples('$tmp/kcore.data') WHERE cpumode = 'kernel'")
    want=$("$sqlrun" "SELECT count(sym) FROM perf_samples('$tmp/live.data') WHERE cpumode = 'kernel'")
    if [ "$counts" = "$want	$want" ] && [ "$want" -gt 0 ]; then
        echo "ok - kcore_dir: its kallsyms name all $want kernel samples"
    else
        echo "not ok - kcore_dir: resolved/from kcore_dir $counts, expected $want"; status=1
    fi
else
    echo "ok - kcore_dir: skipped, /proc/kallsyms hides its addresses"
fi

# Where the binaries are looked for, with perf's build-id cache (where perf
# record copied them) out of the way for perf and perfvtab alike:
#  - in place (perf's answers kept for the symdir check below);
#  - moved under a sysroot: perf --symfs vs perf_symbol_path(sysroot);
#  - moved into a symbol dir by build-id: perf_symbol_path(NULL, dir) must give
#    what perf said with the binaries in place;
#  - gone from their place but in a build-id cache that perf buildid-cache
#    filled: the same answers (the recording's build-ids lead there);
#  - replaced by a different build: sym NULL, sym_status says build-id mismatch.
(
    export HOME=$tmp/home    # perf's build-id cache is $HOME/.debug
    mkdir -p "$HOME" "$tmp/perf-said" "$tmp/root$tmp" "$tmp/symdir"
    python3 "$check" "$sqlrun" "$root" "in place" "$tmp/live.data" --frames \
        --perf-cache "$tmp/perf-said" || exit 1
    mv "$tmp/pvwork" "$tmp/libpvwork.so" "$tmp/root$tmp/"
    python3 "$check" "$sqlrun" "$root" sysroot "$tmp/live.data" --frames --symfs "$tmp/root" ||
        exit 1
    mkdir -p "$tmp/cachehome"
    for f in pvwork libpvwork.so; do
        HOME=$tmp/cachehome perf buildid-cache -a "$tmp/root$tmp/$f" ||
            echo "not ok - perf buildid-cache -a $f failed"
    done
    for f in pvwork libpvwork.so; do
        id=$(readelf -n "$tmp/root$tmp/$f" | sed -n 's/.*Build ID: *//p')
        mkdir -p "$tmp/symdir/.build-id/${id:0:2}"
        mv "$tmp/root$tmp/$f" "$tmp/symdir/.build-id/${id:0:2}/${id:2}"
    done
    python3 "$check" "$sqlrun" "$root" "symbol dir" "$tmp/live.data" --frames \
        --symdir "$tmp/symdir" --perf-cache "$tmp/perf-said" || exit 1
    HOME=$tmp/cachehome python3 "$check" "$sqlrun" "$root" "build-id cache" "$tmp/live.data" \
        --frames --perf-cache "$tmp/perf-said" || exit 1
    # no kallsyms anywhere (an empty sysroot): kernel frames unresolved, as in perf
    python3 "$check" "$sqlrun" "$root" "no kallsyms" "$tmp/live.data" --frames \
        --symfs "$tmp/nowhere" --status "[kernel.kallsyms]" "no kallsyms" || exit 1
    cc -O1 -g -fno-omit-frame-pointer -DOTHER_BUILD -o "$tmp/pvwork" "$root/tests/symbols/work.c" \
        -L"$tmp/symdir" -lpthread -Wl,--unresolved-symbols=ignore-all &&
    python3 "$check" "$sqlrun" "$root" "other build" "$tmp/live.data" --status /pvwork "build-id mismatch"
) || status=1
# Damaged files (tests/bad_input's copies of base.data, the corpus's crash
# reproducers, every fixture): the symbol columns, perf_callchains and
# perf_profile give rows or an error, never a crash (under the sanitizers:
# no report either).
mkdir -p "$tmp/bad"
python3 "$root/tests/bad_input/make_bad.py" "$root/tests/bad_input/base.data" "$tmp/bad" >/dev/null 2>&1
[ -d "$PV_SHARED/corpus/perf_data_converter/src/quipper/corpus" ] ||
    echo "ok - damaged files: symbol queries on the corpus's crash reproducers # SKIP input absent: $PV_SHARED/corpus/perf_data_converter/src/quipper/corpus"
runs=0 crashes=0 answered=0
for f in "$tmp"/bad/* "$PV_SHARED"/corpus/perf_data_converter/src/quipper/corpus/poc-* \
         "$fixtures"/*.data; do
    [ -f "$f" ] || continue
    for q in "SELECT count(*), count(sym), sum(repeated), sum(inlined) FROM perf_callchains(?)" \
             "SELECT count(*), sum(children_period) FROM perf_profile(?)" \
             "SELECT count(comm), count(sym), count(sym_status) FROM perf_samples(?)"; do
        runs=$((runs + 1))
        timeout 120 "$sqlrun" "${q//\?/\'$f\'}" >/dev/null 2>"$tmp/err"
        rc=$?
        [ $rc -eq 0 ] && answered=$((answered + 1))
        if [ $rc -gt 1 ] || grep -q "Sanitizer\|runtime error" "$tmp/err"; then
            crashes=$((crashes + 1))
            echo "# crash: $f: $q: $(head -c 300 "$tmp/err")"
        fi
    done
done
if [ "$crashes" -eq 0 ] && [ "$answered" -gt 0 ]; then
    echo "ok - damaged files: $runs symbol queries gave rows ($answered) or an error"
else
    echo "not ok - damaged files: $crashes of $runs symbol queries crashed"
    status=1
fi

# no callchains: samples and comms only
for f in multi tracepoint; do
    python3 "$check" "$sqlrun" "$root" "$f.data" "$fixtures/$f.data" || status=1
done
exit $status
