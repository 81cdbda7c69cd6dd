#include "analysis/profile_parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/sample_pass.h"
#include "base/pv_alloc.h"
#include "base/pv_env.h"
#include "base/pv_stop.h"
#include "format/features.h"
#include "format/perf_abi.h"
#include "stream/file_open.h"

/* Threads end as they finish: the caller waits for running to reach 0.
 * A part reads its file a window at a time, each read granted by the
 * caller's thread after it asked the caller's stop, at most READS_AHEAD
 * ahead: once stopped, each part reads at most that many windows more. */
enum { READS_AHEAD = 4 };
typedef struct crew {
    pthread_mutex_t lock;
    pthread_cond_t finished;    /* to the caller: a part ended or wants reads */
    pthread_cond_t granted;     /* to the parts: more reads, or cancel */
    unsigned running;
    bool wanted;                /* a part waits for reads */
    int cancel;                 /* atomic: every part stops at its next record or read */
} crew;

/* One part of the file and what counting it made. */
typedef struct part {
    pv_file *original;
    pv_file *file;              /* the part's own opening of original */
    pv_symbolizer *sym;
    const pv_symbol_paths *paths;
    bool with_children;
    pv_sample_range range;
    pv_profile profile;
    pv_error err;
    int rc;
    bool changed;               /* the file on disk is not the caller's */
    bool started;
    pthread_t thread;
    crew *crew;
    pv_stop stop;               /* file's: asked by the part's thread, stops at cancel */
    uint64_t reads, allowed;    /* the file's reads so far, and granted (crew's lock) */
} part;

struct pv_profile_kept {
    part *parts;
    size_t nr;
};

void pv_profile_kept_free(struct pv_profile_kept *kept)
{
    if (!kept)
        return;
    for (size_t i = 0; i < kept->nr; i++) {
        part *pt = &kept->parts[i];
        pv_profile_free(&pt->profile);
        pv_symbolizer_free(pt->sym);
        pv_file_close(pt->file);
    }
    free(kept->parts);
    free(kept);
}

static bool same_file(const pv_file *a, const pv_file *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns &&
           a->file_size == b->file_size && a->data_section.offset == b->data_section.offset &&
           a->data_section.size == b->data_section.size && a->nr_attrs == b->nr_attrs;
}

/* The part's stop, asked before each read of its file: waits for the
 * read to be granted; true when the crew is cancelled. */
static bool cancelled(void *arg)
{
    part *pt = arg;
    crew *c = pt->crew;
    pthread_mutex_lock(&c->lock);
    while (!__atomic_load_n(&c->cancel, __ATOMIC_RELAXED) && pt->reads >= pt->allowed) {
        c->wanted = true;
        pthread_cond_signal(&c->finished);
        pthread_cond_wait(&c->granted, &c->lock);
    }
    pt->reads++;
    bool stop = __atomic_load_n(&c->cancel, __ATOMIC_RELAXED) != 0;
    pthread_mutex_unlock(&c->lock);
    return stop;
}

/* Tells every part to stop, waking those waiting for reads. */
static void cancel_crew(crew *c)
{
    pthread_mutex_lock(&c->lock);
    __atomic_store_n(&c->cancel, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&c->granted);
    pthread_mutex_unlock(&c->lock);
}

static int count_part(part *pt)
{
    /* every read of the part's own file (its walk, its symbolizer's replay
     * of the maps before it) asks whether the crew is told to stop */
    pt->stop = (pv_stop){ cancelled, pt, pthread_self() };
    if (pv_file_open_stoppable(pt->original->path, &pt->stop, &pt->file, &pt->err))
        return -1;
    pv_file_set_stop(pt->file, &pt->stop);
    if (!same_file(pt->file, pt->original)) {
        pt->changed = true;
        return pv_error_set(&pt->err, "%s: changed", pt->original->path);
    }
    if (pv_symbolizer_open(pt->file, pt->paths, &pt->sym, &pt->err))
        return -1;
    return pv_profile_build_range(pt->file, pt->sym, pt->with_children, &pt->range, &pt->profile,
                                  &pt->err);
}

static void *work(void *arg)
{
    part *pt = arg;
    pt->rc = count_part(pt);
    pthread_mutex_lock(&pt->crew->lock);
    pt->crew->running--;
    pthread_cond_signal(&pt->crew->finished);
    pthread_mutex_unlock(&pt->crew->lock);
    return NULL;
}

/* Waits for the threads, asking the file's stop (on this, its thread)
 * whenever a part wants more reads, and every millisecond; -1 (err set)
 * when it says stop. */
