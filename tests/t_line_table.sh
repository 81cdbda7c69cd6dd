#!/usr/bin/env bash
# The compact line tables (src/unwind/line_table.c) against libdw, their
# slow twin: at every address of each debug file's .debug_aranges span (16
# bytes either side), the file path and line the table gives are the ones
# dwfl_module_getsrc + dwfl_lineinfo give (src/unwind/source_lines.c at
# level 0), and so is "no line" (build/tools/line_twins). The tables run
# a unit's line program at its first lookup: each is also compared with
# its twin built whole (PERFVTAB_WHOLE_LINE_TABLES), looked up in address
# order and from the top down.
#
# Files: the committed ELF fixtures with debug info; tests/fixtures/srcline/
# hot_lines.c and tests/fixtures/clones/clones.c built here with gcc -g at -O2
# and -O0 (DWARF 5, gcc 12's default) and with -gdwarf-4 and -gdwarf-2; this
# machine's libc, libm and ld.so through their debug files (Debian's
# libc6-dbg: DWARF 5, compressed sections), a SKIP where they have none.
# The tables come from the DWARF read by src/unwind/line_program.c and
# dwarf_units.c, or from libdw where those leave a file to it; so also:
# 64-bit DWARF, DWARF 3, sections compressed in the file (zlib: read here;
# zlib-gnu's .zdebug_: left to libdw), a separate debug file found by
# .gnu_debuglink (of a file stripped of all symbols: read here; of one
# that keeps its symbol table: left to libdw), and clang's DWARF 4 and 5
# (its DWARF 5 names files through .debug_str_offsets: left to libdw).
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${PV_BUILD:-$root/build}
twins=$build/tools/line_twins

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# compare NAME FILE: one check; SKIP when the file has no debug info
compare() {
    local out
    out=$("$twins" "$2" 2>&1)
    local rc=$?
    case "$out" in
    *": no debug info")
        echo "ok - line table: $1 # SKIP input absent: no debug info for $2" ;;
    *" 0 differ "*)
        if [ $rc -eq 0 ]; then ok "line table: $1 equals libdw and the whole table at every address (${out#*: })"
        else not_ok "line table: $1" "exit $rc: $out"; status=1; fi ;;
    *)
        not_ok "line table: $1" "$out"; status=1 ;;
    esac
}

# build_hot CC PREFIX NAME FLAGS: hot_lines.c built by CC with FLAGS into
# $tmp/PREFIX..., then compare NAME; SKIP when CC cannot (an old compiler
# lacks a flag)
build_hot() {
    local out
    out=$tmp/$2$(echo "$4" | tr -d ' =-')
    if $1 $4 -o "$out" "$root/tests/fixtures/srcline/hot_lines.c" 2>"$tmp/cc.log"; then
        compare "$3" "$out"
    else
        echo "ok - line table: $3 # SKIP input absent: $1 cannot ($(head -c 100 "$tmp/cc.log"))"
    fi
}

compare "committed fixture (symbols, build-id c1/599b…)" \
    "$root/tests/fixtures/symbols/.build-id/c1/599b38f1a85b0d75483b70cc6f7c358d642838"
compare "committed fixture (lazy_bind)" "$root/tests/fixtures/lazy_bind/root/tmp/perfvtab-fixtures/lazy_bind"

if command -v gcc >/dev/null; then
    for src in srcline/hot_lines.c clones/clones.c; do
        name=$(basename "$src" .c)
        for flags in "-O2 -g" "-O0 -g" "-O2 -gdwarf-4" "-O2 -gdwarf-2"; do
            out=$tmp/$name$(echo "$flags" | tr -d ' -')
            if gcc $flags -fno-omit-frame-pointer -o "$out" "$root/tests/fixtures/$src" 2>"$tmp/gcc.log"; then
                compare "$name built with $flags" "$out"
            else
                not_ok "line table: $name built with $flags" "gcc failed: $(head -c 300 "$tmp/gcc.log")"
                status=1
            fi
        done
    done
    src=$root/tests/fixtures/srcline/hot_lines.c
    for flags in "-O2 -g -gdwarf64" "-O2 -gdwarf-4 -gdwarf64" "-O2 -gdwarf-3" "-O2 -g -gz=zlib" \
        "-O2 -gdwarf-4 -gz=zlib-gnu"; do
        build_hot gcc hot "hot_lines built with $flags" "$flags"
    done
    # separate debug files, compressed, found by .gnu_debuglink
    mkdir -p "$tmp/link"
    if gcc -O2 -g -o "$tmp/link/prog" "$src" &&
        objcopy --only-keep-debug --compress-debug-sections=zlib "$tmp/link/prog" "$tmp/link/prog.debug" &&
        cp "$tmp/link/prog" "$tmp/link/stripped" && strip --strip-all "$tmp/link/stripped" &&
        objcopy --add-gnu-debuglink="$tmp/link/prog.debug" "$tmp/link/stripped" &&
        cp "$tmp/link/prog" "$tmp/link/symbols" && strip --strip-debug "$tmp/link/symbols" &&
        objcopy --add-gnu-debuglink="$tmp/link/prog.debug" "$tmp/link/symbols" 2>"$tmp/gcc.log"; then
        compare "debug file by .gnu_debuglink, all symbols stripped" "$tmp/link/stripped"
        compare "debug file by .gnu_debuglink, symbol table kept" "$tmp/link/symbols"
    else
        echo "ok - line table: debug files by .gnu_debuglink # SKIP input absent: objcopy or strip failed"
    fi
else
    echo "ok - line table: built fixtures # SKIP input absent: gcc"
fi

if command -v clang >/dev/null; then
    for flags in "-O2 -gdwarf-4 -gdwarf-aranges" "-O0 -gdwarf-5 -gdwarf-aranges"; do
        build_hot clang clang "hot_lines built by clang with $flags" "$flags"
    done
else
    echo "ok - line table: clang's DWARF # SKIP input absent: clang"
fi

for lib in libc.so.6 libm.so.6 ld-linux-x86-64.so.2; do
    path=$(ls /lib/x86_64-linux-gnu/$lib /usr/lib/x86_64-linux-gnu/$lib 2>/dev/null | head -1)
    if [ -z "$path" ]; then
        echo "ok - line table: $lib # SKIP input absent: no $lib"
    else
        compare "$lib" "$path"
    fi
done
exit $status
