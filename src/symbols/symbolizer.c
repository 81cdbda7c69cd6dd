#include "symbols/symbolizer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "symbols/addr_space.h"
#include "format/build_ids.h"
#include "decode/callchain.h"
#include "unwind/dwarf_unwind.h"
#include "symbols/elf_image.h"
#include "format/features.h"
#include "unwind/inline_frames.h"
#include "symbols/kcore_dir.h"
#include "format/perf_abi.h"
#include "base/pv_strbuf.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
#include "decode/sample.h"
#include "symbols/symbol_cache.h"
#include "symbols/symtab.h"

/* Paths are built in PATH_MAX-sized buffers; one cut short names no file,
 * which the lookups then report as not found. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

enum { CPUMODE_KERNEL = 1, CPUMODE_USER = 2, CPUMODE_GUEST_KERNEL = 4 };

typedef enum { DSO_ELF, DSO_KERNEL, DSO_VDSO, DSO_JIT, DSO_NONE } dso_kind;

typedef struct dso {
    char *name;             /* as perf names it */
    dso_kind kind;
    bool kernel_side;       /* mapped by pid -1 */
    int32_t pid;            /* DSO_JIT: whose map file */
    uint8_t build_id[PV_BUILD_ID_MAX];
    uint8_t build_id_len;   /* 0: the recording has none */
    bool loaded;
    bool identity_offsets;  /* once loaded: offsets_are_addresses() */
    pv_symtree tree;        /* DSO_ELF, DSO_VDSO */
    pv_symtab symbols;      /* DSO_JIT; DSO_KERNEL uses the symbolizer's kallsyms */
    pv_elf_image image;     /* DSO_ELF, DSO_VDSO: offsets -> addresses */
    char *status;           /* "ok" or why there are no symbols */
    char *runtime_path;     /* DSO_ELF, DSO_VDSO: the file found for it, or NULL */
} dso;

/* The records ahead of the scan that feed the address space: by perf's
 * rule (the events of a round may sort before those of the round before
 * it, never before those of the round before that), every map event that
 * sorts before a record lies before the second FINISHED_ROUND after it. */
typedef struct map_feed {
    pv_walk walk;
    bool started, done;
    uint64_t next_index;        /* every record before it has been fed */
    uint64_t last_round, round_before;  /* the last two FINISHED_ROUNDs fed */
    unsigned nr_rounds;         /* fed, up to 2 */
    uint64_t consumer;          /* the record the last lookups were for */
} map_feed;

struct pv_symbolizer {
    pv_file *file;
    char *sysroot, *symdir;
    bool timed;
    pv_aspace space;
    map_feed feed;
    dso *dsos;
    size_t nr_dsos, cap_dsos;
    /* name -> dso index, open addressing, used while walking */
    uint32_t *dso_slots;
    size_t nr_dso_slots;

    bool kallsyms_loaded;
    pv_symtab kallsyms;
    char *kallsyms_status;

    /* symbol lookups by (dso, address), see symbol_cache.h */
    pv_symbol_cache symbol_cache;

    /* DWARF stacks: made on the first sample that has one */
    pv_unwinder *unwinder;
    uint64_t user_ips[PV_UNWIND_DEFAULT_MAX_FRAMES];
};

/* ---- helpers -------------------------------------------------------------- */

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *out = NULL;
    if (vasprintf(&out, fmt, ap) < 0)
        out = NULL;
    va_end(ap);
    return out;
}

static void hex(const uint8_t *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = 0;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* perf's build-id cache: $HOME/.debug (perf sets PERF_BUILDID_DIR for its
 * scripts but does not read it) */
static const char *buildid_dir(char *buf, size_t size)
{
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    snprintf(buf, size, "%s/.debug", home);
    return buf;
}

