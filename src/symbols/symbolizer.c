#include "symbols/symbolizer_internal.h"
#include "base/pv_alloc.h"
#include "base/pv_env.h"

#include <stdlib.h>
#include <string.h>

int pv_symbolizer_open(pv_file *f, const pv_symbol_paths *paths, pv_symbolizer **out,
                       pv_error *err)
{
    pv_symbolizer *s = pv_calloc(1, sizeof *s);
    if (!s)
        return pv_error_set(err, "%s: out of memory", f->path);
    s->file = f;
    s->timed = pv_sym_file_is_timed(f);
    /* a file keyed by ordinals replays from the start when a record
     * comes back, and a directory's streams order nothing until all are
     * read: neither drops exited processes' maps.  The environment keeps
     * them (tests: the twin that never drops) or sets the grace. */
    s->drop_exited = s->timed && f->nr_segments == 0 && !pv_env_flag("PERFVTAB_KEEP_EXITED_MAPS");
    s->exit_grace =
        (unsigned)pv_env_number("PERFVTAB_EXIT_GRACE_ROUNDS", 0, PV_EXIT_GRACE_ROUNDS);
    s->feed_every_record = pv_env_flag("PERFVTAB_FEED_EVERY_RECORD");
    pv_sym_ready_space(s);
    pv_symtab_init(&s->kallsyms);
    if (paths && paths->sysroot && *paths->sysroot && !(s->sysroot = pv_strdup(paths->sysroot))) {
        pv_symbolizer_free(s);
        return pv_error_set(err, "%s: out of memory", f->path);
    }
    if (paths && paths->symdir && *paths->symdir && !(s->symdir = pv_strdup(paths->symdir))) {
        pv_symbolizer_free(s);
        return pv_error_set(err, "%s: out of memory", f->path);
    }
    pv_build_id_iter it;
    if (pv_build_ids_start_feature(&it, f, err) || pv_sym_apply_build_ids(s, &it, err) < 0) {
        pv_symbolizer_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void pv_symbolizer_free(pv_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nr_dsos; i++)
        pv_sym_free_dso(&s->dsos[i]);
    free(s->dsos);
    free(s->dso_slots);
    if (s->feed.started)
        pv_walk_end(&s->feed.walk);
    free(s->feed.rounds);
    pv_aspace_free(&s->space);
    pv_symtab_free(&s->kallsyms);
    free(s->kallsyms_status);
    pv_symbol_cache_free(&s->symbol_cache);
    pv_unwinder_free(s->unwinder);
    if (s->own_debug_cache)
        pv_debug_cache_free(s->debug_cache);
    free(s->sysroot);
    free(s->symdir);
    free(s);
}

/* ---- lookups ------------------------------------------------------------ */

/* The symbol of the loaded dso d at its lookup address addr (for ELF
 * files, the address in the file's own layout; for the kernel, the ip)
 * into e. */
static void lookup_symbol(pv_symbolizer *s, dso *d, uint64_t addr, pv_symbol_cache_entry *e)
{
    e->sym = NULL;
    e->sym_offset = 0;
    if (d->kind == DSO_ELF || d->kind == DSO_VDSO) {
        if (d->status && d->tree.live == 0) {
            e->status = d->status;
            return;
        }
        int32_t node = pv_symtree_find(&d->tree, addr);
        if (node < 0) {
            e->status = "no symbol at this address";
            return;
        }
        e->sym = pv_symtree_name(&d->tree, node);
        e->sym_offset = addr - d->tree.nodes[node].start;
    } else {
        const pv_symtab *table = d->kind == DSO_KERNEL ? &s->kallsyms : &d->symbols;
        if (d->status && table->nr == 0) {
            e->status = d->status;
            return;
        }
        const pv_symbol *sym = pv_symtab_find(table, addr);
        if (!sym) {
            e->status = "no symbol at this address";
            return;
        }
        e->sym = pv_symbol_name(table, sym);
        e->sym_offset = addr - sym->start;
    }
    e->status = "ok";
}

void pv_symbolizer_resolve(pv_symbolizer *s, int32_t pid, uint64_t key, unsigned cpumode,
                           uint64_t ip, pv_location *out)
{
    memset(out, 0, sizeof *out);
    bool kernel = cpumode == CPUMODE_KERNEL || cpumode == CPUMODE_GUEST_KERNEL;
    if (!kernel && cpumode != CPUMODE_USER) {
        out->status = "no maps for this cpumode";
        return;
    }
    /* the map depends on the process and the key: looked up every time */
    const pv_map *m = pv_sym_find_map(s, kernel ? PV_KERNEL_PID : pid, ip, key);
    if (!m) {
        out->status = "no map holds the address";
        return;
    }
    dso *d = &s->dsos[m->dso];
    if (!d->loaded)
        pv_sym_load_dso(s, d);
    out->dso = d->name;
    if (d->kind == DSO_JITDUMP) {
        /* the code at an address changes over time: no cache */
        pv_symbol_cache_entry e;
        pv_sym_jit_lookup(d, m, ip, &e);
        out->dso_offset = ip - m->start;
        out->sym = e.sym;
        out->sym_offset = e.sym_offset;
        out->status = e.status;
        return;
    }
    out->dso_offset = d->identity_offsets ? ip : ip - m->start + m->pgoff;
    /* the symbol at an offset of a loaded dso (the kernel's: at an ip)
     * never changes: cached by it, before it is turned into the address
     * the symbols use; a dso left unloaded (the work stopped) is not */
    uint64_t at = d->kind == DSO_KERNEL ? ip : out->dso_offset;
    pv_symbol_cache_entry mine,
        *e = d->loaded ? pv_symbol_cache_slot(&s->symbol_cache, m->dso, at) : NULL;
    if (!e)
        e = &mine;
    if (e == &mine || !pv_symbol_cache_holds(e, m->dso, at)) {
        uint64_t addr = at;
        if (d->kind == DSO_ELF || d->kind == DSO_VDSO)
            addr = pv_elf_offset_to_vaddr(&d->image, out->dso_offset);
        lookup_symbol(s, d, addr, e);
        e->dso = m->dso;
        e->addr = at;
    }
    out->sym = e->sym;
    out->sym_offset = e->sym_offset;
    out->status = e->status;
}

bool pv_symbolizer_map(pv_symbolizer *s, int32_t pid, uint64_t key, unsigned cpumode,
                       uint64_t ip, pv_map_info *out)
{
    memset(out, 0, sizeof *out);
    bool kernel = cpumode == CPUMODE_KERNEL || cpumode == CPUMODE_GUEST_KERNEL;
    if (!kernel && cpumode != CPUMODE_USER)
        return false;
    const pv_map *m = pv_sym_find_map(s, kernel ? PV_KERNEL_PID : pid, ip, key);
    if (!m)
        return false;
    const dso *d = &s->dsos[m->dso];
    out->dso = d->name;
    out->start = m->start;
    out->end = m->end;
    out->pgoff = d->kind == DSO_JITDUMP ? 0 : m->pgoff;    /* its pgoff numbers a code load */
    out->build_id_len = d->build_id_len;
    memcpy(out->build_id, d->build_id, d->build_id_len);
    return true;
}

const char *pv_symbolizer_comm(pv_symbolizer *s, int32_t tid, uint64_t key)
{
    const char *comm = pv_aspace_comm(&s->space, tid, key);
    /* the idle task has no COMM record; perf calls it swapper */
    return comm || tid != 0 ? comm : "swapper";
}

