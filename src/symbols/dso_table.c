#include "symbols/symbolizer_internal.h"
#include "base/pv_alloc.h"
#include "base/byte_hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------- */

char *pv_sym_dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *out = NULL;
    if (pv_vasprintf(&out, fmt, ap) < 0)
        out = NULL;
    va_end(ap);
    return out;
}

/* ---- the dso table ------------------------------------------------------- */

static bool starts_with(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static bool is_anon(const char *name, size_t n)
{
    return starts_with(name, n, "//anon") || starts_with(name, n, "/dev/zero") ||
           starts_with(name, n, "/anon_hugepage");
}

/* Memory perf maps with addresses for offsets (its identity maps):
 * anonymous memory (JIT), the stacks, the heap and /vmap areas; perf
 * prints their addresses as they are. */
bool pv_sym_offsets_are_addresses(const char *name, bool jit)
{
    size_t n = strlen(name);
    return jit || is_anon(name, n) || starts_with(name, n, "[stack") ||
           starts_with(name, n, "/vmap") || strcmp(name, "[heap]") == 0;
}

/* perf's name of a kernel-side map: [kernel.kallsyms] for the kernel's
 * text, [module] for a module's file or bracketed name. */
char *pv_sym_kernel_dso_name(const char *filename, size_t n)
{
    if (starts_with(filename, n, "[kernel.kallsyms]") || n == 0)
        return pv_strdup("[kernel.kallsyms]");
    if (filename[0] == '[')
        return pv_strndup(filename, n);
    const char *base = filename;
    for (size_t i = 0; i < n; i++)
        if (filename[i] == '/')
            base = filename + i + 1;
    size_t len = (size_t)(filename + n - base);
    const char *dot = memchr(base, '.', len);
    if (dot)
        len = (size_t)(dot - base);
    char *out = pv_malloc(len + 3);
    if (!out)
        return NULL;
    out[0] = '[';
    for (size_t i = 0; i < len; i++)
        out[i + 1] = base[i] == '-' ? '_' : base[i];
    out[len + 1] = ']';
    out[len + 2] = 0;
    return out;
}

void pv_sym_free_dso(dso *d)
{
    free(d->name);
    free(d->status);
    free(d->runtime_path);
    if (d->jit)
        pv_jitdump_free(d->jit);
    free(d->jit);
    pv_symtab_free(&d->symbols);
    pv_symtree_free(&d->tree);
}

/* The dso for a map's name, created on first sight; UINT32_MAX on OOM. */
uint32_t pv_sym_intern_dso(pv_symbolizer *s, char *name, dso_kind kind, bool kernel_side,
                           int32_t pid)
{
    if (!name)
        return UINT32_MAX;
    size_t n = strlen(name);
    if ((s->nr_dsos + 1) * 2 > s->nr_dso_slots) {
        size_t slots = s->nr_dso_slots ? s->nr_dso_slots * 2 : 256;
        uint32_t *table = pv_malloc(slots * sizeof *table);
        if (!table) {
            free(name);
            return UINT32_MAX;
        }
        memset(table, 0xff, slots * sizeof *table);
        for (size_t i = 0; i < s->nr_dsos; i++) {
            const char *other = s->dsos[i].name;
            size_t j = pv_fnv1a(PV_FNV1A_START, other, strlen(other)) & (slots - 1);
            while (table[j] != UINT32_MAX)
                j = (j + 1) & (slots - 1);
            table[j] = (uint32_t)i;
        }
        free(s->dso_slots);
        s->dso_slots = table;
        s->nr_dso_slots = slots;
    }
    size_t j = pv_fnv1a(PV_FNV1A_START, name, n) & (s->nr_dso_slots - 1);
    while (s->dso_slots[j] != UINT32_MAX) {
        const dso *d = &s->dsos[s->dso_slots[j]];
        if (strcmp(d->name, name) == 0 && d->kernel_side == kernel_side) {
            free(name);
            return s->dso_slots[j];
        }
        j = (j + 1) & (s->nr_dso_slots - 1);
    }
    if (s->nr_dsos >= s->cap_dsos) {
        size_t cap = s->cap_dsos ? s->cap_dsos * 2 : 64;
        dso *p = pv_realloc(s->dsos, cap * sizeof *p);
        if (!p) {
            free(name);
            return UINT32_MAX;
        }
        s->dsos = p;
        s->cap_dsos = cap;
    }
    dso *d = &s->dsos[s->nr_dsos];
    memset(d, 0, sizeof *d);
    pv_symtree_init(&d->tree);
    d->name = name;
    d->kind = kind;
    d->kernel_side = kernel_side;
    d->pid = pid;
    s->dso_slots[j] = (uint32_t)s->nr_dsos;
    return (uint32_t)s->nr_dsos++;
}

/* exec: the map's memory is executable (perf names executable anonymous,
 * stack and heap memory after the process's JIT map file, the rest as
 * recorded). */
uint32_t pv_sym_dso_for_map(pv_symbolizer *s, int32_t pid, unsigned cpumode, const char *filename,
                            size_t n, bool exec)
{
    bool kernel_side = pid == PV_KERNEL_PID || cpumode == CPUMODE_KERNEL ||
                       cpumode == CPUMODE_GUEST_KERNEL;
    if (kernel_side)
        return pv_sym_intern_dso(s, pv_sym_kernel_dso_name(filename, n), DSO_KERNEL, true, -1);
    if (pv_jitdump_path_matches(filename, n, pid))
        return pv_sym_intern_dso(s, pv_strndup(filename, n), DSO_JITDUMP, false, pid);
    if (exec && (is_anon(filename, n) || starts_with(filename, n, "[stack") ||
                 starts_with(filename, n, "/vmap") || (n == 6 && !memcmp(filename, "[heap]", 6))))
        return pv_sym_intern_dso(s, pv_sym_dup_printf("/tmp/perf-%d.map", pid), DSO_JIT, false, pid);
    if (is_anon(filename, n))
        return pv_sym_intern_dso(s, pv_strndup(filename, n), DSO_NONE, false, -1);
    if (n == 6 && memcmp(filename, "[vdso]", 6) == 0)
        return pv_sym_intern_dso(s, pv_strdup("[vdso]"), DSO_VDSO, false, -1);
    dso_kind kind = filename[0] == '/' ? DSO_ELF : DSO_NONE;
    return pv_sym_intern_dso(s, pv_strndup(filename, n), kind, false, -1);
}

dso *pv_sym_find_dso_by_name(pv_symbolizer *s, const char *name, size_t n, bool kernel_side)
{
    if (!s->nr_dso_slots)
        return NULL;
    size_t j = pv_fnv1a(PV_FNV1A_START, name, n) & (s->nr_dso_slots - 1);
    while (s->dso_slots[j] != UINT32_MAX) {
        dso *d = &s->dsos[s->dso_slots[j]];
        if (strlen(d->name) == n && memcmp(d->name, name, n) == 0 && d->kernel_side == kernel_side)
            return d;
        j = (j + 1) & (s->nr_dso_slots - 1);
    }
    return NULL;
}

void pv_sym_set_build_id(dso *d, const uint8_t *id, uint8_t len)
{
    if (!d || len == 0 || len > PV_BUILD_ID_MAX)
        return;
    memcpy(d->build_id, id, len);
    d->build_id_len = len;
}

