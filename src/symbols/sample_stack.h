/*
 * A sample's stack, frame by frame, the one way every table reads it
 * (perf_callchains, perf_profile, perf_offcpu, perf_pprof, and the flame
 * graphs, which fold perf_callchains' rows), as perf fills one callchain
 * cursor that report, script and its flame-graph scripts all read:
 *
 *   1. the callchain's frames, or for --call-graph lbr its kernel part and
 *      the branch stack's (decode/frame_walk.h); for --call-graph fp,defer
 *      (perf 7) its kernel part and the user part of the CALLCHAIN_DEFERRED
 *      record perf 7 stitches to it, found in the file's index
 *      (decode/deferred_chains.h: built by a walk of the file the first
 *      time a sample waits for one), or no user part when none came;
 *   2. for --call-graph dwarf, then, the user frames unwound from the
 *      registers and stack copy, each expanded into the functions inlined
 *      at it and the function holding them (pv_symbolizer_unwind); none
 *      when the walk discarded the chain, as perf shows no stack then.
 *
 * One naming rule (pv_stack_frame_name): a frame's function is its ELF
 * symbol, a clone's too; only a row of a function inlined at a DWARF
 * frame (a DW_TAG_inlined_subroutine) is named from the debug info, by
 * that name alone.  perf script and perf report print such a row
 * "name (inlined)", perf's folded stacks (perf script report
 * stackcollapse) "name": so a table keeps the mark in a column
 * (perf_callchains.inlined, perf_profile.inlined, pprof's inline Lines),
 * and a stack as text (perf_offcpu.stack, folded stacks) names it bare.
 *
 *   pv_sample_stack_start(&stack, file, sample, sym, key);
 *   while (pv_sample_stack_next(&stack, &frame, err) == 1)
 *       pv_sample_stack_locate(&stack, &frame, &location);
 */
#ifndef PV_SAMPLE_STACK_H
#define PV_SAMPLE_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "decode/frame_walk.h"
#include "decode/sample.h"
#include "symbols/symbolizer.h"

/* Rows of one unwound user stack with its inline expansion, and the bytes
 * of their names: PV_UNWIND_DEFAULT_MAX_FRAMES frames of a few inlines each
 * fit. */
#define PV_STACK_UNWOUND_ROWS 4096
#define PV_STACK_NAMES 65536

typedef struct pv_stack_frame {
    uint64_t ip;
    unsigned cpumode;           /* PERF_RECORD_MISC_* */
    pv_frame_origin origin;
    const char *inline_name;    /* a function inlined at ip, from the debug info (valid
                                   until the stack is started again); NULL: the
                                   function holding ip */
    unsigned level;             /* which function at ip: 0 the innermost, each one it
                                   was inlined into one more (pv_unwound_frame) */
} pv_stack_frame;

static inline bool pv_stack_frame_inlined(const pv_stack_frame *f)
{
    return f->inline_name != NULL;
}

/* The name a frame shows, the same in every table, given its ip resolved
 * (at): the inlined function's, else the symbol's (NULL without one). */
static inline const char *pv_stack_frame_name(const pv_stack_frame *f, const pv_location *at)
{
    return f->inline_name ? f->inline_name : at->sym;
}

/* Readies the symbolizer for the sample (pv_symbolizer_at) and gives it and
 * the sample's key; -1 with err set. */
typedef int (*pv_stack_ready)(void *ctx, pv_symbolizer **sym, uint64_t *key, pv_error *err);

typedef struct pv_sample_stack {
    const pv_sample *sample;
    bool failed;                /* the deferred index could not be read: error says why */
    pv_error error;
    pv_stack_ready ready;       /* NULL: sym and key were given */
    void *ready_ctx;
    pv_symbolizer *sym;
    uint64_t key;
    pv_frame_walk walk;
    bool unwound;               /* the DWARF rows are read, or there are none */
    size_t nr_user, next_user;
    /* scratch, last (start sets every field before it: a stack needs no
     * clearing before its first start) */
    pv_unwound_frame user_frames[PV_STACK_UNWOUND_ROWS];
    char user_names[PV_STACK_NAMES];
} pv_sample_stack;

/* Starts the stack of a decoded sample of f, with sym readied for it
 * (pv_symbolizer_at) and the key that gave. */
void pv_sample_stack_start(pv_sample_stack *st, pv_file *f, const pv_sample *s,
                           pv_symbolizer *sym, uint64_t key);

/* The same, with the symbolizer readied only when a DWARF stack is unwound,
 * by ready(ctx): a table that shows addresses alone never needs it. */
void pv_sample_stack_start_lazy(pv_sample_stack *st, pv_file *f, const pv_sample *s,
                                pv_stack_ready ready, void *ctx);

/* The rows unwound from the stack copy, after the walk's frames: as
 * pv_sample_stack_next. */
int pv_sample_stack_next_unwound(pv_sample_stack *st, pv_stack_frame *out, pv_error *err);

/* The stack's error (the deferred index could not be read): -1. */
int pv_sample_stack_fail(const pv_sample_stack *st, pv_error *err);

/* The next frame, leaf first: 1, 0 at the end, -1 when a lazy stack's
 * ready failed, or a deferred chain's index could not be read (out of
 * memory, an interrupt, a read error).  Inline: it runs once per row of
 * perf_callchains. */
static inline int pv_sample_stack_next(pv_sample_stack *st, pv_stack_frame *out, pv_error *err)
{
    pv_frame frame;
    if (st->failed)
        return pv_sample_stack_fail(st, err);
    if (pv_frame_walk_next(&st->walk, &frame)) {
        *out = (pv_stack_frame){ frame.ip, frame.cpumode, frame.origin, NULL, 0 };
        return 1;
    }
    return pv_sample_stack_next_unwound(st, out, err);
}

/* The frame resolved through the stack's symbolizer, sym named by
 * pv_stack_frame_name.  Not before the symbolizer is ready (a stack
 * started with one). */
void pv_sample_stack_locate(const pv_sample_stack *st, const pv_stack_frame *f,
                            pv_location *out);

#endif
