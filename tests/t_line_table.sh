#!/usr/bin/env bash
# The compact line tables (src/unwind/line_table.c) against libdw, their
# slow twin: at every address of each debug file's .debug_aranges span (16
# bytes either side), the file path and line the table gives are the ones
# dwfl_module_getsrc + dwfl_lineinfo give (src/unwind/source_lines.c at
# level 0), and so is "no line" (build/tools/line_twins).
#
# Files: the committed ELF fixtures with debug info; tests/fixtures/srcline/
# hot_lines.c and tests/fixtures/clones/clones.c built here with gcc -g at -O2
# and -O0 (DWARF 5, gcc 12's default) and with -gdwarf-4 and -gdwarf-2; this
# machine's libc, libm and ld.so through their debug files (Debian's
# libc6-dbg: DWARF 5, compressed sections), a SKIP where they have none.
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
        if [ $rc -eq 0 ]; then ok "line table: $1 equals libdw at every address (${out#*: })"
        else not_ok "line table: $1" "exit $rc: $out"; status=1; fi ;;
    *)
        not_ok "line table: $1" "$out"; status=1 ;;
    esac
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
else
    echo "ok - line table: built fixtures # SKIP input absent: gcc"
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
