/*
 * A sample's frames in perf's default order (callee first, the leaf at
 * depth 0), as perf's thread__resolve_callchain_sample builds them from
 * the sample's bytes: the PERF_SAMPLE_CALLCHAIN entries, or, for an event
 * recorded with --call-graph lbr, the kernel part of the callchain with
 * the user stack taken from the branch stack.  DWARF-unwound user frames
 * (unwind/, symbols/) follow these when the walk allows them.
 *
 * --call-graph lbr (branch_sample_type has PERF_SAMPLE_BRANCH_CALL_STACK,
 * and the sample has BRANCH_STACK):
 *   - the callchain is read up to its first PERF_CONTEXT_USER marker, looked
 *     for among its first PV_FRAME_WALK_MAX_STACK entries (perf script's
 *     max stack); without one, the sample has no user part for the branch
 *     stack to give and the whole callchain is walked as usual;
 *   - the user frames are then entry 0's `to` (where the innermost call
 *     went, the leaf) and each entry's `from` (the call sites, innermost
 *     first), all user addresses; the callchain's own user entries are
 *     left out, as perf leaves them;
 *   - hw_idx only matters to perf's --stitch-lbr (off by default), which is
 *     not done here;
 *   - an empty branch stack gives no `to`: perf 6.1 reads entry 0 past the
 *     stack (the bytes after it in the record, or the next record's).  Here
 *     the user part is then the callchain's first user entry, the one
 *     address known, from the callchain.
 * A marker perf does not know (a corrupt chain) among the entries read
 * discards every frame, and the DWARF frames with them, as perf does.
 *
 * --call-graph fp,defer (Linux 6.19, perf 7): a chain that ends in
 * PERF_CONTEXT_USER_DEFERRED and a cookie is read without the cookie; the
 * entries of its CALLCHAIN_DEFERRED record (decode/deferred_chains.h),
 * handed in by pv_frame_walk_stitch, follow, as perf 7 joins the two.
 * Without them the stack stays kernel-only.
 */
#ifndef PV_FRAME_WALK_H
#define PV_FRAME_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "decode/sample.h"

/* perf script's max stack (PERF_MAX_STACK_DEPTH): how far perf looks for
 * the USER marker of an LBR sample */
#define PV_FRAME_WALK_MAX_STACK 127

/* Where a frame came from (perf_callchains.origin). */
typedef enum pv_frame_origin {
    PV_ORIGIN_CALLCHAIN,    /* a PERF_SAMPLE_CALLCHAIN entry */
    PV_ORIGIN_LBR,          /* the branch stack of --call-graph lbr */
    PV_ORIGIN_DWARF,        /* unwound from the user registers and stack copy */
    PV_ORIGIN_DEFERRED,     /* a CALLCHAIN_DEFERRED record's entry (fp,defer) */
} pv_frame_origin;

const char *pv_frame_origin_name(pv_frame_origin origin);

typedef struct pv_frame {
    uint64_t ip;
    unsigned cpumode;       /* PERF_RECORD_MISC_* */
    pv_frame_origin origin;
} pv_frame;

typedef struct pv_frame_walk {
    const pv_sample *sample;
    uint64_t next_entry;    /* the next callchain entry to read */
    uint64_t chain_end;     /* entries read: all, or up to the USER marker (lbr) */
    unsigned context;       /* cpumode the last marker set */
    bool lbr;               /* branch-stack frames follow the callchain's */
    bool lbr_empty;         /* lbr, but no entries: the first user entry instead */
    uint64_t next_branch;   /* 0: entry 0's to; k + 1: entry k's from */
    bool discarded;         /* no frames, no DWARF frames either */
    bool deferred;          /* the chain ends in USER_DEFERRED and a cookie */
    uint64_t cookie;
    const uint64_t *stitched;   /* the deferred record's entries, host order */
    uint64_t stitched_nr, next_stitched;
} pv_frame_walk;

/* Starts the walk over a decoded sample (pv_sample_decode). */
void pv_frame_walk_start(pv_frame_walk *w, const pv_sample *s);

/* Joins the entries of the sample's CALLCHAIN_DEFERRED record (w->deferred
 * and w->cookie say it waits for one) after the chain's; entries must
 * outlive the walk.  An unknown marker among them discards the stack, as
 * one in the chain does. */
void pv_frame_walk_stitch(pv_frame_walk *w, const uint64_t *entries, uint64_t nr);

/* The next frame; false at the end. */
bool pv_frame_walk_next(pv_frame_walk *w, pv_frame *out);

/* Whether DWARF-unwound user frames may follow the walk's: not when the
 * chain was discarded or is missing (perf shows no stack then). */
static inline bool pv_frame_walk_allows_unwind(const pv_frame_walk *w)
{
    return !w->discarded;
}

#endif
