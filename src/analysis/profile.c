#include "analysis/profile.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/sample_pass.h"
#include "format/perf_abi.h"
#include "decode/sample.h"
#include "base/pv_alloc.h"
#include "base/pv_env.h"
#include "base/pv_array.h"
#include "symbols/sample_stack.h"

#define NO_SLOT UINT32_MAX

typedef struct key {
    int attr_index;
    const char *dso, *sym;
    uint64_t addr;
    bool inlined;
    uint64_t sym_start;         /* not compared: the row's, when it is made */
} key;

/* The symbol's start as the symbolizer looked it up: a kernel address
 * (cpumode 1 or 4) is looked up as itself, another by its offset in the
 * dso (as an ELF's segment places it, a constant away from its address). */
static uint64_t sym_start(const pv_location *l, uint64_t ip, unsigned cpumode)
{
    return (cpumode == 1 || cpumode == 4 ? ip : l->dso_offset) - l->sym_offset;
}

static key key_of(int attr_index, const pv_location *l, uint64_t ip, unsigned cpumode)
{
    key k = { attr_index, l->dso, l->sym, 0, false, sym_start(l, ip, cpumode) };
    if (!l->sym)
        k.addr = l->dso ? l->dso_offset : ip;
    return k;
}

static bool same(const key *a, const key *b)
{
    return a->attr_index == b->attr_index && a->dso == b->dso && a->sym == b->sym &&
           a->addr == b->addr;
}

static size_t hash(const key *k)
{
    uint64_t h = (uint64_t)(uintptr_t)k->sym * 0x9e3779b97f4a7c15u;
    h ^= (uint64_t)(uintptr_t)k->dso + 0x632be59bd9b4e019u + (h << 6) + (h >> 2);
    h ^= k->addr * 0xff51afd7ed558ccdu + (uint64_t)k->attr_index;
    return (size_t)(h ^ (h >> 29));
}

static bool rehash(pv_profile *p, size_t nr_slots)
{
    uint32_t *slots = pv_malloc(nr_slots * sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < nr_slots; i++)
        slots[i] = NO_SLOT;
    for (size_t r = 0; r < p->nr_rows; r++) {
        key k = { p->rows[r].attr_index, p->rows[r].dso, p->rows[r].sym, p->rows[r].addr,
                  p->rows[r].inlined, 0 };
        size_t i = hash(&k) & (nr_slots - 1);
        while (slots[i] != NO_SLOT)
            i = (i + 1) & (nr_slots - 1);
        slots[i] = (uint32_t)r;
    }
    free(p->slots);
    p->slots = slots;
    p->nr_slots = nr_slots;
    return true;
}

/* The row of k, created with zero counts; NULL when out of memory. */
/* r, when it is k's row. */
static pv_profile_row *row_if_same(pv_profile *p, pv_profile_row *r, const key *k)
{
    key other = { r->attr_index, r->dso, r->sym, r->addr, r->inlined, 0 };
    if (!same(&other, k))
        return NULL;
    /* one function, one start: else the start cannot name it */
    if (r->sym_start != k->sym_start && r->sym && !r->inlined)
        p->starts_differ = true;
    return r;
}

static pv_profile_row *row_for(pv_profile *p, const key *k, size_t *cap)
{
    pv_profile_row *found;
    if (p->last < p->nr_rows && (found = row_if_same(p, &p->rows[p->last], k)))
        return found;
    if (p->nr_rows >= NO_SLOT - 1 ||
        ((p->nr_rows + 1) * 2 > p->nr_slots && !rehash(p, p->nr_slots ? p->nr_slots * 2 : 1024)))
        return NULL;
    size_t i = hash(k) & (p->nr_slots - 1);
    while (p->slots[i] != NO_SLOT) {
        if ((found = row_if_same(p, &p->rows[p->slots[i]], k))) {
            p->last = p->slots[i];
            return found;
        }
        i = (i + 1) & (p->nr_slots - 1);
    }
    if (p->nr_rows == *cap) {
        size_t n = *cap ? *cap * 2 : 1024;
        pv_profile_row *rows = pv_realloc(p->rows, n * sizeof *rows);
        if (!rows)
            return NULL;
        p->rows = rows;
        *cap = n;
    }
    pv_profile_row *r = &p->rows[p->nr_rows];
    memset(r, 0, sizeof *r);
    r->attr_index = k->attr_index;
    r->dso = k->dso;
    r->sym = k->sym;
    r->addr = k->addr;
    r->inlined = k->inlined;
    r->sym_start = k->sym_start;
    p->last = p->nr_rows;
    p->slots[i] = (uint32_t)p->nr_rows++;
    return r;
}

/* A frame the current sample met, by its address: the same (ip, cpumode)
 * in one sample resolves to the same function (one process, one key), a
 * row counted for the sample already, so a frame met again (recursion; the
 * sample's own ip, which its chain repeats) is skipped, not resolved.
 * Direct-mapped and lossy: a frame it forgot goes the whole way, which
 * counts its function once all the same.  A function inlined at a frame
 * has its own row: those frames always go the whole way. */
