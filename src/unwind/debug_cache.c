#include "unwind/debug_cache.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unwind/elf_snapshot.h"
#include "unwind/inline_frames.h"
#include "unwind/line_table.h"
#include "base/pv_alloc.h"
#include "base/pv_stop.h"

/* One file: its libdwfl session (or the memory that it is no ELF file)
 * and its line tables, each made the first time it is asked for. */
typedef struct debug_file {
    char *path;
    bool exists;                        /* it was there when opened */
    uint64_t dev, ino, size, mtime_ns;  /* identity on disk when opened */
    bool session_opened;
    Dwfl *dwfl;
    Dwfl_Module *mod;                   /* NULL: not an ELF file (or no session yet) */
    pv_line_table *lines;               /* NULL: not built yet */
    uint64_t last_use;
    uint64_t checked;                   /* the generation it was last checked in */
} debug_file;

struct pv_debug_cache {
    debug_file *files;
    size_t nr, max;
    uint64_t clock;
    uint64_t generation;                /* bumped by pv_debug_cache_recheck */
    debug_file *last;                   /* the last file asked for */
    Dwfl_Callbacks callbacks;
    char *debuginfo_path;
    pv_debug_cache_stats stats;
    const pv_stop *stop;                /* pv_debug_cache_set_stop's, or NULL */
};

pv_debug_cache *pv_debug_cache_new(size_t max_files)
{
    pv_debug_cache *c = pv_calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->max = max_files ? max_files : PV_DEBUG_CACHE_FILES;
    c->files = pv_calloc(c->max, sizeof *c->files);
    if (!c->files) {
        free(c);
        return NULL;
    }
    c->generation = 1;
    /* as the unwinding sessions find files (dwarf_unwind.c) */
    c->callbacks.find_elf = dwfl_build_id_find_elf;
    c->callbacks.find_debuginfo = pv_elf_snapshot_find_debuginfo;
    c->callbacks.section_address = dwfl_offline_section_address;
    c->callbacks.debuginfo_path = &c->debuginfo_path;
    return c;
}

static void close_file(pv_debug_cache *c, debug_file *f)
{
    if (f->dwfl) {
        pv_inline_release(f->dwfl);
        dwfl_end(f->dwfl);
    }
    pv_line_table_free(f->lines);
    free(f->path);
    if (c->last == f)
        c->last = NULL;
    memset(f, 0, sizeof *f);
}

void pv_debug_cache_free(pv_debug_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nr; i++)
        close_file(c, &c->files[i]);
    free(c->files);
    free(c);
}

void pv_debug_cache_recheck(pv_debug_cache *c)
{
    if (c)
        c->generation++;
}

void pv_debug_cache_get_stats(const pv_debug_cache *c, pv_debug_cache_stats *out)
{
    *out = c->stats;
    out->files = c->nr;
    out->max_files = c->max;
}

static bool identity(const char *path, uint64_t *dev, uint64_t *ino, uint64_t *size,
                     uint64_t *mtime_ns)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    *dev = (uint64_t)st.st_dev;
    *ino = (uint64_t)st.st_ino;
    *size = (uint64_t)st.st_size;
    *mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    return true;
}

/* Whether f is still the file on disk at its path. */
static bool unchanged(const debug_file *f)
{
    uint64_t dev, ino, size, mtime_ns;
    if (!identity(f->path, &dev, &ino, &size, &mtime_ns))
        return !f->exists;  /* still gone */
    return dev == f->dev && ino == f->ino && size == f->size && mtime_ns == f->mtime_ns;
}

static debug_file *find_open(pv_debug_cache *c, const char *path)
{
    if (c->last && !strcmp(c->last->path, path))
        return c->last;
    for (size_t i = 0; i < c->nr; i++)
        if (!strcmp(c->files[i].path, path))
            return &c->files[i];
    return NULL;
}

/* A slot for a new file: a free one, else the least recently used one,
 * closed. */
static debug_file *make_room(pv_debug_cache *c)
{
    if (c->nr < c->max)
        return &c->files[c->nr++];
    debug_file *victim = &c->files[0];
    for (size_t i = 1; i < c->nr; i++)
        if (c->files[i].last_use < victim->last_use)
            victim = &c->files[i];
    close_file(c, victim);
    c->stats.closed++;
    return victim;
}

