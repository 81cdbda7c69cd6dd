/*
 * The functions inlined at a code address, named from the DWARF debug info
 * of the file holding it, as perf's default callchains show them (perf
 * --inline, what `addr2line -f -i` prints): the innermost inlined function
 * first, then each function it was inlined into, ending with the function
 * that holds the code, which is no inline (pv_inline_name tells them
 * apart by their DIEs' tags).  A function is named by its linkage name,
 * shown through the caller's demangler (symbols/ owns demangling), else by
 * its DW_AT_name.  Functions nested in namespaces and types (all of Rust's) are
 * found as well as those at the top of their compile unit.
 *
 * The module is the file's in the debug cache (debug_cache.h), at the
 * file's own addresses, so the debug info is read once per file, for
 * every process and query.  The functions of each compile unit asked
 * about are indexed once, kept with the module until pv_inline_release.
 */
#ifndef PV_INLINE_FRAMES_H
#define PV_INLINE_FRAMES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A list of names packed into a caller's buffer. */
typedef struct pv_name_buf {
    char *bytes;
    size_t size, len;
} pv_name_buf;

struct Dwfl;
struct Dwfl_Module;

/* The deepest nesting of inlined functions looked at in one frame. */
#define PV_INLINE_MAX_DEPTH 64

/* A linkage name as it is to be shown, in memory the caller frees; NULL
 * to show the linkage name as it is. */
typedef char *pv_linkage_name_fn(const char *linkage_name);

/* One function at a code address, as pv_inline_names gives it. */
typedef struct pv_inline_name {
    int32_t at;         /* the name's offset in the caller's buffer */
    bool inlined;       /* a DW_TAG_inlined_subroutine: a function inlined
                           there.  false for the function holding the code, a
                           DW_TAG_subprogram even when it is a clone whose DIE
                           names the function it was cloned from (the code of
                           spin.constprop.0 is an out-of-line instance of spin,
                           not spin inlined) */
} pv_inline_name;

/* Appends the names at pc (an address in mod's process, as unwound) to
 * buf and, for each, its offset in buf and whether it was inlined to
 * out[0 .. returned count), at most max; 0 when mod is NULL, has no debug
 * info at pc, or buf is full.  show_name turns linkage names into shown
 * names (NULL: keep them as they are). */
size_t pv_inline_names(struct Dwfl_Module *mod, uint64_t pc, pv_linkage_name_fn *show_name,
                       pv_name_buf *buf, pv_inline_name *out, size_t max);

/* The function DIEs holding pc (as in pv_inline_names) into
 * path[0 .. returned count), at most max, outermost first: the function
 * that holds the code, then each one inlined into the one before it.  The
 * names of pv_inline_names are theirs, in the other order.  0 when mod is
 * NULL or has no debug info at pc. */
size_t pv_inline_functions(struct Dwfl_Module *mod, uint64_t pc, Dwarf_Die *path, size_t max);

/* Frees the indexes kept with dwfl's modules; before dwfl_end. */
void pv_inline_release(struct Dwfl *dwfl);

#endif