static uint64_t hash_name(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211u;
    return h;
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
static bool offsets_are_addresses(const char *name, bool jit)
{
    size_t n = strlen(name);
    return jit || is_anon(name, n) || starts_with(name, n, "[stack") ||
           starts_with(name, n, "/vmap") || strcmp(name, "[heap]") == 0;
}

/* perf's name of a kernel-side map: [kernel.kallsyms] for the kernel's
 * text, [module] for a module's file or bracketed name. */
static char *kernel_dso_name(const char *filename, size_t n)
{
    if (starts_with(filename, n, "[kernel.kallsyms]") || n == 0)
        return strdup("[kernel.kallsyms]");
    if (filename[0] == '[')
        return strndup(filename, n);
    const char *base = filename;
    for (size_t i = 0; i < n; i++)
        if (filename[i] == '/')
            base = filename + i + 1;
    size_t len = (size_t)(filename + n - base);
    const char *dot = memchr(base, '.', len);
    if (dot)
        len = (size_t)(dot - base);
    char *out = malloc(len + 3);
    if (!out)
        return NULL;
    out[0] = '[';
    for (size_t i = 0; i < len; i++)
        out[i + 1] = base[i] == '-' ? '_' : base[i];
    out[len + 1] = ']';
    out[len + 2] = 0;
    return out;
}

static void free_dso(dso *d)
{
    free(d->name);
    free(d->status);
    free(d->runtime_path);
    pv_symtab_free(&d->symbols);
    pv_symtree_free(&d->tree);
}

/* The dso for a map's name, created on first sight; UINT32_MAX on OOM. */
static uint32_t intern_dso(pv_symbolizer *s, char *name, dso_kind kind, bool kernel_side,
                           int32_t pid)
{
    if (!name)
        return UINT32_MAX;
    size_t n = strlen(name);
    if ((s->nr_dsos + 1) * 2 > s->nr_dso_slots) {
        size_t slots = s->nr_dso_slots ? s->nr_dso_slots * 2 : 256;
        uint32_t *table = malloc(slots * sizeof *table);
        if (!table) {
            free(name);
            return UINT32_MAX;
        }
        memset(table, 0xff, slots * sizeof *table);
        for (size_t i = 0; i < s->nr_dsos; i++) {
            size_t j = hash_name(s->dsos[i].name, strlen(s->dsos[i].name)) & (slots - 1);
            while (table[j] != UINT32_MAX)
                j = (j + 1) & (slots - 1);
            table[j] = (uint32_t)i;
        }
        free(s->dso_slots);
        s->dso_slots = table;
        s->nr_dso_slots = slots;
    }
    size_t j = hash_name(name, n) & (s->nr_dso_slots - 1);
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
        dso *p = realloc(s->dsos, cap * sizeof *p);
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
static uint32_t dso_for_map(pv_symbolizer *s, int32_t pid, unsigned cpumode, const char *filename,
                            size_t n, bool exec)
{
    bool kernel_side = pid == PV_KERNEL_PID || cpumode == CPUMODE_KERNEL ||
                       cpumode == CPUMODE_GUEST_KERNEL;
    if (kernel_side)
        return intern_dso(s, kernel_dso_name(filename, n), DSO_KERNEL, true, -1);
    if (exec && (is_anon(filename, n) || starts_with(filename, n, "[stack") ||
                 starts_with(filename, n, "/vmap") || (n == 6 && !memcmp(filename, "[heap]", 6))))
        return intern_dso(s, dup_printf("/tmp/perf-%d.map", pid), DSO_JIT, false, pid);
    if (is_anon(filename, n))
        return intern_dso(s, strndup(filename, n), DSO_NONE, false, -1);
    if (n == 6 && memcmp(filename, "[vdso]", 6) == 0)
        return intern_dso(s, strdup("[vdso]"), DSO_VDSO, false, -1);
    dso_kind kind = filename[0] == '/' ? DSO_ELF : DSO_NONE;
    return intern_dso(s, strndup(filename, n), kind, false, -1);
}

static dso *find_dso_by_name(pv_symbolizer *s, const char *name, size_t n, bool kernel_side)
{
    if (!s->nr_dso_slots)
        return NULL;
    size_t j = hash_name(name, n) & (s->nr_dso_slots - 1);
    while (s->dso_slots[j] != UINT32_MAX) {
        dso *d = &s->dsos[s->dso_slots[j]];
        if (strlen(d->name) == n && memcmp(d->name, name, n) == 0 && d->kernel_side == kernel_side)
            return d;
        j = (j + 1) & (s->nr_dso_slots - 1);
    }
    return NULL;
}

static void set_build_id(dso *d, const uint8_t *id, uint8_t len)
{
    if (!d || len == 0 || len > PV_BUILD_ID_MAX)
        return;
    memcpy(d->build_id, id, len);
    d->build_id_len = len;
}

/* ---- walking the records --------------------------------------------------- */

static bool file_is_timed(const pv_file *f)
{
    if (f->nr_attrs == 0)
        return false;
    for (size_t i = 0; i < f->nr_attrs; i++)
        if (!(f->attrs[i].sample_type & PV_SAMPLE_TIME) ||
            !pv_attr_flag(&f->attrs[i], PV_ATTR_SAMPLE_ID_ALL))
            return false;
    return true;
}

static uint64_t key_of(const pv_symbolizer *s, uint64_t record_index, bool has_time,
                       uint64_t time)
{
    return s->timed && has_time ? time : record_index;
}

static uint64_t record_key(const pv_symbolizer *s, const pv_record *r, const pv_sample_id *t)
{
    return key_of(s, r->index, (t->fields & PV_SAMPLE_TIME) != 0, t->time);
}

static int add_mmap(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    pv_file *f = s->file;
    pv_rec_mmap m;
    if (pv_rec_mmap_decode(f, r, &m, err))
        return -1;
    int32_t pid = (int32_t)m.pid;
    /* MMAP has no prot: perf takes its maps as executable unless marked data */
    bool exec = m.mmap2 ? (m.prot & 4 /* PROT_EXEC */) != 0 : !(r->misc & PV_MISC_MMAP_DATA);
    uint32_t d = dso_for_map(s, pid, r->misc & PV_MISC_CPUMODE_MASK, m.filename,
                             (size_t)m.filename_len, exec);
    if (d == UINT32_MAX)
        return pv_error_set(err, "%s: out of memory reading maps", f->path);
    if (m.has_build_id)
        set_build_id(&s->dsos[d], m.build_id, m.build_id_size);
    bool kernel_side = s->dsos[d].kernel_side;
    pv_aspace_add_mmap(&s->space, record_key(s, r, &m.trailer), kernel_side ? PV_KERNEL_PID : pid,
                       m.start, m.len, m.pgoff, d);
    return 0;
}

static int add_comm(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    pv_rec_comm c;
    if (pv_rec_comm_decode(s->file, r, &c, err))
        return -1;
    pv_aspace_add_comm(&s->space, record_key(s, r, &c.trailer), (int32_t)c.pid, (int32_t)c.tid,
                       c.comm, (size_t)c.comm_len, c.exec);
    return 0;
}

static int add_fork(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    pv_rec_task t;
    if (pv_rec_task_decode(s->file, r, &t, err))
        return -1;
    pv_aspace_add_fork(&s->space, record_key(s, r, &t.trailer), (int32_t)t.pid, (int32_t)t.ppid,
                       (int32_t)t.tid, (int32_t)t.ptid);
    return 0;
}

/* Build-ids the recording lists (the BUILD_ID feature, or HEADER_BUILD_ID
 * records in pipe mode) go to the dsos of that name. */
static int apply_build_ids(pv_symbolizer *s, pv_build_id_iter *it, pv_error *err)
{
    pv_build_id b;
    int rc;
    while ((rc = pv_build_ids_next(it, &b, err)) == 1) {
        unsigned cpumode = b.misc & PV_MISC_CPUMODE_MASK;
        bool kernel_side = cpumode == CPUMODE_KERNEL || cpumode == CPUMODE_GUEST_KERNEL;
        /* the dso is made now when its maps come later in the stream */
        uint32_t d = kernel_side
                         ? intern_dso(s, kernel_dso_name(b.filename, (size_t)b.filename_len),
                                      DSO_KERNEL, true, -1)
                         /* b.pid is the machine's (-1: the host), not a process */
                         : dso_for_map(s, 0, CPUMODE_USER, b.filename, (size_t)b.filename_len,
                                       false);
        if (d == UINT32_MAX)
            return pv_error_set(err, "%s: out of memory", s->file->path);
        if (s->dsos[d].build_id_len == 0)
            set_build_id(&s->dsos[d], b.id, b.id_len);
    }
    return rc;
}

static int feed_record(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    switch (r->type) {
    case PV_RECORD_MMAP:
    case PV_RECORD_MMAP2:
        return add_mmap(s, r, err);
    case PV_RECORD_COMM:
        return add_comm(s, r, err);
    case PV_RECORD_FORK:
        return add_fork(s, r, err);
    case PV_RECORD_HEADER_BUILD_ID: {
        pv_build_id_iter it;
        pv_build_ids_start_record(&it, s->file, r);
        return apply_build_ids(s, &it, err) < 0 ? -1 : 0;
    }
    case PV_RECORD_FINISHED_ROUND:
        s->feed.round_before = s->feed.last_round;
        s->feed.last_round = r->index;
        if (s->feed.nr_rounds < 2)
            s->feed.nr_rounds++;
        return 0;
    default:
        return 0;
    }
}

/* Whether the feed has read far enough for lookups of record index. */
static bool fed_enough(const pv_symbolizer *s, uint64_t index)
{
    const map_feed *m = &s->feed;
    if (m->done)
        return true;
    /* untimed records are keyed by their ordinals, so what precedes them
     * is all they need; a directory's data.N files each run through the
     * whole recording, so only all of them orders anything */
    if (!s->timed)
        return m->next_index > index;
    if (s->file->nr_segments)
        return false;
    return m->nr_rounds == 2 && m->round_before > index;
}

static int feed_until(pv_symbolizer *s, uint64_t index, pv_error *err)
{
    map_feed *m = &s->feed;
    if (!m->started) {
        pv_walk_start(&m->walk, s->file);
        m->started = true;
    }
    pv_record r;
    while (!fed_enough(s, index)) {
        int rc = pv_walk_next(&m->walk, &r, err);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            m->done = true;
            break;
        }
        m->next_index = r.index + 1;
        if (feed_record(s, &r, err) < 0)
            return -1;
    }
    return 0;
}

/* Back to the start of the stream; the dsos and their symbols stay. */
static void restart_feed(pv_symbolizer *s)
{
    if (s->feed.started)
        pv_walk_end(&s->feed.walk);
    memset(&s->feed, 0, sizeof s->feed);
    pv_aspace_free(&s->space);
    pv_aspace_init(&s->space);
}

int pv_symbolizer_at(pv_symbolizer *s, uint64_t record_index, bool has_time, uint64_t time,
                     uint64_t *key, pv_error *err)
{
    *key = key_of(s, record_index, has_time, time);
    if (record_index < s->feed.consumer)
        restart_feed(s);
    s->feed.consumer = record_index;
    if (feed_until(s, record_index, err))
        return -1;
    if (!pv_aspace_apply(&s->space, *key))
        return pv_error_set(err, "%s: out of memory building address spaces", s->file->path);
    return 0;
}

int pv_symbolizer_open(pv_file *f, const pv_symbol_paths *paths, pv_symbolizer **out,
                       pv_error *err)
{
    pv_symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return pv_error_set(err, "%s: out of memory", f->path);
    s->file = f;
    s->timed = file_is_timed(f);
    pv_aspace_init(&s->space);
    pv_symtab_init(&s->kallsyms);
    if (paths && paths->sysroot && *paths->sysroot)
        s->sysroot = strdup(paths->sysroot);
    if (paths && paths->symdir && *paths->symdir)
        s->symdir = strdup(paths->symdir);
    pv_build_id_iter it;
    if (pv_build_ids_start_feature(&it, f, err) || apply_build_ids(s, &it, err) < 0) {
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
        free_dso(&s->dsos[i]);
    free(s->dsos);
    free(s->dso_slots);
    if (s->feed.started)
        pv_walk_end(&s->feed.walk);
    pv_aspace_free(&s->space);
    pv_symtab_free(&s->kallsyms);
    free(s->kallsyms_status);
    pv_symbol_cache_free(&s->symbol_cache);
    pv_unwinder_free(s->unwinder);
    free(s->sysroot);
    free(s->symdir);
    free(s);
}

/* ---- loading symbols ------------------------------------------------------- */

static bool same_build_id(const dso *d, const pv_elf_image *img)
{
    return d->build_id_len == 0 ||
           (img->build_id_len >= d->build_id_len &&
            memcmp(img->build_id, d->build_id, d->build_id_len) == 0);
}

/* <dir>/.build-id/xx/yyyy<suffix> */
static void build_id_path(char *out, size_t size, const char *dir, const dso *d, const char *suffix)
{
    char h[2 * PV_BUILD_ID_MAX + 1];
    /* the recording's id, else (debug files) the one of the image found */
    if (d->build_id_len)
        hex(d->build_id, d->build_id_len, h);
    else
        hex(d->image.build_id, d->image.build_id_len, h);
    snprintf(out, size, "%s/.build-id/%.2s/%s%s", dir, h, h + 2, suffix);
}

/* The running image: the recorded path if its build-id matches, else a
 * build-id cache copy.  Sets d->image; returns its path or NULL (status set). */
static bool find_runtime_image(pv_symbolizer *s, dso *d, char *path, size_t size)
{
    char why[512] = "";
    char mismatch[600] = "";
    char cache[4096];
    const char *cache_dir = buildid_dir(cache, sizeof cache);
    char candidates[4][4096];
    int n = 0;
    snprintf(candidates[n++], sizeof candidates[0], "%s%s", s->sysroot ? s->sysroot : "", d->name);
    if (d->build_id_len) {
        if (s->symdir)
            build_id_path(candidates[n++], sizeof candidates[0], s->symdir, d, "");
        if (cache_dir) {
            build_id_path(candidates[n++], sizeof candidates[0], cache_dir, d,
                          d->kind == DSO_VDSO ? "/vdso" : "/elf");
            build_id_path(candidates[n++], sizeof candidates[0], cache_dir, d, "");
        }
    }
    for (int i = 0; i < n; i++) {
        if (d->kind == DSO_VDSO && i == 0)
            continue;   /* "[vdso]" is no path */
        if (!is_file(candidates[i]))
            continue;
        pv_elf_image img;
        if (!pv_elf_probe(candidates[i], &img, why, sizeof why))
            continue;
        if (!same_build_id(d, &img)) {
            if (!mismatch[0]) {
                char want[41], have[41];
                hex(d->build_id, d->build_id_len, want);
                hex(img.build_id, img.build_id_len, have);
                snprintf(mismatch, sizeof mismatch, "build-id mismatch: %s has %s, the recording %s",
                         candidates[i], img.build_id_len ? have : "none", want);
            }
            continue;
        }
        d->image = img;
        snprintf(path, size, "%s", candidates[i]);
        free(d->runtime_path);
        d->runtime_path = strdup(candidates[i]);
        return true;
    }
    if (mismatch[0])
        d->status = strdup(mismatch);
    else if (why[0])
        d->status = strdup(why);
    else
        d->status = dup_printf("not found: %s%s", s->sysroot ? s->sysroot : "", d->name);
    return false;
}

/* A separate debug file with a .symtab for d, or false. */
static bool find_debug_file(pv_symbolizer *s, dso *d, const char *runtime, char *path, size_t size)
{
    char candidates[8][4096];
    int n = 0;
    char cache[4096];
    const char *cache_dir = buildid_dir(cache, sizeof cache);
    if (d->build_id_len || d->image.build_id_len) {
        if (s->symdir)
            build_id_path(candidates[n++], sizeof candidates[0], s->symdir, d, ".debug");
        char system_debug[4096];
        snprintf(system_debug, sizeof system_debug, "%s/usr/lib/debug", s->sysroot ? s->sysroot : "");
        build_id_path(candidates[n++], sizeof candidates[0], system_debug, d, ".debug");
        if (cache_dir)
            build_id_path(candidates[n++], sizeof candidates[0], cache_dir, d, "/debug");
    }
    if (d->image.debuglink[0]) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", runtime);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        const char *link = d->image.debuglink;
        snprintf(candidates[n++], sizeof candidates[0], "%s/%s", dir, link);
        snprintf(candidates[n++], sizeof candidates[0], "%s/.debug/%s", dir, link);
        /* /usr/lib/debug + the recorded directory */
        char recorded_dir[4096];
        snprintf(recorded_dir, sizeof recorded_dir, "%s", d->name);
        slash = strrchr(recorded_dir, '/');
        if (slash)
            *slash = 0;
        snprintf(candidates[n++], sizeof candidates[0], "%s/usr/lib/debug%s/%s",
                 s->sysroot ? s->sysroot : "", recorded_dir, link);
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(candidates[i], runtime) == 0 || !is_file(candidates[i]))
            continue;
        pv_elf_image img;
        char why[256];
        if (!pv_elf_probe(candidates[i], &img, why, sizeof why) || !img.has_symtab)
            continue;
        /* a debug file must be of the same build */
        const uint8_t *want = d->build_id_len ? d->build_id : d->image.build_id;
        uint8_t want_len = d->build_id_len ? d->build_id_len : d->image.build_id_len;
        if (want_len && (img.build_id_len < want_len || memcmp(img.build_id, want, want_len) != 0))
            continue;
        snprintf(path, size, "%s", candidates[i]);
        return true;
    }
    return false;
}

