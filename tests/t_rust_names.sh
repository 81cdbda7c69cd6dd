#!/usr/bin/env bash
# Rust symbol names as perf shows them, live: tests/fixtures/rust/hot_names.rs
# (functions in a module, a generic function instantiated for u8 and u32, a
# closure, a trait method of two types) is built here by rustc with frame
# pointers and debug info, once with the legacy mangling (rustc's default:
# _ZN...17h<16 hex>E) and once with -C symbol-mangling-version=v0 (_R...),
# and each build is recorded with -g and with --call-graph dwarf.
#
# perf 6.1 (Debian's, built without libbfd) demangles both shapes through
# libiberty: legacy names without their hash, v0 names with their generic
# arguments (spin_generic::<u8>) and closures as {closure#N}.  The expected
# values are perf's own output on these recordings, sample by sample and
# frame by frame (DWARF inline frames included); the checks below also show
# from the binary's symbol table that perf's names are demangled ones.
# Without rustc the checks are skips (scripts/install-deps.sh installs
# Debian's rustc, so CI does not skip).
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
export PV_SQLRUN=$sqlrun
compare=$root/tests/oracle/symbols_vs_perf.py
source_file=$root/tests/fixtures/rust/hot_names.rs

# Debian's rustc first (what install-deps.sh installs), else any on PATH.
rustc=${PV_RUSTC:-}
[ -z "$rustc" ] && [ -x /usr/bin/rustc ] && rustc=/usr/bin/rustc
[ -z "$rustc" ] && rustc=$(command -v rustc 2>/dev/null)
if [ -z "$rustc" ]; then
    echo "ok - rust names: legacy and v0 builds # SKIP no rustc (apt-get install rustc)"
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# check_names NAME DATA BINARY: the names shown for the samples in BINARY's
# own functions are demangled forms of its symbols.
check_names() {
    local name=$1 data=$2 binary=$3
    # perf's names of the samples in the program's crate
    perf script -i "$data" -G -F ip,sym,dso 2>/dev/null | awk -v b="$binary" 'index($0, "(" b ")")' |
        sed 's/ *(.*)$//; s/^ *[0-9a-f]* //' | grep 'hot_names' | sort -u >"$tmp/perf_names"
    "$sqlrun" "SELECT DISTINCT sym FROM perf_samples($(sql_quote "$data"))
               WHERE dso = $(sql_quote "$binary") AND sym LIKE '%hot_names%' ORDER BY 1" |
        sort -u >"$tmp/pv_names"
    check "$name: the program's $(wc -l <"$tmp/perf_names") sampled names equal perf script's" \
        "$(cat "$tmp/pv_names")" "$(cat "$tmp/perf_names")"
    # the program ran every name shape: a closure, a trait method and, in v0,
    # generic arguments
    local shapes=('{closure' ' as ')
    [ "$name" != "${name#rust v0}" ] && shapes+=('::<')
    local seen want pattern_args=()
    for p in "${shapes[@]}"; do pattern_args+=(-e "$p"); done
    seen=$(grep -oF "${pattern_args[@]}" "$tmp/perf_names" | sort -u | tr '\n' '/')
    want=$(printf '%s\n' "${shapes[@]}" | sort -u | tr '\n' '/')
    check "$name: perf's names have each shape (${shapes[*]})" "$seen" "$want"
    # The symbol table holds only mangled names (nm prints them as they are);
    # none is shown as it is, and every shown name is one that nm -C (binutils,
    # libiberty) gives for a symbol.
    nm "$binary" | awk '{ print $NF }' | sort -u >"$tmp/raw"
    nm -C "$binary" | sed 's/^[0-9a-f]* [A-Za-z] //' | sort -u >"$tmp/demangled"
    local raw_shown missing
    raw_shown=$(comm -12 "$tmp/pv_names" "$tmp/raw" | head -3)
    missing=$(comm -23 "$tmp/pv_names" "$tmp/demangled" | head -3)
    if [ -s "$tmp/pv_names" ] && [ -z "$raw_shown" ] && [ -z "$missing" ]; then
        ok "$name: $(wc -l <"$tmp/pv_names") names, each a symbol demangled, none as mangled"
    else
        not_ok "$name: names are demangled symbols" \
            "shown as mangled: '$raw_shown'; no symbol demangles to: '$missing'"
    fi
}

for mangling in legacy v0; do
    flags=()
    [ $mangling = v0 ] && flags=(-C symbol-mangling-version=v0)
    binary=$tmp/hot_$mangling
    if ! "$rustc" -C opt-level=1 -g -C force-frame-pointers=yes "${flags[@]}" \
            -o "$binary" "$source_file" >"$tmp/rustc.log" 2>&1; then
        if [ $mangling = v0 ]; then
            echo "ok - rust names: v0 build # SKIP $rustc does not take ${flags[*]}: $(oneline "$tmp/rustc.log")"
            continue
        fi
        not_ok "rust names: $mangling build" "$(oneline "$tmp/rustc.log")"
        status=1
        continue
    fi
    # The mangled shape is in the binary: legacy symbols end with the hash,
    # v0 symbols start with _R.
    if [ $mangling = legacy ]; then
        shape=$(nm "$binary" | grep -cE ' _ZN9hot_names.*17h[0-9a-f]{16}E$')
    else
        shape=$(nm "$binary" | grep -cE ' _R[A-Za-z0-9_]*9hot_names')
    fi
    if [ "$shape" -gt 0 ]; then
        ok "rust names ($mangling): $shape symbols of the crate have the $mangling shape"
    else
        not_ok "rust names ($mangling): mangled shape" "no such symbol in nm's output"
        status=1
    fi

    for callgraph in fp dwarf; do
        name="rust $mangling ($callgraph)"
        data=$tmp/${mangling}_$callgraph.data
        cg=(-g)
        [ $callgraph = dwarf ] && cg=(--call-graph dwarf,8192 -F 499)
        if ! timeout 20 perf record -q "${cg[@]}" -o "$data" -- "$binary" 1 \
                >"$tmp/record.log" 2>&1; then
            not_ok "$name: perf record" "$(oneline "$tmp/record.log")"
            status=1
            continue
        fi
        python3 "$compare" "$sqlrun" "$root" "$name" "$data" --frames --profiles || status=1
        check_names "$name" "$data" "$binary"
        if [ $mangling = legacy ]; then
            # no hash left in any shown name, frames included
            hashes=$("$sqlrun" "SELECT count(*) FROM perf_callchains($(sql_quote "$data"))
                                WHERE sym GLOB '*::h[0-9a-f][0-9a-f][0-9a-f][0-9a-f]*'
                                   OR sym GLOB '*17h[0-9a-f]*E'")
            check "$name: no frame's name keeps the legacy hash" "$hashes" 0
        fi
    done
done
exit $status
