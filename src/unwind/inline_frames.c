#include "unwind/inline_frames.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libiberty/demangle.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int32_t keep_name(pv_name_buf *buf, const char *name)
{
    size_t n = strlen(name);
    if (buf->len > buf->size || n + 1 > buf->size - buf->len || buf->len > INT32_MAX)
        return -1;
    memcpy(buf->bytes + buf->len, name, n + 1);
    int32_t at = (int32_t)buf->len;
    buf->len += n + 1;
    return at;
}

/* addr2line's name of a function DIE: its linkage name demangled (C++),
 * else its DW_AT_name; -1 when it has none or the buffer is full. */
static int32_t die_name(pv_name_buf *buf, Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    char *demangled = linkage ? cplus_demangle(linkage, DMGL_NO_OPTS) : NULL;
    const char *name = demangled ? demangled : linkage ? linkage : dwarf_diename(die);
    int32_t at = name ? keep_name(buf, name) : -1;
    free(demangled);
    return at;
}

static bool is_function(int tag)
{
    return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram ||
           tag == DW_TAG_entry_point;
}

/* The length of the range of die holding pc, 0 when none does. */
static uint64_t range_at(Dwarf_Die *die, Dwarf_Addr pc)
{
    Dwarf_Addr base, start, end;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
        if (start <= pc && pc < end)
            return end - start;
    return 0;
}

/* Where several functions hold pc side by side (an assembler file's
 * aliases: __unlink, __GI___unlink, unlink, __GI_unlink over the same
 * bytes), addr2line (binutils) names the one with the smallest range
 * holding pc, the last of equals; elfutils would give the first. */
static void addr2line_choice(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chosen)
{
    uint64_t best = range_at(chosen, pc);
    Dwarf_Die child;
    if (best == 0 || dwarf_child(parent, &child) != 0)
        return;
    do {
        if (!is_function(dwarf_tag(&child)))
            continue;
        uint64_t len = range_at(&child, pc);
        if (len != 0 && len <= best) {
            best = len;
            *chosen = child;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

size_t pv_inline_names(struct Dwfl_Module *mod, uint64_t pc, pv_name_buf *buf, int32_t *at,
                       size_t max)
{
    if (!mod || max == 0)
        return 0;
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
    Dwarf_Die *scopes = NULL;
    int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    Dwarf_Die innermost;
    bool found = false;
    for (int i = 0; i < n && !found; i++)
        if (is_function(dwarf_tag(&scopes[i]))) {
            innermost = scopes[i];
            found = true;
            if (i + 1 < n)
                addr2line_choice(&scopes[i + 1], pc - bias, &innermost);
        }
    free(scopes);
    if (!found || (at[0] = die_name(buf, &innermost)) < 0)
        return 0;
    size_t nr = 1;
    if (dwarf_tag(&innermost) != DW_TAG_inlined_subroutine)
        return nr;
    /* the scopes of an inlined instance lead out through the functions
     * it was inlined into, up to the one that holds the code */
    Dwarf_Die *chain = NULL;
    int m = dwarf_getscopes_die(&innermost, &chain);
    for (int i = 1; i < m && nr < max; i++) {
        int tag = dwarf_tag(&chain[i]);
        if (!is_function(tag))
            continue;
        int32_t name = die_name(buf, &chain[i]);
        if (name < 0)
            break;
        at[nr++] = name;
        if (tag != DW_TAG_inlined_subroutine)
            break;
    }
    free(chain);
    return nr;
}
