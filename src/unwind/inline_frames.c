#include "unwind/inline_frames.h"
#include "base/sorted_search.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/pv_array.h"
#include "base/pv_alloc.h"

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

/* addr2line's name of a function DIE: its linkage name as show_name
 * shows it, else its DW_AT_name; -1 when it has none or the buffer is
 * full. */
static int32_t die_name(pv_name_buf *buf, Dwarf_Die *die, pv_linkage_name_fn *show_name)
{
    Dwarf_Attribute attr;
    const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    char *shown = linkage && show_name ? show_name(linkage) : NULL;
    const char *name = shown ? shown : linkage ? linkage : dwarf_diename(die);
    int32_t at = name ? keep_name(buf, name) : -1;
    free(shown);
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

/* ---- the functions of a compile unit ------------------------------------- */

/* One address range of a function DIE (a subprogram or entry point) that is
 * not inside another function: at the top of its compile unit (C), or
 * nested in namespaces and types (C++ in-class definitions, every Rust
 * function).  dwarf_getscopes finds the nested ones only by walking the
 * whole unit for every address, and skips those in a namespace (a DIE
 * without addresses is pruned), so each unit is indexed once per module. */
typedef struct function_range {
    Dwarf_Addr low, high;
    Dwarf_Addr reach;       /* the highest `high` of this range and those before it */
    size_t order;           /* the DIE's place in the unit, for addr2line's ties */
    Dwarf_Die die;
} function_range;

typedef struct unit_functions {
    const void *unit;       /* the compile unit (Dwarf_Die.cu) */
    function_range *ranges; /* by low */
    size_t nr, cap;
} unit_functions;

/* The units indexed so far of one module, kept as the module's userdata
 * (dwfl_module_info) until pv_inline_release. */
typedef struct module_functions {
    unit_functions *units;
    size_t nr, cap;
} module_functions;

static bool is_container(int tag)
{
    return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_structure_type ||
           tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
           tag == DW_TAG_enumeration_type;
}

static bool add_range(unit_functions *u, Dwarf_Die *die, Dwarf_Addr low, Dwarf_Addr high)
{
    if (!pv_array_grow((void **)&u->ranges, &u->cap, u->nr + 1, sizeof *u->ranges))
        return false;
    u->ranges[u->nr] = (function_range){ low, high, high, u->nr, *die };
    u->nr++;
    return true;
}

static bool index_scope(Dwarf_Die *scope, unsigned depth, unit_functions *u)
{
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(scope, &child) != 0)
        return true;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point) {
            Dwarf_Addr base, start, end;
            ptrdiff_t off = 0;
            while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0)
                if (start < end && !add_range(u, &child, start, end))
                    return false;
        } else if (is_container(tag) && !index_scope(&child, depth + 1, u)) {
            return false;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return true;
}