static void load_elf_dso(pv_symbolizer *s, dso *d)
{
    char runtime[4096], debug[4096];
    if (!find_runtime_image(s, d, runtime, sizeof runtime))
        return;
    const char *source = runtime;
    if (!d->image.has_symtab && find_debug_file(s, d, runtime, debug, sizeof debug))
        source = debug;
    if (!pv_elf_read_symbols(source, runtime, &d->tree)) {
        d->status = dup_printf("cannot read the symbols of %s", source);
        return;
    }
    if (d->tree.live == 0)
        d->status = dup_printf("no symbols in %s", source);
}

/* The vdso of this process, when it is the recording's. */
static void load_own_vdso(dso *d)
{
    unsigned long base = getauxval(AT_SYSINFO_EHDR);
    if (!base || d->build_id_len == 0) {
        d->status = strdup("no [vdso] image: not in the build-id cache");
        return;
    }
    /* the vdso's size: its section headers end it */
    const unsigned char *p = (const unsigned char *)base;
    if (memcmp(p, "\177ELF", 4) != 0 || p[4] != 2) {
        d->status = strdup("no [vdso] image: not in the build-id cache");
        return;
    }
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3a, 2);
    memcpy(&shnum, p + 0x3c, 2);
    size_t size = (size_t)(shoff + (uint64_t)shentsize * shnum);
    if (size > (1u << 20)) {
        d->status = strdup("no [vdso] image: not in the build-id cache");
        return;
    }
    /* libelf gets a private copy: the vdso is read-only */
    void *copy = malloc(size);
    if (!copy)
        return;
    memcpy(copy, p, size);
    pv_elf_image img;
    if (pv_elf_probe_memory(copy, size, &img) && same_build_id(d, &img)) {
        d->image = img;
        pv_elf_read_symbols_memory(copy, size, &d->tree);
    } else {
        d->status = strdup("no [vdso] image: not in the build-id cache, and this machine's vdso "
                           "has another build-id");
    }
    free(copy);
}

