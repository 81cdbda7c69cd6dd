#!/usr/bin/env bash
# DWARF-unwound stacks through the dynamic linker's lazy binding, against
# perf script's: tests/fixtures/lazy_bind/lazy_bind.data (its README), whose
# samples sit in _dl_fixup and _dl_runtime_resolve_xsavec.  That trampoline
# realigns its stack, and its CFA is rbx + 32; in _dl_fixup's prologue rbx
# has no CFI rule yet (same value by the psABI), which libdw 0.188 takes as
# undefined (src/unwind/preserved_regs.h): its samples at _dl_fixup+0x2 once
# ended in a return address 0 where perf gives the whole stack.
# Expected: tests/expected/lazy_binding/stacks.tsv (tests/gen/lazy_binding.sh,
# perf script --symfs on the fixture's root/), every frame but perf's
# "(inlined)" ones, read with perf_symbol_path(root/).  No big-endian copy:
# tests/tools/perf_to_big_endian.py keeps the stack copy as it is (memory),
# which a big-endian machine's file would hold in its own order, so a
# converted x86 recording has no stacks to compare (t_big_endian.sh compares
# its samples' fields).
#
# Env: PV_ROOT, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$PV_ROOT/build/sqlrun}
fixture=$PV_ROOT/tests/fixtures/lazy_bind
want=$PV_ROOT/tests/expected/lazy_binding/stacks.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$fixture/lazy_bind.data" ] || [ ! -f "$want" ]; then
    echo "ok - lazy binding stacks # SKIP input absent: $fixture/lazy_bind.data or $want"
    exit 0
fi
status=0
samples=$(cut -f1 "$want" | sort -u | wc -l)
at_fixup=$(awk -F'\t' '$2 == 0 && $3 == "_dl_fixup+0x2"' "$want" | wc -l)
name="lazy binding"
file=$fixture/lazy_bind.data
"$PV_SQLRUN" "SELECT 1 WHERE length(perf_symbol_path($(sql_quote "$fixture/root"))) < 0" \
    "SELECT time, n, frame, dso FROM (
       SELECT time, depth, row_number() OVER (PARTITION BY sample ORDER BY depth) - 1 AS n,
              CASE WHEN sym IS NULL THEN '[unknown]'
                   ELSE sym || '+0x' || printf('%x', sym_offset) END AS frame,
              coalesce(dso, '[unknown]') AS dso
       FROM perf_callchains($(sql_quote "$file")) WHERE inlined = 0)
     ORDER BY time, n" >"$tmp/got.tsv" 2>&1
if cmp -s "$tmp/got.tsv" "$want"; then
    ok "$name: $(wc -l <"$want") frames of $samples samples ($at_fixup at _dl_fixup+0x2) equal perf script's"
else
    not_ok "$name: stacks differ from perf script's" \
        "$(diff "$want" "$tmp/got.tsv" | head -6 | tr '\n\t' '  ')"
    status=1
fi
exit $status