static int by_low(const void *a, const void *b)
{
    const function_range *x = a, *y = b;
    if (x->low != y->low)
        return x->low < y->low ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static unit_functions *unit_index(struct Dwfl_Module *mod, Dwarf_Die *cu)
{
    void **userdata = NULL;
    dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    if (!userdata)
        return NULL;
    module_functions *m = *userdata;
    if (!m && !(m = *userdata = pv_calloc(1, sizeof *m)))
        return NULL;
    for (size_t i = 0; i < m->nr; i++)
        if (m->units[i].unit == cu->cu)
            return &m->units[i];
    if (!pv_array_grow((void **)&m->units, &m->cap, m->nr + 1, sizeof *m->units))
        return NULL;
    unit_functions *u = &m->units[m->nr];
    *u = (unit_functions){ .unit = cu->cu };
    if (!index_scope(cu, 0, u)) {
        free(u->ranges);
        return NULL;
    }
    m->nr++;
    qsort(u->ranges, u->nr, sizeof *u->ranges, by_low);
    for (size_t i = 1; i < u->nr; i++)
        if (u->ranges[i].reach < u->ranges[i - 1].reach)
            u->ranges[i].reach = u->ranges[i - 1].reach;
    return u;
}

/* The function holding pc, as addr2line (binutils) chooses where several
 * do (an assembler file's aliases: __unlink, __GI___unlink, unlink,
 * __GI_unlink over the same bytes): the smallest range, the last of equals
 * in the unit; elfutils would give the first. */
static bool unit_function_at(unit_functions *u, Dwarf_Addr pc, Dwarf_Die *function)
{
    size_t lo = PV_UPPER_BOUND(u->ranges, u->nr, low, pc);   /* the first range with low > pc */
    const function_range *best = NULL;
    for (size_t i = lo; i-- > 0 && u->ranges[i].reach > pc;) {
        const function_range *r = &u->ranges[i];
        if (pc >= r->high)
            continue;
        uint64_t len = r->high - r->low;
        if (!best || len < best->high - best->low ||
            (len == best->high - best->low && r->order > best->order))
            best = r;
    }
    if (best)
        *function = best->die;
    return best != NULL;
}

static void release_module(Dwfl_Module *mod)
{
    void **userdata = NULL;
    dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    module_functions *m = userdata ? *userdata : NULL;
    if (!m)
        return;
    for (size_t i = 0; i < m->nr; i++)
        free(m->units[i].ranges);
    free(m->units);
    free(m);
    *userdata = NULL;
}

static int release_one(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
                       void *arg)
{
    (void)userdata, (void)name, (void)start, (void)arg;
    release_module(mod);
    return DWARF_CB_OK;
}

void pv_inline_release(struct Dwfl *dwfl)
{
    if (dwfl)
        dwfl_getmodules(dwfl, release_one, NULL, 0);
}

/* ---- the inlined functions at an address -------------------------------- */

/* The DIEs inside a function that hold code: where pc can lie deeper. */
static bool holds_code(int tag)
{
    return is_function(tag) || tag == DW_TAG_lexical_block || tag == DW_TAG_with_stmt ||
           tag == DW_TAG_catch_block || tag == DW_TAG_try_block;
}

/* From function (holding pc) down through the scopes holding pc: the
 * functions on the way into path[0 .. returned count), outermost (function
 * itself) first; the innermost one chosen among its siblings as addr2line
 * does. */
static size_t functions_below(Dwarf_Die *function, Dwarf_Addr pc, Dwarf_Die *path, size_t max)
{
    Dwarf_Die scope = *function, parent = *function, child;
    size_t nr = 0;
    path[nr++] = *function;
    bool deeper = true;
    for (unsigned depth = 0; deeper && depth < 256 && dwarf_child(&scope, &child) == 0; depth++) {
        deeper = false;
        do {
            int tag = dwarf_tag(&child);
            if (holds_code(tag) && dwarf_haspc(&child, pc) > 0) {
                if (is_function(tag) && nr < max) {
                    parent = scope;
                    path[nr++] = child;
                }
                scope = child;
                deeper = true;
                break;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    if (nr > 1)
        addr2line_choice(&parent, pc, &path[nr - 1]);
    return nr;
}

size_t pv_inline_functions(struct Dwfl_Module *mod, uint64_t pc, Dwarf_Die *path, size_t max)
{
    if (!mod || max == 0)
        return 0;
    Dwarf_Addr bias;
    /* libdw reads the DIEs on first use: nothing found for want of memory
     * is counted (base/pv_alloc.h), not taken for code without inlines */
    errno = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
    unit_functions *u = cu ? unit_index(mod, cu) : NULL;
    Dwarf_Die function;
    if (!u || !unit_function_at(u, pc - bias, &function)) {
        pv_alloc_check_errno();
        return 0;
    }
    return functions_below(&function, pc - bias, path, max);
}

size_t pv_inline_names(struct Dwfl_Module *mod, uint64_t pc, pv_linkage_name_fn *show_name,
                       pv_name_buf *buf, pv_inline_name *out, size_t max)
{
    if (max == 0)
        return 0;
    Dwarf_Die path[PV_INLINE_MAX_DEPTH];
    size_t depth = pv_inline_functions(mod, pc, path, PV_INLINE_MAX_DEPTH);
    /* innermost first, out to the function that holds the code */
    size_t nr = 0;
    while (depth > 0 && nr < max) {
        Dwarf_Die *function = &path[--depth];
        int32_t name = die_name(buf, function, show_name);
        if (name < 0)
            break;
        /* by the DIE's tag, not by its name: a clone's DIE names the
         * function it was cloned from, and is no inline of it */
        out[nr++] = (pv_inline_name){ name, dwarf_tag(function) == DW_TAG_inlined_subroutine };
    }
    return nr;
}
