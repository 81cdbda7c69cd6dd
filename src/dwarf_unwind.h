/*
 * User stacks recorded with --call-graph dwarf (REGS_USER + STACK_USER),
 * unwound with libdw (elfutils' libdwfl) as perf does: the modules of the
 * sample's process reported at their load bias as the walk reaches them,
 * the registers from the sample, memory from the copied stack (or, outside
 * it, from the mapped file).  Frames come out leaf first; every frame but
 * the first holds its return address minus one, as perf prints them (the
 * call instruction, not the one after it).  x86-64 only for now.
 */
#ifndef PV_DWARF_UNWIND_H
#define PV_DWARF_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "sample.h"
#include "symbolizer.h"

typedef struct pv_unwound_frame {
    uint64_t pc;
    /* perf expands a frame into the functions inlined at its pc, innermost
     * first, then the function holding it, each named from the DWARF debug
     * info (what addr2line -i says): offset of the name in the caller's
     * buffer, or -1 for a frame without debug info (named by its symbol) */
    int32_t name;
} pv_unwound_frame;

/* Keeps one libdwfl session per process (its modules reported and their
 * debug info loaded once) for the samples of a query. */
typedef struct pv_unwinder pv_unwinder;

pv_unwinder *pv_unwinder_new(void);
void pv_unwinder_free(pv_unwinder *u);

/* Unwinds s's user stack (at most max_frames frames) into frames (at most
 * max rows with the inline expansion), names into a buffer of names_size
 * bytes; returns how many rows, 0 when the sample has no user registers
 * and stack, or the walk fails at once. */
size_t pv_dwarf_unwind(pv_unwinder *u, pv_symbolizer *sym, const pv_sample *s, uint64_t key,
                       size_t max_frames, pv_unwound_frame *frames, size_t max, char *names,
                       size_t names_size);

#endif
