#include "symbols/symbolizer_internal.h"

#include "decode/callchain.h"
#include "format/features.h"
#include "unwind/inline_frames.h"
#include "symbols/demangle.h"
#include "symbols/stack_memo.h"
#include "base/pv_alloc.h"
#include "unwind/libdw_memory.h"

/* ---- DWARF stacks ---------------------------------------------------------- */

typedef struct unwind_lookup {
    pv_symbolizer *s;
    int32_t pid;
    uint64_t key;
} unwind_lookup;

/* The unwinder's view of a process: its maps at the sample's key, each with
 * the file its symbols come from (the recorded path, the sysroot's or the
 * build-id cache's copy). */
static bool unwind_find_map(void *ctx, uint64_t addr, pv_unwind_map *out)
{
    unwind_lookup *l = ctx;
    const pv_map *m = pv_sym_find_map(l->s, l->pid, addr, l->key);
    if (!m)
        return false;
    dso *d = &l->s->dsos[m->dso];
    if ((d->kind == DSO_ELF || d->kind == DSO_VDSO) && !d->loaded)
        pv_sym_load_dso(l->s, d);
    out->start = m->start;
    out->end = m->end;
    out->pgoff = m->pgoff;
    out->path = d->kind == DSO_ELF || d->kind == DSO_VDSO ? d->runtime_path : NULL;
    /* maps of the same dso left from before an exec or a fork count too */
    uint64_t lowest = pv_sym_lowest_start(l->s, l->pid, m->dso, l->key);
    out->perf_lowest_start = lowest == UINT64_MAX ? m->start : lowest;
    return true;
}

void pv_symbolizer_share_debug_cache(pv_symbolizer *s, pv_debug_cache *cache)
{
    if (s->own_debug_cache)
        pv_debug_cache_free(s->debug_cache);
    s->debug_cache = cache;
    s->own_debug_cache = false;
    if (s->unwinder)
        pv_unwinder_use_debug_cache(s->unwinder, cache);
    /* a new query: the files may have changed since the last one */
    pv_debug_cache_recheck(cache);
}

void pv_symbolizer_share_stack_memo(pv_symbolizer *s, struct pv_stack_memo *memo)
{
    s->stack_memo = memo;
    pv_stack_memo_begin(memo, s->sysroot, s->symdir);
}

/* The debug info of the file holding ip in the sample last unwound, and
 * ip at that file's addresses; NULL when there is none. */
static struct Dwfl_Module *debug_module(pv_symbolizer *s, uint64_t ip, uint64_t *file_addr)
{
    const char *path;
    if (!pv_unwinder_file_at(s->unwinder, ip, &path, file_addr))
        return NULL;
    return pv_debug_cache_module(s->debug_cache, path);
}

bool pv_symbolizer_has_dwarf_stack(const pv_sample *sample)
{
    uint64_t need = PV_SAMPLE_CALLCHAIN | PV_SAMPLE_REGS_USER | PV_SAMPLE_STACK_USER |
                    PV_SAMPLE_TID;
    return sample->attr_index >= 0 && (sample->sample_type & need) == need;
}

size_t pv_symbolizer_unwind(pv_symbolizer *s, const pv_sample *sample, uint64_t key,
                            pv_unwound_frame *frames, size_t max, char *names, size_t names_size)
{
    if (!pv_symbolizer_has_dwarf_stack(sample) || max == 0)
        return 0;
    /* the sample is the record pv_symbolizer_at readied */
    uint64_t record = s->readied_record;
    size_t nr = 0;
    if (s->stack_memo &&
        pv_stack_memo_get(s->stack_memo, record, key, frames, max, &nr, names, names_size))
        return nr;
    /* once stopped, no stack is unwound: each new process's session would
     * read its files' debug info again (the work fails: base/pv_stop.h) */
    if (pv_stop_said(pv_file_stop(s->file)))
        return 0;
    if (!s->unwinder) {
        char arch[64];
        s->unwinder = pv_unwinder_new(pv_feature_arch(s->file, arch, sizeof arch)
                                      ? arch : NULL);
        if (!s->unwinder)
            return 0;
        pv_unwinder_use_debug_cache(s->unwinder, pv_sym_debug_cache(s));
    }
    /* a stack built short of memory, or after a stop (debug info left
     * unread), is not remembered */
    unsigned long failures = pv_alloc_failures();
    pv_debug_cache_set_stop(s->debug_cache, pv_file_stop(s->file));
    unwind_lookup lookup = { s, (int32_t)sample->pid, key };
    pv_unwind_result res;
    size_t nr_ips = pv_unwind_sample(s->unwinder, sample, unwind_find_map, &lookup, s->user_ips,
                                     PV_UNWIND_DEFAULT_MAX_FRAMES, &res);
    pv_name_buf buf = { names, names_size, 0 };
    pv_inline_name inline_names[PV_INLINE_DEPTH];
    for (size_t i = 0; i < nr_ips && nr < max; i++) {
        uint64_t ip = s->user_ips[i];
        /* perf expands only a frame it has a symbol for */
        pv_location l;
        pv_symbolizer_resolve(s, (int32_t)sample->pid, key, PV_CPUMODE_USER, ip, &l);
        size_t n = 0;
        if (l.sym) {
            uint64_t file_addr = 0;
            pv_libdw_memory_begin();
            struct Dwfl_Module *mod = debug_module(s, ip, &file_addr);
            n = pv_inline_names(mod, file_addr, pv_demangle, &buf, inline_names,
                                PV_INLINE_DEPTH);
            const char *path;
            if (pv_libdw_out_of_memory()) {
                pv_alloc_count_failure();
                if (pv_unwinder_file_at(s->unwinder, ip, &path, &file_addr))
                    pv_debug_cache_forget(s->debug_cache, path);
            }
        }
        if (n == 0)
            frames[nr++] = (pv_unwound_frame){ ip, -1, 0 };
        /* only an inlined function keeps its debug-info name: the one
         * holding the code is the symbol's (pv_unwound_frame) */
        for (size_t j = 0; j < n && nr < max; j++)
            frames[nr++] = (pv_unwound_frame){ ip, inline_names[j].inlined ? inline_names[j].at : -1,
                                               (uint32_t)j };
    }
    if (s->stack_memo && pv_alloc_failures() == failures &&
        !pv_stop_said(pv_file_stop(s->file)))
        pv_stack_memo_put(s->stack_memo, record, key, frames, nr, max, names, names_size);
    pv_debug_cache_set_stop(s->debug_cache, NULL);
    return nr;
}

