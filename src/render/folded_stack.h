/*
 * One call stack in the folded format of flame graphs: frames root first,
 * separated by ';' ("main;outer;inner").  Frames arrive as (depth, name)
 * pairs in any order, depth 0 being the leaf as in perf_callchains; joining
 * orders them by depth, deepest (the root) first, so the result does not
 * depend on the order rows happen to reach an aggregate.
 *
 * A ';' inside a name would split the frame in two, so it is written as ':'
 * (as stackcollapse-perf.pl does); so are line breaks, which would end the
 * folded line.  Everything else is kept byte for byte.
 */
#ifndef PV_FOLDED_STACK_H
#define PV_FOLDED_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pv_strbuf.h"

typedef struct pv_folded_frame {
    int64_t depth;
    size_t order;       /* arrival: frames of equal depth keep it */
    size_t name_off;    /* into names */
    size_t name_len;
} pv_folded_frame;

typedef struct pv_folded_stack {
    pv_folded_frame *frames;
    size_t count, cap;
    pv_strbuf names;
} pv_folded_stack;

/* False when out of memory. */
bool pv_folded_stack_add(pv_folded_stack *s, int64_t depth, const char *name, size_t len);
/* Appends the frames, deepest first, joined by ';'.  False when out of memory. */
bool pv_folded_stack_join(pv_folded_stack *s, pv_strbuf *out);
void pv_folded_stack_free(pv_folded_stack *s);

/* Appends a frame's name as stackcollapse-perf.pl writes it: the symbol;
 * without one (sym NULL), "[dso]" with the dso's base name, or the dso as it
 * is when perf already bracketed it ("[kernel.kallsyms]"); without a dso
 * either, the address as 0x<hex>.  False when there is nothing to name
 * (no sym, no dso, no ip) or out of memory (out failed). */
bool pv_folded_frame_name(pv_strbuf *out, const char *sym, size_t sym_len, const char *dso,
                          size_t dso_len, bool has_ip, uint64_t ip);

#endif