static bool read_feature_text(pv_file *f, unsigned id, char *out, size_t size)
{
    pv_strbuf b = {0};
    pv_value_kind kind;
    int64_t integer;
    pv_error err;
    bool ok = pv_feature_decode(f, id, &kind, &integer, &b, &err) == 0 && kind == PV_VALUE_TEXT &&
              !b.failed;
    if (ok)
        snprintf(out, size, "%s", pv_strbuf_text(&b));
    pv_strbuf_free(&b);
    return ok;
}

/* The build-id note of the running kernel (/sys/kernel/notes); its length or 0. */
static size_t running_kernel_build_id(uint8_t out[PV_BUILD_ID_MAX])
{
    FILE *f = fopen("/sys/kernel/notes", "rb");
    if (!f)
        return 0;
    uint8_t notes[4096];
    size_t n = fread(notes, 1, sizeof notes, f);
    fclose(f);
    /* Elf_Nhdr {namesz, descsz, type}, name and desc padded to 4 bytes */
    size_t at = 0;
    while (n - at >= 12) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, notes + at, 4);
        memcpy(&descsz, notes + at + 4, 4);
        memcpy(&type, notes + at + 8, 4);
        at += 12;
        size_t name_len = ((size_t)namesz + 3) & ~(size_t)3;
        size_t desc_len = ((size_t)descsz + 3) & ~(size_t)3;
        if (name_len > n - at || desc_len > n - at - name_len)
            return 0;
        if (type == 3 && namesz == 4 && memcmp(notes + at, "GNU", 4) == 0 && descsz > 0) {
            size_t len = descsz < PV_BUILD_ID_MAX ? descsz : PV_BUILD_ID_MAX;
            memcpy(out, notes + at + name_len, len);
            return len;
        }
        at += name_len + desc_len;
    }
    return 0;
}

