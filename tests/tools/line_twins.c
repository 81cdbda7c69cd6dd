/*
 * line_twins FILE...
 *
 * For each ELF FILE, at every address from 16 bytes before its lowest
 * .debug_aranges entry to 16 bytes past its highest, the source line of
 * the compact tables (src/unwind/line_table.c, as the debug cache builds
 * them) against libdw's answer (dwfl_module_getsrc and dwfl_lineinfo, as
 * src/unwind/source_lines.c asks at level 0), one line per file:
 *
 *     FILE: N addresses, M with a line, K differ
 *
 * then the first differences.  The tables are built lazily, a unit's
 * rows the first time an address in it is looked up (line_table.c): so
 * the table looked up in address order is also compared with its twin
 * built whole (PERFVTAB_WHOLE_LINE_TABLES) at every address, and so is a
 * third looked up from the highest address down; their differences count
 * among the K.  "FILE: no debug info" when libdwfl finds
 * no aranges for it.  Exit status 1 when any address differs, 2 when a
 * FILE cannot be opened or memory runs out.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/debug_cache.h"
#include "unwind/line_table.h"
#include "unwind/source_lines.h"

/* Whether two lookups differ, printing the first differences. */
static bool differ_at(uint64_t pc, const char *a_name, bool a_found, const char *a, uint64_t a_line,
                      const char *b_name, bool b_found, const char *b, uint64_t b_line,
                      uint64_t *differ)
{
    if (a_found == b_found && (!a_found || (a_line == b_line && strcmp(a, b) == 0)))
        return false;
    if ((*differ)++ < 5)
        printf("  %" PRIx64 ": %s %s:%" PRIu64 "%s, %s %s:%" PRIu64 "%s\n", pc, a_name,
               a_found ? a : "-", a_line, a_found ? "" : " (none)", b_name, b_found ? b : "-",
               b_line, b_found ? "" : " (none)");
    return true;
}

/* The table of path built whole, in a cache of its own (*cache). */
static const pv_line_table *whole_table(const char *path, pv_debug_cache **cache)
{
    *cache = pv_debug_cache_new(1);
    if (!*cache || setenv("PERFVTAB_WHOLE_LINE_TABLES", "1", 1) != 0)
        return NULL;
    const pv_line_table *t = pv_debug_cache_lines(*cache, path);
    unsetenv("PERFVTAB_WHOLE_LINE_TABLES");
    return t;
}

static int compare_file(const char *path)
{
    pv_debug_cache *cache = pv_debug_cache_new(1);
    const pv_line_table *table = cache ? pv_debug_cache_lines(cache, path) : NULL;
    struct Dwfl_Module *mod = table ? pv_debug_cache_module(cache, path) : NULL;
    if (!mod) {
        fprintf(stderr, "line_twins: %s: no ELF file libdwfl can open\n", path);
        pv_debug_cache_free(cache);
        return 2;
    }
    Dwarf_Addr bias;
    Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
    Dwarf_Aranges *aranges;
    size_t nr = 0;
    if (!dw || dwarf_getaranges(dw, &aranges, &nr) != 0 || nr == 0) {
        printf("%s: no debug info\n", path);
        pv_debug_cache_free(cache);
        return 0;
    }
    uint64_t low = UINT64_MAX, high = 0;
    for (size_t i = 0; i < nr; i++) {
        Dwarf_Addr start;
        Dwarf_Word length;
        if (dwarf_getarangeinfo(dwarf_onearange(aranges, i), &start, &length, NULL) != 0)
            continue;
        low = start < low ? start : low;
        high = start + length > high ? start + length : high;
    }
    low = low + bias >= 16 ? low + bias - 16 : 0;
    high = high + bias + 16;
    uint64_t addresses = 0, with_line = 0, differ = 0;
    static char want[4096], have[4096], whole[4096];
    pv_debug_cache *whole_cache, *down_cache = pv_debug_cache_new(1);
    const pv_line_table *whole_lines = whole_table(path, &whole_cache);
    const pv_line_table *down = down_cache ? pv_debug_cache_lines(down_cache, path) : NULL;
    if (!whole_lines || !down) {
        fprintf(stderr, "line_twins: %s: out of memory\n", path);
        pv_debug_cache_free(whole_cache);
        pv_debug_cache_free(down_cache);
        pv_debug_cache_free(cache);
        return 2;
    }
    for (uint64_t pc = low; pc < high; pc++) {
        uint64_t want_line = 0, have_line = 0;
        bool want_found = pv_source_line_at(mod, pc, 0, want, sizeof want, &want_line);
        /* the table again: the module's call may have moved nothing, but
         * the contract is "valid until the next call" */
        table = pv_debug_cache_lines(cache, path);
        bool have_found = pv_line_table_find(table, pc, have, sizeof have, &have_line);
        mod = pv_debug_cache_module(cache, path);
        addresses++;
        with_line += want_found;
        if (!differ_at(pc, "libdw", want_found, want, want_line, "table", have_found, have,
                       have_line, &differ)) {
            uint64_t whole_line = 0;
            bool whole_found = pv_line_table_find(whole_lines, pc, whole, sizeof whole, &whole_line);
            differ_at(pc, "whole", whole_found, whole, whole_line, "lazy", have_found, have,
                      have_line, &differ);
        }
    }
    for (uint64_t pc = high; pc-- > low;) {
        uint64_t whole_line = 0, have_line = 0;
        bool whole_found = pv_line_table_find(whole_lines, pc, whole, sizeof whole, &whole_line);
        bool have_found = pv_line_table_find(down, pc, have, sizeof have, &have_line);
        differ_at(pc, "whole", whole_found, whole, whole_line, "lazy from the top", have_found,
                  have, have_line, &differ);
    }
    pv_debug_cache_free(whole_cache);
    pv_debug_cache_free(down_cache);
    printf("%s: %" PRIu64 " addresses, %" PRIu64 " with a line, %" PRIu64 " differ (table %zu bytes)\n",
           path, addresses, with_line, differ, pv_line_table_bytes(table));
    pv_debug_cache_free(cache);
    return differ ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: line_twins FILE...\n");
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; i++) {
        int rc = compare_file(argv[i]);
        status = rc > status ? rc : status;
    }
    return status;
}