static int wait_for_crew(crew *c, part *parts, size_t nr, pv_file *f, pv_error *err)
{
    int rc = 0;
    pthread_mutex_lock(&c->lock);
    while (c->running > 0) {
        if (!c->wanted) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 1000 * 1000;
            if (until.tv_nsec >= 1000 * 1000 * 1000) {
                until.tv_sec++;
                until.tv_nsec -= 1000 * 1000 * 1000;
            }
            pthread_cond_timedwait(&c->finished, &c->lock, &until);
        }
        c->wanted = false;
        pthread_mutex_unlock(&c->lock);
        rc = pv_stop_check_point(pv_file_stop(f), f->path, err);
        pthread_mutex_lock(&c->lock);
        if (rc)
            break;
        for (size_t i = 0; i < nr; i++)
            parts[i].allowed = parts[i].reads + READS_AHEAD;
        pthread_cond_broadcast(&c->granted);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* Whether the file can be cut by offsets into parts each thread reads
 * alone. */
static bool splittable(const pv_file *f, bool with_children)
{
    /* a compressed file's records have their container's offset (and one
     * without the feature is caught by the parts: range.compressed) */
    if (f->pipe || f->spool || f->memory || f->nr_segments || f->fd < 0 ||
        pv_file_has_feature(f, PV_FEATURE_COMPRESSED))
        return false;
    for (size_t i = 0; with_children && i < f->nr_attrs; i++)
        if (f->attrs[i].sample_type & (PV_SAMPLE_STACK_USER | PV_SAMPLE_REGS_USER))
            return false;       /* DWARF stacks share their debug info and memo */
    return true;
}

static uint64_t part_min(bool with_children)
{
    return pv_env_number("PERFVTAB_PROFILE_PART_MIN", 1,
                         with_children ? PV_PROFILE_PART_MIN : PV_PROFILE_FLAT_PART_MIN);
}

/* ---- the merge: rows by their function, across symbolizers ---- */

static uint64_t hash_text(uint64_t h, const char *s)
{
    if (!s)
        return h * 31 + 1;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static size_t hash_function(const pv_profile_row *r)
{
    uint64_t h = hash_text(1469598103934665603u ^ (uint64_t)r->attr_index, r->dso);
    h = hash_text(h, r->sym);
    h ^= (r->sym ? (r->inlined ? 1 : r->sym_start) : r->addr) * 0xff51afd7ed558ccdu;
    return (size_t)(h ^ (h >> 29));
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* One function: as the sequential pass's key (profile.c's same()) tells
 * rows apart, with texts for its pointers. */
static bool same_function(const pv_profile_row *a, const pv_profile_row *b)
{
    if (a->attr_index != b->attr_index || a->inlined != b->inlined || !same_text(a->dso, b->dso) ||
        !same_text(a->sym, b->sym))
        return false;
    if (!a->sym)
        return a->addr == b->addr;
    return a->inlined || a->sym_start == b->sym_start;
}

/* A jitdump's code is replaced at one address under one name: two
 * functions with one start (symbolizer.h). */
static bool jitdump_code(const char *dso)
{
    if (!dso)
        return false;
    const char *slash = strrchr(dso, '/');
    const char *base = slash ? slash + 1 : dso;
    size_t n = strlen(base);
    return n > 9 && strncmp(base, "jit-", 4) == 0 && strcmp(base + n - 5, ".dump") == 0;
}

/* Merges the parts' rows into parts[0]'s, in file order: a row new to the
 * merged ones is appended where its part first saw it, as one pass would
 * have made it.  1: a row's function is not proven (the caller counts on
 * one thread); -1: out of memory. */
static int merge(part *parts, size_t nr, pv_profile *out)
{
    size_t total = 0;
    for (size_t i = 0; i < nr; i++) {
        if (parts[i].profile.starts_differ)
            return 1;
        total += parts[i].profile.nr_rows;
    }
    size_t nr_slots = 1024;
    while (nr_slots < total * 2)
        nr_slots *= 2;
    uint32_t *slots = pv_malloc(nr_slots * sizeof *slots);
    uint32_t *owner = pv_malloc((total ? total : 1) * sizeof *owner);
    pv_profile_row *rows = pv_malloc((total ? total : 1) * sizeof *rows);
    int rc = slots && owner && rows ? 0 : -1;
    size_t nr_rows = 0;
    if (rc == 0)
        memset(slots, 0xff, nr_slots * sizeof *slots);
    for (size_t w = 0; w < nr && rc == 0; w++) {
        const pv_profile *p = &parts[w].profile;
        for (size_t r = 0; r < p->nr_rows && rc == 0; r++) {
            const pv_profile_row *row = &p->rows[r];
            if (jitdump_code(row->dso)) {
                rc = 1;
                break;
            }
            size_t i = hash_function(row) & (nr_slots - 1);
            while (slots[i] != UINT32_MAX && !same_function(&rows[slots[i]], row))
                i = (i + 1) & (nr_slots - 1);
            if (slots[i] == UINT32_MAX) {
                rows[nr_rows] = *row;
                rows[nr_rows].counted_in = 0;
                owner[nr_rows] = (uint32_t)w;
                slots[i] = (uint32_t)nr_rows++;
                continue;
            }
            pv_profile_row *m = &rows[slots[i]];
            if (owner[slots[i]] == w) {
                rc = 1;         /* two rows of one part, one name: not one function */
                break;
            }
            owner[slots[i]] = (uint32_t)w;
            m->self_samples += row->self_samples;
            m->self_period += row->self_period;
            m->samples += row->samples;
            m->period += row->period;
        }
    }
    free(slots);
    free(owner);
    if (rc != 0) {
        free(rows);
        return rc;
    }
    memset(out, 0, sizeof *out);
    out->rows = rows;
    out->nr_rows = nr_rows;
    return pv_profile_sum_events(out) ? 0 : -1;
}

/* ---- the threads ---- */

/* Starts parts 1.. on threads; false when one could not be started. */
static bool start_crew(part *parts, size_t nr, crew *c)
{
    for (size_t i = 0; i < nr; i++) {
        pthread_mutex_lock(&c->lock);
        c->running++;
        pthread_mutex_unlock(&c->lock);
        if (pthread_create(&parts[i].thread, NULL, work, &parts[i]) != 0) {
            pthread_mutex_lock(&c->lock);
            c->running--;
            pthread_mutex_unlock(&c->lock);
            return false;
        }
        parts[i].started = true;
    }
    return true;
}

static void join_crew(part *parts, size_t nr)
{
    for (size_t i = 0; i < nr; i++)
        if (parts[i].started)
            pthread_join(parts[i].thread, NULL);
}

/* What the parts' counting says: 0 counted, 1 count on one thread
 * instead. */
static int parts_outcome(const part *parts, size_t nr)
{
    for (size_t i = 0; i < nr; i++)
        if (parts[i].rc < 0 || parts[i].range.compressed || parts[i].changed)
            return 1;   /* one thread's pass gives the error, or the rows */
    return 0;
}

/* Every part on a thread of its own; this one asks the file's stop
 * meanwhile, which no other thread may ask. */
static int count_parts(pv_file *f, part *parts, size_t nr, crew *c, pv_error *err)
{
    int rc = !start_crew(parts, nr, c) ? 1 : wait_for_crew(c, parts, nr, f, err) ? -1 : 0;
    if (rc != 0)
        cancel_crew(c);
    join_crew(parts, nr);
    return rc != 0 ? rc : parts_outcome(parts, nr);
}

int pv_profile_build_parallel(pv_file *f, const pv_symbol_paths *paths, unsigned nr_threads,
                              bool with_children, pv_profile *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    if (nr_threads <= 1 || !splittable(f, with_children))
        return 1;
    uint64_t start = f->data_section.offset, size = f->data_section.size;
    uint64_t nr = size / part_min(with_children);
    if (nr > nr_threads)
        nr = nr_threads;
    if (nr > PV_PROFILE_MAX_THREADS)
        nr = PV_PROFILE_MAX_THREADS;
    if (nr <= 1)
        return 1;
    crew c = { .running = 0, .cancel = 0 };
    struct pv_profile_kept *kept = pv_calloc(1, sizeof *kept);
    part *parts = pv_calloc(nr, sizeof *parts);
    if (!kept || !parts || pthread_mutex_init(&c.lock, NULL) != 0) {
        free(kept);
        free(parts);
        return pv_error_set(err, "%s: out of memory counting the profile", f->path);
    }
    if (pthread_cond_init(&c.finished, NULL) != 0 || pthread_cond_init(&c.granted, NULL) != 0) {
        pthread_mutex_destroy(&c.lock);
        free(kept);
        free(parts);
        return pv_error_set(err, "%s: out of memory counting the profile", f->path);
    }
    for (size_t i = 0; i < nr; i++) {
        part *pt = &parts[i];
        pt->original = f;
        pt->paths = paths;
        pt->with_children = with_children;
        /* offsets in the data section, a part's share each; the last to its end */
        pt->range.from = i == 0 ? 0 : start + size / nr * i;
        pt->range.to = i + 1 == nr ? UINT64_MAX : start + size / nr * (i + 1);
        pt->range.cancel = &c.cancel;
        pt->allowed = READS_AHEAD;
        pt->crew = &c;
    }
    int rc = count_parts(f, parts, nr, &c, err);
    pthread_cond_destroy(&c.granted);
    pthread_cond_destroy(&c.finished);
    pthread_mutex_destroy(&c.lock);
    if (rc == 0) {
        rc = merge(parts, nr, out);
        if (rc < 0)
            pv_error_set(err, "%s: out of memory counting the profile", f->path);
    }
    kept->parts = parts;
    kept->nr = nr;
    if (rc != 0) {
        pv_profile_kept_free(kept);
        return rc;
    }
    /* the rows point into the parts' symbolizers and inline names */
    for (size_t i = 0; i < nr; i++) {
        free(parts[i].profile.rows);
        parts[i].profile.rows = NULL;
        parts[i].profile.nr_rows = 0;
    }
    out->kept = kept;
    out->free_kept = pv_profile_kept_free;
    return 0;
}