static void load_kallsyms(pv_symbolizer *s)
{
    s->kallsyms_loaded = true;
    char path[4096];
    /* a directory recorded with --kcore keeps its kallsyms */
    char *kcore = pv_kcore_kallsyms_path(s->file);
    bool loaded = kcore && pv_symtab_load_kallsyms(&s->kallsyms, kcore);
    free(kcore);
    if (loaded)
        return;
    pv_symtab_free(&s->kallsyms);
    dso *kernel = find_dso_by_name(s, "[kernel.kallsyms]", 17, true);
    char cache[4096];
    const char *cache_dir = buildid_dir(cache, sizeof cache);
    if (kernel && kernel->build_id_len && cache_dir) {
        char h[2 * PV_BUILD_ID_MAX + 1];
        hex(kernel->build_id, kernel->build_id_len, h);
        snprintf(path, sizeof path, "%s/[kernel.kallsyms]/%s/kallsyms", cache_dir, h);
        if (is_file(path) && pv_symtab_load_kallsyms(&s->kallsyms, path))
            return;
        pv_symtab_free(&s->kallsyms);
    }
    /* a sysroot stands for the recording machine: its proc/kallsyms, as
     * perf --symfs reads it */
    if (s->sysroot) {
        snprintf(path, sizeof path, "%s/proc/kallsyms", s->sysroot);
        if (!pv_symtab_load_kallsyms(&s->kallsyms, path)) {
            pv_symtab_free(&s->kallsyms);
            s->kallsyms_status = dup_printf("no kallsyms: none in the recording or the build-id "
                                            "cache, and %s is missing or empty", path);
        }
        return;
    }
    /* the running kernel, when it is the recorded one: the same build-id,
     * or, for a recording without one, the same host and release */
    if (kernel && kernel->build_id_len) {
        uint8_t running[PV_BUILD_ID_MAX];
        size_t running_len = running_kernel_build_id(running);
        if (running_len < kernel->build_id_len ||
            memcmp(running, kernel->build_id, kernel->build_id_len) != 0) {
            s->kallsyms_status = strdup("no kallsyms: the recorded kernel is not in the build-id "
                                        "cache and is not the running kernel");
            return;
        }
    } else {
        char host[256], release[256];
        struct utsname me;
        if (uname(&me) != 0 || !read_feature_text(s->file, PV_FEATURE_HOSTNAME, host, sizeof host) ||
            !read_feature_text(s->file, PV_FEATURE_OSRELEASE, release, sizeof release)) {
            s->kallsyms_status = strdup("no kallsyms: none in the recording or the build-id cache, "
                                        "and the recording does not name its kernel");
            return;
        }
        if (strcmp(host, me.nodename) != 0 || strcmp(release, me.release) != 0) {
            s->kallsyms_status = dup_printf("no kallsyms: recorded on %s (%s), this is %s (%s)",
                                            host, release, me.nodename, me.release);
            return;
        }
    }
    if (!pv_symtab_load_kallsyms(&s->kallsyms, "/proc/kallsyms")) {
        pv_symtab_free(&s->kallsyms);
        s->kallsyms_status = strdup("no kallsyms: /proc/kallsyms unreadable or hidden (kptr_restrict)");
    }
}