enum { SEEN_BITS = 8 };
typedef struct seen_frame {
    uint64_t ip;
    uint32_t sample;            /* the sample that met it; 0: none */
    uint32_t cpumode;
} seen_frame;

/* Scratch of one pass: the current sample's number (from 1: rows whose
 * counted_in is it are counted for it already), the frames it met and its
 * stack.  A row is a function (its key), as pv_frame_set tells functions
 * apart: an inlined function's name is interned, so equal names are one
 * pointer. */
typedef struct scratch {
    uint32_t sample;
    /* PERFVTAB_PROFILE_EVERY_FRAME=1: every frame resolved and looked up,
     * the twin tests/t_profile_twins.sh compares with the skipping */
    bool every_frame;
    seen_frame seen[1u << SEEN_BITS];
    pv_sample_stack stack;
} scratch;

/* Whether the current sample met (ip, cpumode) already (and now it has). */
static bool seen_before(scratch *sc, uint64_t ip, unsigned cpumode)
{
    seen_frame *f = &sc->seen[(ip * 0x9e3779b97f4a7c15u) >> (64 - SEEN_BITS)];
    if (f->sample == sc->sample && f->ip == ip && f->cpumode == cpumode)
        return true;
    *f = (seen_frame){ ip, sc->sample, cpumode };
    return false;
}

/* One stable copy per inline function name (rows point at them): the
 * key table's own copies move as it grows. */
static const char *intern(pv_profile *p, const char *name)
{
    if (!pv_array_grow((void **)&p->names, &p->cap_names, p->nr_names + 1, sizeof *p->names))
        return NULL;
    bool added;
    int64_t i = pv_key_table_intern(&p->name_keys, name, strlen(name), &added);
    if (i < 0)
        return NULL;
    /* NULL (no copy for want of memory) fails again for the name */
    if (added)
        p->names[p->nr_names++] = pv_strdup(name);
    return p->names[i];
}

/* Counts k once for this sample. */
static int count_frame(pv_profile *p, size_t *cap, scratch *sc, const key *k, uint64_t period)
{
    pv_profile_row *row = row_for(p, k, cap);
    if (!row)
        return -1;
    if (row->counted_in == sc->sample)
        return 0;
    row->counted_in = sc->sample;
    row->samples++;
    row->period += period;
    return 0;
}

/* The sample's stack (symbols/sample_stack.h), each function once. */
static int count_stack(pv_profile *p, size_t *cap, pv_symbolizer *sym, pv_file *f,
                       const pv_sample *s, uint64_t order, scratch *sc, uint64_t period,
                       pv_error *err)
{
    pv_stack_frame frame;
    pv_location l;
    int rc;
    pv_sample_stack_start(&sc->stack, f, s, sym, order);
    while ((rc = pv_sample_stack_next(&sc->stack, &frame, err)) == 1) {
        if (!sc->every_frame && !pv_stack_frame_inlined(&frame) &&
            seen_before(sc, frame.ip, frame.cpumode))
            continue;
        pv_sample_stack_locate(&sc->stack, &frame, &l);
        key k = key_of(s->attr_index, &l, frame.ip, frame.cpumode);
        /* a function inlined there is its own row, perf's "name (inlined)":
         * its name outlives the stack's buffer */
        if (pv_stack_frame_inlined(&frame)) {
            k.sym = intern(p, l.sym);
            k.inlined = true;
            if (!k.sym)
                return pv_error_set(err, "%s: out of memory counting the profile", f->path);
        }
        if (count_frame(p, cap, sc, &k, period))
            return pv_error_set(err, "%s: out of memory counting the profile", f->path);
    }
    return rc;
}

static int count_sample(pv_profile *p, size_t *cap, pv_symbolizer *sym, pv_file *f,
                        const pv_record *r, const pv_sample *s, bool with_children, scratch *sc,
                        pv_error *err)
{
    uint64_t period = s->has_period ? s->period : 1;
    bool has_thread = (s->sample_type & PV_SAMPLE_TID) != 0;
    uint64_t order;
    if (pv_symbolizer_at(sym, r->index, (s->sample_type & PV_SAMPLE_TIME) != 0, s->time, &order,
                         err))
        return -1;
    pv_location l;
    memset(&l, 0, sizeof l);
    if (has_thread && (s->sample_type & PV_SAMPLE_IP))
        pv_symbolizer_resolve(sym, (int32_t)s->pid, order, s->misc & PV_MISC_CPUMODE_MASK,
                              s->ip, &l);
    key own = key_of(s->attr_index, &l, (s->sample_type & PV_SAMPLE_IP) ? s->ip : 0,
                     s->misc & PV_MISC_CPUMODE_MASK);
    pv_profile_row *row = row_for(p, &own, cap);
    if (!row)
        return pv_error_set(err, "%s: out of memory counting the profile", f->path);
    row->self_samples++;
    row->self_period += period;
    row->samples++;
    row->period += period;
    if (!with_children || !has_thread)
        return 0;
    if (++sc->sample == 0) {
        /* numbered again from 1: no row may look counted for it */
        for (size_t r = 0; r < p->nr_rows; r++)
            p->rows[r].counted_in = 0;
        memset(sc->seen, 0, sizeof sc->seen);
        sc->sample = 1;
    }
    row->counted_in = sc->sample;
    /* the chain's frame at the sample's ip is this row */
    if (s->sample_type & PV_SAMPLE_IP)
        (void)seen_before(sc, s->ip, s->misc & PV_MISC_CPUMODE_MASK);
    /* the error says why: out of memory, or a deferred chain's index */
    return count_stack(p, cap, sym, f, s, order, sc, period, err) < 0 ? -1 : 0;
}

