#include "symbols/symbolizer_internal.h"

#include "unwind/line_table.h"
#include "unwind/source_lines.h"
#include "base/pv_alloc.h"
#include "unwind/libdw_memory.h"

/* The debug info of the files, the caller's cache (shared by the queries
 * of a connection) or, made on first use, the symbolizer's own. */
pv_debug_cache *pv_sym_debug_cache(pv_symbolizer *s)
{
    if (!s->debug_cache) {
        s->debug_cache = pv_debug_cache_new(0);
        s->own_debug_cache = s->debug_cache != NULL;
    }
    return s->debug_cache;
}

bool pv_symbolizer_source_line(pv_symbolizer *s, int32_t pid, uint64_t key, unsigned cpumode,
                               uint64_t ip, unsigned level, char *file, size_t file_size,
                               uint64_t *line)
{
    if (cpumode != CPUMODE_USER || file_size == 0)
        return false;
    const pv_map *m = pv_sym_find_map(s, pid, ip, key);
    if (!m)
        return false;
    dso *d = &s->dsos[m->dso];
    if (d->kind == DSO_JITDUMP)
        return pv_sym_jit_source_line(d, m, ip, level, file, file_size, line);
    if (d->kind != DSO_ELF)
        return false;   /* the vdso's copies carry no debug info */
    if (!d->loaded)
        pv_sym_load_dso(s, d);
    if (!d->runtime_path)
        return false;
    /* the address in the file's own layout, as symbols are looked up */
    uint64_t dso_offset = d->identity_offsets ? ip : ip - m->start + m->pgoff;
    uint64_t file_addr = pv_elf_offset_to_vaddr(&d->image, dso_offset);
    /* libdw reads the line tables on first use: where that ran out of
     * memory (its malloc's ENOMEM), the tables it keeps may be short, so
     * the lookup fails the query (base/pv_alloc.h) and the file is read
     * afresh next time */
    /* the code's own line, from the compact tables (unwind/line_table.h):
     * libdw's memory for them is gone once they are copied */
    pv_debug_cache *cache = pv_sym_debug_cache(s);
    /* no debug file read once the work is stopped (debug_cache.h) */
    pv_debug_cache_set_stop(cache, pv_file_stop(s->file));
    if (level == 0) {
        bool found = pv_line_table_find(pv_debug_cache_lines(cache, d->runtime_path), file_addr,
                                        file, file_size, line);
        pv_debug_cache_set_stop(cache, NULL);
        return found;
    }
    pv_libdw_memory_begin();
    struct Dwfl_Module *mod = pv_debug_cache_module(cache, d->runtime_path);
    pv_debug_cache_set_stop(cache, NULL);
    bool found = pv_source_line_at(mod, file_addr, level, file, file_size, line);
    if (pv_libdw_out_of_memory()) {
        pv_alloc_count_failure();
        pv_debug_cache_forget(pv_sym_debug_cache(s), d->runtime_path);
    }
    return found;
}