static void load_dso(pv_symbolizer *s, dso *d)
{
    d->loaded = true;
    d->identity_offsets = offsets_are_addresses(d->name, d->kind == DSO_JIT);
    switch (d->kind) {
    case DSO_ELF:
        load_elf_dso(s, d);
        break;
    case DSO_VDSO: {
        char path[4096];
        if (find_runtime_image(s, d, path, sizeof path)) {
            if (!pv_elf_read_symbols(path, path, &d->tree))
                d->status = dup_printf("cannot read the symbols of %s", path);
        } else {
            free(d->status);
            d->status = NULL;
            load_own_vdso(d);
        }
        break;
    }
    case DSO_JIT:
        if (!pv_symtab_load_jit_map(&d->symbols, d->name))
            d->status = dup_printf("no JIT map %s", d->name);
        break;
    case DSO_KERNEL:
        if (!s->kallsyms_loaded)
            load_kallsyms(s);
        if (s->kallsyms_status)
            d->status = strdup(s->kallsyms_status);
        break;
    case DSO_NONE:
        d->status = dup_printf("%s is not a file", d->name);
        break;
    }
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
    const pv_map *m = pv_aspace_find(&s->space, kernel ? PV_KERNEL_PID : pid, ip, key);
    if (!m) {
        out->status = "no map holds the address";
        return;
    }
    dso *d = &s->dsos[m->dso];
    if (!d->loaded)
        load_dso(s, d);
    out->dso = d->name;
    out->dso_offset = d->identity_offsets ? ip : ip - m->start + m->pgoff;
    uint64_t addr = out->dso_offset;
    if (d->kind == DSO_ELF || d->kind == DSO_VDSO)
        addr = pv_elf_offset_to_vaddr(&d->image, out->dso_offset);
    else if (d->kind == DSO_KERNEL)
        addr = ip;
    /* the symbol at an address of a loaded dso never changes: cached */
    pv_symbol_cache_entry mine, *e = pv_symbol_cache_slot(&s->symbol_cache, m->dso, addr);
    if (!e)
        e = &mine;
    if (e == &mine || !pv_symbol_cache_holds(e, m->dso, addr)) {
        lookup_symbol(s, d, addr, e);
        e->dso = m->dso;
        e->addr = addr;
    }
    out->sym = e->sym;
    out->sym_offset = e->sym_offset;
    out->status = e->status;
}