/* What the pass over the samples counts into. */
typedef struct counting {
    pv_profile *p;
    size_t *cap;
    pv_symbolizer *sym;
    pv_file *f;
    bool with_children;
    scratch *sc;
} counting;

static int count_visit(void *ctx, const pv_record *r, const pv_sample *s, pv_error *err)
{
    counting *c = ctx;
    return count_sample(c->p, c->cap, c->sym, c->f, r, s, c->with_children, c->sc, err);
}

/* Each event's total self period, summed as SQL's sum() over the rows
 * would (the period column is the u64 as a signed 64-bit integer). */
static bool sum_event_periods(pv_profile *p)
{
    size_t n = 0;
    for (size_t r = 0; r < p->nr_rows; r++)
        if ((size_t)p->rows[r].attr_index + 1 > n)
            n = (size_t)p->rows[r].attr_index + 1;
    if (n == 0)
        return true;
    p->event_periods = pv_calloc(n, sizeof *p->event_periods);
    p->event_overflowed = pv_calloc(n, sizeof *p->event_overflowed);
    if (!p->event_periods || !p->event_overflowed)
        return false;
    p->nr_events = n;
    for (size_t r = 0; r < p->nr_rows; r++) {
        size_t e = (size_t)p->rows[r].attr_index;
        if (__builtin_add_overflow(p->event_periods[e], (int64_t)p->rows[r].self_period,
                                   &p->event_periods[e]))
            p->event_overflowed[e] = true;
    }
    return true;
}

int pv_profile_event_period(const pv_profile *p, int attr_index, int64_t *total)
{
    *total = 0;
    if (attr_index < 0 || (size_t)attr_index >= p->nr_events)
        return 0;
    *total = p->event_periods[attr_index];
    return p->event_overflowed[attr_index] ? -1 : 0;
}

bool pv_profile_sum_events(pv_profile *p)
{
    return sum_event_periods(p);
}

static int build(pv_file *f, pv_symbolizer *sym, bool with_children,
                 struct pv_sample_range *range, bool sum_events, pv_profile *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    /* the stack needs no clearing (sample_stack.h): only the frames met are */
    scratch *sc = pv_malloc(sizeof *sc);
    if (!sc)
        return pv_error_set(err, "%s: out of memory counting the profile", f->path);
    sc->sample = 0;
    memset(sc->seen, 0, sizeof sc->seen);
    sc->every_frame = pv_env_flag("PERFVTAB_PROFILE_EVERY_FRAME");
    counting c = { out, &cap, sym, f, with_children, sc };
    /* without children no callchain is read: the fixed fields are enough,
     * as for perf_samples' symbol columns */
    int rc = range ? pv_sample_pass_range(f, !with_children, range, count_visit, &c, err)
             : with_children ? pv_sample_pass(f, count_visit, &c, err)
                             : pv_sample_pass_fixed(f, count_visit, &c, err);
    free(sc);
    free(out->slots);
    out->slots = NULL;
    out->nr_slots = 0;
    pv_key_table_free(&out->name_keys);
    if (rc == 0 && sum_events && !sum_event_periods(out))
        rc = pv_error_set(err, "%s: out of memory counting the profile", f->path);
    if (rc < 0) {
        pv_profile_free(out);
        return -1;
    }
    return 0;
}

int pv_profile_build(pv_file *f, pv_symbolizer *sym, bool with_children, pv_profile *out,
                     pv_error *err)
{
    return build(f, sym, with_children, NULL, true, out, err);
}

int pv_profile_build_range(pv_file *f, pv_symbolizer *sym, bool with_children,
                           struct pv_sample_range *range, pv_profile *out, pv_error *err)
{
    return build(f, sym, with_children, range, false, out, err);
}

void pv_profile_free(pv_profile *p)
{
    for (size_t i = 0; i < p->nr_names; i++)
        free(p->names[i]);
    free(p->names);
    pv_key_table_free(&p->name_keys);
    free(p->rows);
    free(p->slots);
    free(p->event_periods);
    free(p->event_overflowed);
    if (p->kept)
        p->free_kept(p->kept);
    memset(p, 0, sizeof *p);
}