/* Takes path into the empty slot f, its identity on disk read. */
static bool open_file(pv_debug_cache *c, debug_file *f, const char *path)
{
    if (!(f->path = pv_strdup(path)))
        return false;
    c->stats.opened++;
    f->exists = identity(path, &f->dev, &f->ino, &f->size, &f->mtime_ns);
    return true;
}

/* Opens f's session: the file as its one module, at its own addresses. */
static void open_session(pv_debug_cache *c, debug_file *f)
{
    f->session_opened = true;
    if (!f->exists)
        return;
    const char *path = f->path;
    errno = 0;
    f->dwfl = dwfl_begin(&c->callbacks);
    if (!f->dwfl) {
        pv_alloc_check_errno();
        return;
    }
    /* libdwfl maps what it is given: a snapshot (unwind/elf_snapshot.h) */
    char why[256];
    errno = 0;
    int fd = pv_elf_snapshot(path, -1, why, sizeof why);
    dwfl_report_begin(f->dwfl);
    f->mod = fd >= 0 ? dwfl_report_elf(f->dwfl, path, path, fd, 0, true) : NULL;
    dwfl_report_end(f->dwfl, NULL, NULL);
    if (!f->mod) {
        pv_alloc_check_errno();
        if (fd >= 0)
            close(fd);
    }
    if (!f->mod) {
        dwfl_end(f->dwfl);
        f->dwfl = NULL;
    }
}

/* Closes f and moves the last file into its slot: the files stay dense. */
static void remove_file(pv_debug_cache *c, debug_file *f)
{
    close_file(c, f);
    debug_file *end = &c->files[--c->nr];
    if (f != end) {
        *f = *end;
        if (c->last == end)
            c->last = f;
        memset(end, 0, sizeof *end);
    }
}

void pv_debug_cache_set_stop(pv_debug_cache *c, const pv_stop *stop)
{
    if (c)
        c->stop = stop;
}

/* The slot of path: the one open, checked against the disk once per
 * generation, else a new one; NULL when out of memory.  Once the work asked
 * to stop, no file is opened, nor line table built (megabytes of debug info
 * read after the stop); the stop, once said, is said to every later ask, so
 * nothing made without them is handed on (debug_cache.h). */
static debug_file *file_slot(pv_debug_cache *c, const char *path)
{
    debug_file *f = find_open(c, path);
    if (f && f->checked != c->generation) {
        if (unchanged(f)) {
            f->checked = c->generation;
        } else {
            remove_file(c, f);
            c->stats.closed++;
            f = NULL;
        }
    }
    if (f) {
        c->stats.reused++;
    } else if (pv_stop_said(c->stop)) {
        return NULL;
    } else {
        f = make_room(c);
        if (!open_file(c, f, path)) {
            remove_file(c, f);
            return NULL;
        }
        f->checked = c->generation;
    }
    f->last_use = ++c->clock;
    c->last = f;
    return f;
}

struct Dwfl_Module *pv_debug_cache_module(pv_debug_cache *c, const char *path)
{
    debug_file *f = c && path ? file_slot(c, path) : NULL;
    if (f && !f->session_opened)
        open_session(c, f);
    return f ? f->mod : NULL;
}

const pv_line_table *pv_debug_cache_lines(pv_debug_cache *c, const char *path)
{
    debug_file *f = c && path ? file_slot(c, path) : NULL;
    if (!f || f->lines || !f->exists || pv_stop_said(c->stop))
        return f ? f->lines : NULL;
    /* built in a session of its own, ended at once (line_table.h) */
    /* stopped (-2): the work fails (base/pv_stop.h); memory is counted */
    if (pv_line_table_build(&c->callbacks, f->path, c->stop, &f->lines) == -1)
        pv_alloc_count_failure();
    return f->lines;
}

void pv_debug_cache_forget(pv_debug_cache *c, const char *path)
{
    debug_file *f = c && path ? find_open(c, path) : NULL;
    if (f) {
        remove_file(c, f);
        c->stats.closed++;
    }
}

bool pv_debug_cache_has_debug_frame(pv_debug_cache *c, const char *path)
{
    Dwfl_Module *mod = pv_debug_cache_module(c, path);
    Dwarf_Addr bias;
    Dwarf *dwarf = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
    return dwarf && dwarf_getcfi(dwarf) != NULL;
}
