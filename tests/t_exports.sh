#!/usr/bin/env bash
# plain-only
# The extension exports its entry point and nothing else: any other name
# (its own, or libiberty's xmalloc, cplus_demangle, ...) would interpose on,
# or be interposed by, a same-named symbol of the application loading it.
#
# Env: PV_ROOT; PV_EXT overrides the extension (default $PV_ROOT/build/perfvtab).
set -u
: "${PV_ROOT:?}"
so=${PV_EXT:-$PV_ROOT/build/perfvtab}.so
if [ ! -f "$so" ]; then
    echo "not ok - exports: $so is not built"
    exit 0
fi
if ! command -v nm >/dev/null 2>&1; then
    echo "ok - exports # SKIP input absent: nm (binutils) is not installed"
    exit 0
fi
exported=$(nm -D --defined-only "$so" | awk '{ print $NF }' | sort)
if [ "$exported" = sqlite3_perfvtab_init ]; then
    echo "ok - $(basename "$so") exports exactly one symbol, sqlite3_perfvtab_init"
else
    echo "not ok - $(basename "$so") exports $(printf '%s\n' "$exported" | grep -c .) symbols, not only sqlite3_perfvtab_init: $(printf '%s\n' "$exported" | head -8 | tr '\n' ' ')"
fi
# and SQLite still finds the entry point and loads it
if out=$(sqlite3 :memory: ".load ${so%.so}" "SELECT count(*) FROM pragma_module_list WHERE name LIKE 'perf\_%' ESCAPE '\\'" 2>&1) \
        && [ "$out" -gt 0 ] 2>/dev/null; then
    echo "ok - the sqlite3 shell loads it and sees its $out perf_ modules"
else
    echo "not ok - the sqlite3 shell cannot load $so: $out"
fi
