/*
 * JIT code named from a runtime's jitdump, as `perf inject --jit` and then
 * perf report name it, without rewriting the recording.
 *
 * perf inject meets the MMAP of jit-PID.dump, reads the file and puts in
 * its place one MMAP2 per code load (and move), timed as the jitdump timed
 * the load, of an ELF image it writes holding that one function; perf
 * report then sorts them among the samples.  Here the same maps go into
 * the address space (addr_space.h), each pointing at the jitdump's dso
 * with its code's number for pgoff, so that the map a sample's ip falls in
 * at its time is the load perf would have shown, overlaps and reused
 * addresses included; the code's name and line entries answer the rest.
 *
 * Where the file is looked for (the first that is a jitdump of the
 * recorded process): in the symbol directory (perf_symbol_path's second
 * argument) by its name, under the sysroot at its recorded path, beside
 * the recording by its name, at its recorded path (when no sysroot is set,
 * as for ELF files).
 */
#include "symbols/symbolizer_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/pv_alloc.h"

#define ATTR_USE_CLOCKID 25     /* perf_event_attr's use_clockid bit */

/* perf inject refuses to match jitdump times to samples unless every event
 * was recorded on CLOCK_MONOTONIC (perf record -k 1), the jitdump's clock. */
static bool recorded_on_monotonic(const pv_file *f)
{
    for (size_t i = 0; i < f->nr_attrs; i++)
        if (!pv_attr_flag(&f->attrs[i], ATTR_USE_CLOCKID) || f->attrs[i].clockid != CLOCK_MONOTONIC)
            return false;
    return f->nr_attrs > 0;
}

int pv_sym_load_jitdump(pv_symbolizer *s, dso *d, pv_error *err)
{
    if (d->loaded)
        return 0;
    pv_jitdump *j = pv_malloc(sizeof *j);
    if (!j)
        return pv_error_set(err, "%s: out of memory reading %s", s->file->path, d->name);
    char path[4096], why[1200];
    int rc = pv_jitdump_find(s->file->path, s->sysroot, s->symdir, d->name, d->pid,
                             pv_file_stop(s->file), j, path, sizeof path, why, sizeof why, err);
    if (rc != 0) {
        free(j);
        if (rc == -3)
            return -1;  /* not loaded: a later query reads it */
        d->loaded = true;
        if (rc == -2)
            return pv_error_set(err, "%s: out of memory reading %s", s->file->path, d->name);
        d->status = pv_sym_dup_printf("jitdump not found or unusable: %s", why);
        return 0;
    }
    d->loaded = true;
    d->runtime_path = pv_strdup(path);
    if (j->flags & PV_JITDUMP_ARCH_TIMESTAMP)
        d->status = pv_sym_dup_printf("jitdump %s has architecture timestamps (TSC), which "
                                      "perfvtab does not convert", path);
    else if (!recorded_on_monotonic(s->file))
        d->status = pv_sym_dup_printf("jitdump %s: the recording is not on CLOCK_MONOTONIC "
                                      "(perf record -k 1), so its times cannot be matched", path);
    if (d->status) {
        pv_jitdump_free(j);
        free(j);
        return 0;
    }
    d->jit = j;
    return 0;
}

int pv_sym_feed_jitdump(pv_symbolizer *s, dso *d, uint32_t dso_number, uint64_t mmap_key,
                        pv_error *err)
{
    if (pv_sym_load_jitdump(s, d, err))
        return -1;
    if (!d->jit)
        return 0;
    if (d->jit_fed)
        return 1;
    d->jit_fed = true;
    for (size_t i = 0; i < d->jit->nr_codes; i++) {
        const pv_jit_code *c = &d->jit->codes[i];
        /* in a file without times every record is keyed by its ordinal:
         * the loads count from the jitdump's map on, the later winning */
        uint64_t key = s->timed ? c->time : mmap_key;
        pv_aspace_add_mmap(&s->space, key, (int32_t)c->pid, c->start, c->map_len, i, dso_number);
    }
    return 1;
}

void pv_sym_jit_lookup(const dso *d, const pv_map *m, uint64_t ip, pv_symbol_cache_entry *e)
{
    e->sym = NULL;
    e->sym_offset = 0;
    if (!d->jit || m->pgoff >= d->jit->nr_codes) {
        e->status = d->status ? d->status : "no symbol at this address";
        return;
    }
    const pv_jit_code *c = &d->jit->codes[m->pgoff];
    uint64_t offset = ip - c->start;   /* the map starts where its code does */
    /* the unwinding data perf inject maps after the code has no symbol */
    if (offset >= c->code_size) {
        e->status = "no symbol at this address";
        return;
    }
    e->sym = pv_jit_code_name(d->jit, c);
    e->sym_offset = offset;
    e->status = "ok";
}

bool pv_sym_jit_source_line(const dso *d, const pv_map *m, uint64_t ip, unsigned level, char *file,
                            size_t file_size, uint64_t *line)
{
    if (!d->jit || level != 0 || m->pgoff >= d->jit->nr_codes)
        return false;
    const pv_jit_code *c = &d->jit->codes[m->pgoff];
    const pv_jit_line *l = pv_jitdump_line(d->jit, c, ip - c->start + c->line_base);
    if (!l || l->line == 0 || l->file == PV_JIT_NO_FILE)
        return false;
    snprintf(file, file_size, "%s", d->jit->names + l->file);
    *line = l->line;
    return true;
}
