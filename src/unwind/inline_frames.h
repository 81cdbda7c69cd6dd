/*
 * The functions inlined at a code address, named from the DWARF debug info
 * of the file holding it, as perf's default callchains show them (perf
 * --inline, what `addr2line -f -i` prints): the innermost inlined function
 * first, then each function it was inlined into, ending with the function
 * that holds the code.  Names are demangled (C++) from the linkage name,
 * else DW_AT_name.
 *
 * The module comes from the libdwfl session that unwound the stack
 * (pv_unwinder_module), so the debug info is loaded once per file and
 * process, not in a second session.
 */
#ifndef PV_INLINE_FRAMES_H
#define PV_INLINE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

/* A list of names packed into a caller's buffer. */
typedef struct pv_name_buf {
    char *bytes;
    size_t size, len;
} pv_name_buf;

struct Dwfl_Module;

/* Appends the names at pc (an address in mod's process, as unwound) to
 * buf and their offsets in it to at[0 .. returned count), at most max;
 * 0 when mod is NULL, has no debug info at pc, or buf is full. */
size_t pv_inline_names(struct Dwfl_Module *mod, uint64_t pc, pv_name_buf *buf, int32_t *at,
                       size_t max);

#endif
