#include "symbols/sample_stack.h"

#include <string.h>

#include "decode/callchain.h"
#include "decode/deferred_chains.h"

/* The user part perf 7 stitches to a deferred chain, when it came. */
static void stitch(pv_sample_stack *st, pv_file *f, const pv_sample *s)
{
    const pv_deferred_chains *dc;
    const uint64_t *entries;
    uint64_t nr;
    if (pv_deferred_chains_get(f, &dc, &st->error)) {
        st->failed = true;
        return;
    }
    if (pv_deferred_chains_find(dc, s, st->walk.cookie, &entries, &nr) == 1)
        pv_frame_walk_stitch(&st->walk, entries, nr);
}

static void start(pv_sample_stack *st, pv_file *f, const pv_sample *s)
{
    st->sample = s;
    st->failed = false;
    st->nr_user = st->next_user = 0;
    pv_frame_walk_start(&st->walk, s);
    if (st->walk.deferred && !st->walk.discarded)
        stitch(st, f, s);
    /* no user stack for a missing or discarded chain, as in perf */
    st->unwound = !pv_frame_walk_allows_unwind(&st->walk) || !pv_symbolizer_has_dwarf_stack(s);
}

void pv_sample_stack_start(pv_sample_stack *st, pv_file *f, const pv_sample *s,
                           pv_symbolizer *sym, uint64_t key)
{
    st->ready = NULL;
    st->ready_ctx = NULL;
    st->sym = sym;
    st->key = key;
    start(st, f, s);
}

void pv_sample_stack_start_lazy(pv_sample_stack *st, pv_file *f, const pv_sample *s,
                                pv_stack_ready ready, void *ctx)
{
    st->ready = ready;
    st->ready_ctx = ctx;
    st->sym = NULL;
    st->key = 0;
    start(st, f, s);
}

int pv_sample_stack_fail(const pv_sample_stack *st, pv_error *err)
{
    if (err)
        *err = st->error;
    return -1;
}

int pv_sample_stack_next_unwound(pv_sample_stack *st, pv_stack_frame *out, pv_error *err)
{
    /* unwound once the walk's frames are read: their rows need no symbolizer */
    if (!st->unwound) {
        st->unwound = true;
        if (st->ready && st->ready(st->ready_ctx, &st->sym, &st->key, err))
            return -1;
        st->nr_user = pv_symbolizer_unwind(st->sym, st->sample, st->key, st->user_frames,
                                           PV_STACK_UNWOUND_ROWS, st->user_names,
                                           sizeof st->user_names);
    }
    if (st->next_user == st->nr_user)
        return 0;
    const pv_unwound_frame *f = &st->user_frames[st->next_user++];
    const char *inline_name = pv_unwound_inlined(f) ? st->user_names + f->name : NULL;
    *out = (pv_stack_frame){ f->pc, PV_CPUMODE_USER, PV_ORIGIN_DWARF, inline_name, f->level };
    return 1;
}

void pv_sample_stack_locate(const pv_sample_stack *st, const pv_stack_frame *f, pv_location *out)
{
    pv_symbolizer_resolve(st->sym, (int32_t)st->sample->pid, st->key, f->cpumode, f->ip, out);
    out->sym = pv_stack_frame_name(f, out);
}