const char *pv_symbolizer_comm(pv_symbolizer *s, int32_t tid, uint64_t key)
{
    const char *comm = pv_aspace_comm(&s->space, tid, key);
    /* the idle task has no COMM record; perf calls it swapper */
    return comm || tid != 0 ? comm : "swapper";
}

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
    const pv_map *m = pv_aspace_find(&l->s->space, l->pid, addr, l->key);
    if (!m)
        return false;
    dso *d = &l->s->dsos[m->dso];
    if ((d->kind == DSO_ELF || d->kind == DSO_VDSO) && !d->loaded)
        load_dso(l->s, d);
    out->start = m->start;
    out->end = m->end;
    out->pgoff = m->pgoff;
    out->path = d->kind == DSO_ELF || d->kind == DSO_VDSO ? d->runtime_path : NULL;
    /* maps of the same dso left from before an exec or a fork count too */
    uint64_t lowest = pv_aspace_lowest_start(&l->s->space, l->pid, m->dso, l->key);
    out->perf_lowest_start = lowest == UINT64_MAX ? m->start : lowest;
    return true;
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
    if (!s->unwinder) {
        char arch[64];
        s->unwinder = pv_unwinder_new(read_feature_text(s->file, PV_FEATURE_ARCH, arch, sizeof arch)
                                      ? arch : NULL);
        if (!s->unwinder)
            return 0;
    }
    unwind_lookup lookup = { s, (int32_t)sample->pid, key };
    pv_unwind_result res;
    size_t nr_ips = pv_unwind_sample(s->unwinder, sample, unwind_find_map, &lookup, s->user_ips,
                                     PV_UNWIND_DEFAULT_MAX_FRAMES, &res);
    pv_name_buf buf = { names, names_size, 0 };
    int32_t at[PV_INLINE_DEPTH];
    size_t nr = 0;
    for (size_t i = 0; i < nr_ips && nr < max; i++) {
        uint64_t ip = s->user_ips[i];
        /* perf expands only a frame it has a symbol for */
        pv_location l;
        pv_symbolizer_resolve(s, (int32_t)sample->pid, key, PV_CPUMODE_USER, ip, &l);
        size_t n = l.sym ? pv_inline_names(pv_unwinder_module(s->unwinder, ip), ip, &buf, at,
                                           PV_INLINE_DEPTH)
                         : 0;
        if (n == 0)
            frames[nr++] = (pv_unwound_frame){ ip, -1 };
        for (size_t j = 0; j < n && nr < max; j++)
            frames[nr++] = (pv_unwound_frame){ ip, at[j] };
    }
    return nr;
}
