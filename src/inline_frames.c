#include "inline_frames.h"

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
