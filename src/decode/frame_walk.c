#include "decode/frame_walk.h"

#include "decode/callchain.h"
#include "decode/deferred_chains.h"
#include "format/perf_abi.h"

const char *pv_frame_origin_name(pv_frame_origin origin)
{
    switch (origin) {
    case PV_ORIGIN_LBR: return "lbr";
    case PV_ORIGIN_DWARF: return "dwarf";
    case PV_ORIGIN_DEFERRED: return "deferred";
    case PV_ORIGIN_CALLCHAIN: break;
    }
    return "callchain";
}

/* A marker perf does not know among the first n entries. */
static bool corrupt_before(const pv_sample *s, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = pv_sample_u64_at(s, s->callchain, i);
        if (pv_callchain_is_marker(v) && pv_callchain_marker_cpumode(v) == 0)
            return true;
    }
    return false;
}

/* The index of the first PERF_CONTEXT_USER among the entries perf looks
 * at, or UINT64_MAX. */
static uint64_t user_marker(const pv_sample *s)
{
    uint64_t n = s->callchain_nr < PV_FRAME_WALK_MAX_STACK ? s->callchain_nr
                                                           : PV_FRAME_WALK_MAX_STACK;
    for (uint64_t i = 0; i < n; i++)
        if (pv_sample_u64_at(s, s->callchain, i) == PV_CONTEXT_USER)
            return i;
    return UINT64_MAX;
}

void pv_frame_walk_start(pv_frame_walk *w, const pv_sample *s)
{
    *w = (pv_frame_walk){ .sample = s, .context = s->misc & PV_MISC_CPUMODE_MASK };
    if (s->attr_index < 0 || !(s->sample_type & PV_SAMPLE_CALLCHAIN)) {
        w->discarded = true;
        return;
    }
    w->chain_end = s->callchain_nr;
    w->deferred = pv_sample_deferred_cookie(s, &w->cookie);
    if (w->deferred)
        w->chain_end--;     /* the cookie */
    if (s->branch_call_stack && (s->sample_type & PV_SAMPLE_BRANCH_STACK)) {
        uint64_t at = user_marker(s);
        if (at != UINT64_MAX) {
            w->lbr = true;
            w->chain_end = at + 1;
            /* no call recorded: the callchain's first user entry stands
             * for the user stack (perf reads past the empty stack) */
            if (s->branch_nr == 0) {
                w->lbr_empty = true;
                if (w->chain_end < s->callchain_nr)
                    w->chain_end++;
            }
        }
    }
    if (corrupt_before(s, w->chain_end)) {
        w->discarded = true;
        w->chain_end = 0;
        w->lbr = false;
    }
}

void pv_frame_walk_stitch(pv_frame_walk *w, const uint64_t *entries, uint64_t nr)
{
    if (!w->deferred || w->discarded)
        return;
    for (uint64_t i = 0; i < nr; i++) {
        if (pv_callchain_is_marker(entries[i]) && pv_callchain_marker_cpumode(entries[i]) == 0) {
            w->discarded = true;
            w->chain_end = 0;
            return;
        }
    }
    w->stitched = entries;
    w->stitched_nr = nr;
}

bool pv_frame_walk_next(pv_frame_walk *w, pv_frame *out)
{
    const pv_sample *s = w->sample;
    while (w->next_entry < w->chain_end) {
        uint64_t v = pv_sample_u64_at(s, s->callchain, w->next_entry++);
        if (pv_callchain_is_marker(v)) {
            w->context = pv_callchain_marker_cpumode(v);
            continue;
        }
        *out = (pv_frame){ v, w->context, PV_ORIGIN_CALLCHAIN };
        return true;
    }
    while (w->next_stitched < w->stitched_nr) {
        uint64_t v = w->stitched[w->next_stitched++];
        if (pv_callchain_is_marker(v)) {
            w->context = pv_callchain_marker_cpumode(v);
            continue;
        }
        *out = (pv_frame){ v, w->context, PV_ORIGIN_DEFERRED };
        return true;
    }
    if (!w->lbr || w->lbr_empty || w->next_branch > s->branch_nr)
        return false;
    /* entries are {from, to, flags}: entry 0's to, then each from */
    uint64_t k = w->next_branch == 0 ? 0 : w->next_branch - 1;
    uint64_t word = w->next_branch == 0 ? 1 : 0;
    w->next_branch++;
    *out = (pv_frame){ pv_sample_u64_at(s, s->branches, k * 3 + word), PV_CPUMODE_USER,
                       PV_ORIGIN_LBR };
    return true;
}
