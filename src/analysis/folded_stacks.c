#include "analysis/folded_stacks.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sample_pass.h"
#include "base/byte_hash.h"
#include "base/key_table.h"
#include "base/pv_alloc.h"
#include "base/pv_array.h"
#include "base/pv_stop.h"
#include "base/pv_strbuf.h"
#include "decode/sample.h"
#include "format/event_names.h"
#include "format/perf_abi.h"
#include "render/folded_stack.h"
#include "symbols/sample_stack.h"

/* perf_callchains' rowids hold 8192 rows a sample: it ends an unwound
 * stack there, and so does this */
#define MAX_UNWOUND_DEPTH 8192
/* the stack key's comm for a sample without a stack */
#define NO_STACK UINT32_MAX
/* samples between two asks whether to stop */
#define STOP_EVERY 4096

/* What a frame's name is cached by: the identity it is made from. */
enum name_kind {
    NAME_SYM,           /* a frame's symbol (the symbolizer's one pointer per symbol) */
    NAME_DSO,           /* a frame without a symbol: "[dso]" */
    NAME_IP,            /* neither: 0x<ip> */
    NAME_OWN_SYM,       /* the same three for a sample's own frame (no frames), */
    NAME_OWN_DSO,       /* whose name keeps its line breaks */
    NAME_OWN_IP,
};

typedef struct name_slot {
    uint64_t what;          /* the pointer or the ip */
    uint32_t kind;          /* enum name_kind + 1; 0: empty */
    uint32_t name;          /* its number in names */
} name_slot;

typedef struct folding {
    pv_file *f;
    pv_symbolizer *sym;
    const char *event;
    /* per attr: its event's number (the first attr of its name), or -1
     * when its samples are not folded */
    int64_t *event_of;
    size_t nr_attrs;
    pv_folded_stacks *out;      /* its names, stacks and rows (one per stack) */
    size_t cap_rows;
    name_slot *cache;           /* open addressing over (kind, what) */
    size_t nr_cached, nr_cache_slots;
    uint32_t *frames;           /* the current sample's, leaf first */
    size_t cap_frames;
    uint32_t *key;              /* the current sample's stack key */
    size_t cap_key;
    pv_strbuf text;             /* scratch for a name */
    uint64_t visited;
    pv_sample_stack stack;      /* last: large, and needs no clearing */
} folding;

static int no_memory(folding *fo, pv_error *err)
{
    return pv_error_set(err, "%s: out of memory folding the stacks", fo->f->path);
}

/* The number of the text's name (the text as it is written); -1 out of memory. */
static int64_t intern_text(folding *fo)
{
    if (fo->text.failed)
        return -1;
    bool added;
    return pv_key_table_intern(&fo->out->names, fo->text.text ? fo->text.text : "", fo->text.len,
                               &added);
}

/* Appends n bytes of s to the scratch text, ';' (and, when all_breaks,
 * line breaks) written ':', as perf_folded and the SQL's replace() do. */
static void append_escaped(pv_strbuf *out, const char *s, size_t n, bool all_breaks)
{
    size_t start = 0;
    for (size_t k = 0; k < n; k++) {
        if (s[k] == ';' || (all_breaks && (s[k] == '\n' || s[k] == '\r'))) {
            pv_strbuf_append(out, s + start, k - start);
            pv_strbuf_append(out, ":", 1);
            start = k + 1;
        }
    }
    pv_strbuf_append(out, s + start, n - start);
}

/* Names a frame into the scratch text: perf_frame_name's rule, then
 * escaped.  False when there is no name (no sym, dso or ip). */
static bool name_frame(folding *fo, const char *sym, const char *dso, bool has_ip, uint64_t ip,
                       bool all_breaks)
{
    pv_strbuf raw = {0};
    bool named = pv_folded_frame_name(&raw, sym, sym ? strlen(sym) : 0, dso,
                                      dso ? strlen(dso) : 0, has_ip, ip);
    pv_strbuf_reset(&fo->text);
    if (named)
        append_escaped(&fo->text, raw.text, raw.len, all_breaks);
    else if (raw.failed)
        fo->text.failed = true;
    pv_strbuf_free(&raw);
    return named || raw.failed;
}

static size_t cache_hash(uint32_t kind, uint64_t what)
{
    return (size_t)pv_hash_bytes(kind, &what, sizeof what);
}

static bool grow_cache(folding *fo)
{
    size_t n = fo->nr_cache_slots ? fo->nr_cache_slots * 2 : 1024;
    name_slot *slots = pv_calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < fo->nr_cache_slots; i++) {
        name_slot *s = &fo->cache[i];
        if (!s->kind)
            continue;
        size_t j = cache_hash(s->kind, s->what) & (n - 1);
        while (slots[j].kind)
            j = (j + 1) & (n - 1);
        slots[j] = *s;
    }
    free(fo->cache);
    fo->cache = slots;
    fo->nr_cache_slots = n;
    return true;
}

/* The number of a frame's name, made once per symbol, dso or ip; -1 out
 * of memory, -2 no name. */
static int64_t frame_name(folding *fo, const char *sym, const char *dso, bool has_ip,
                          uint64_t ip, bool own)
{
    enum name_kind kind = sym ? NAME_SYM : dso ? NAME_DSO : NAME_IP;
    uint64_t what = sym ? (uint64_t)(uintptr_t)sym : dso ? (uint64_t)(uintptr_t)dso : ip;
    if (!sym && !dso && !has_ip)
        return -2;
    uint32_t tag = (uint32_t)kind + (own ? NAME_OWN_SYM : 0) + 1;
    if ((fo->nr_cached + 1) * 2 > fo->nr_cache_slots && !grow_cache(fo))
        return -1;
    size_t j = cache_hash(tag, what) & (fo->nr_cache_slots - 1);
    for (; fo->cache[j].kind; j = (j + 1) & (fo->nr_cache_slots - 1))
        if (fo->cache[j].kind == tag && fo->cache[j].what == what)
            return fo->cache[j].name;
    name_frame(fo, sym, dso, has_ip, ip, !own);
    int64_t name = intern_text(fo);
    if (name < 0)
        return -1;
    fo->cache[j] = (name_slot){ what, tag, (uint32_t)name };
    fo->nr_cached++;
    return name;
}

static bool push_frame(folding *fo, size_t *nr, uint32_t name)
{
    if (!pv_array_grow((void **)&fo->frames, &fo->cap_frames, *nr + 1, sizeof *fo->frames))
        return false;
    fo->frames[(*nr)++] = name;
    return true;
}

/* The sample's frames' names, leaf first, into fo->frames (*nr of them). */
static int walk_frames(folding *fo, const pv_sample *s, uint64_t key, size_t *nr,
                       pv_error *err)
{
    bool has_thread = (s->sample_type & PV_SAMPLE_TID) != 0;
    pv_stack_frame frame;
    pv_location l;
    int rc;
    *nr = 0;
    pv_sample_stack_start(&fo->stack, fo->f, s, fo->sym, key);
    for (uint64_t depth = 0; (rc = pv_sample_stack_next(&fo->stack, &frame, err)) == 1;
         depth++) {
        if (frame.origin == PV_ORIGIN_DWARF && depth >= MAX_UNWOUND_DEPTH)
            break;
        if (!has_thread) {
            /* no thread, no stack: the frames are walked for their errors */
            continue;
        }
        pv_sample_stack_locate(&fo->stack, &frame, &l);
        int64_t name;
        if (pv_stack_frame_inlined(&frame)) {
            /* the name lives in the stack's buffer: interned by its text */
            pv_strbuf_reset(&fo->text);
            append_escaped(&fo->text, l.sym, strlen(l.sym), true);
            name = intern_text(fo);
        } else {
            name = frame_name(fo, l.sym, l.dso, true, frame.ip, false);
        }
        if (name < 0 || !push_frame(fo, nr, (uint32_t)name))
            return no_memory(fo, err);
    }
    return rc < 0 ? -1 : 0;
}

/* The number of the sample's comm as written, ":<pid>" without one. */
static int64_t comm_name(folding *fo, const pv_sample *s, uint64_t key)
{
    const char *comm = pv_symbolizer_comm(fo->sym, (int32_t)s->tid, key);
    pv_strbuf_reset(&fo->text);
    if (!comm) {
        pv_strbuf_printf(&fo->text, ":%d", (int)(int32_t)s->pid);
        return intern_text(fo);
    }
    size_t start = 0, n = strlen(comm);
    for (size_t k = 0; k < n; k++) {
        if (comm[k] == ' ' || comm[k] == ';') {
            pv_strbuf_append(&fo->text, comm + start, k - start);
            pv_strbuf_append(&fo->text, comm[k] == ' ' ? "_" : ":", 1);
            start = k + 1;
        }
    }
    pv_strbuf_append(&fo->text, comm + start, n - start);
    return intern_text(fo);
}

/* Counts the sample under key (nr numbers). */
static int count(folding *fo, size_t nr, int64_t period, pv_error *err)
{
    bool added;
    pv_folded_stacks *out = fo->out;
    int64_t id = pv_key_table_intern(&out->stacks, fo->key, nr * sizeof *fo->key, &added);
    if (id < 0)
        return no_memory(fo, err);
    if (added) {
        if (!pv_array_grow((void **)&out->rows, &fo->cap_rows, (size_t)id + 1,
                           sizeof *out->rows))
            return no_memory(fo, err);
        out->rows[id] = (pv_folded_row){
            .attr_index = fo->key[0], .stack = (uint32_t)id, .has_stack = fo->key[1] != NO_STACK };
        out->nr_rows = (size_t)id + 1;
    }
    pv_folded_row *row = &out->rows[id];
    row->samples++;
    if (!row->period_overflow && __builtin_add_overflow(row->period, period, &row->period))
        row->period_overflow = true;
    return 0;
}

static bool reserve_key(folding *fo, size_t n)
{
    return pv_array_grow((void **)&fo->key, &fo->cap_key, n, sizeof *fo->key);
}

static int fold_sample(void *ctx, const pv_record *r, const pv_sample *s, pv_error *err)
{
    folding *fo = ctx;
    if (++fo->visited % STOP_EVERY == 0 &&
        pv_stop_check_point(fo->f->stop, fo->f->path, err))
        return -1;
    if ((size_t)s->attr_index >= fo->nr_attrs || fo->event_of[s->attr_index] < 0)
        return 0;
    /* SQL's coalesce(period, 1), the period as an int64 */
    int64_t period = s->has_period ? (int64_t)s->period : 1;
    uint64_t key;
    if (pv_symbolizer_at(fo->sym, r->index, (s->sample_type & PV_SAMPLE_TIME) != 0, s->time,
                         &key, err))
        return -1;
    size_t nr;
    if (walk_frames(fo, s, key, &nr, err))
        return -1;
    if (!reserve_key(fo, nr + 3))
        return no_memory(fo, err);
    fo->key[0] = (uint32_t)fo->event_of[s->attr_index];
    fo->key[1] = NO_STACK;
    if (!(s->sample_type & PV_SAMPLE_TID))
        return count(fo, 2, period, err);
    if (nr == 0) {
        /* no frames: the sample's own */
        bool has_ip = (s->sample_type & PV_SAMPLE_IP) != 0;
        pv_location l;
        memset(&l, 0, sizeof l);
        if (has_ip)
            pv_symbolizer_resolve(fo->sym, (int32_t)s->pid, key, s->misc & PV_MISC_CPUMODE_MASK,
                                  s->ip, &l);
        int64_t own = frame_name(fo, l.sym, l.dso, has_ip, has_ip ? s->ip : 0, true);
        if (own == -2)
            return count(fo, 2, period, err);
        if (own < 0 || !push_frame(fo, &nr, (uint32_t)own))
            return no_memory(fo, err);
    }
    int64_t comm = comm_name(fo, s, key);
    if (comm < 0)
        return no_memory(fo, err);
    fo->key[1] = (uint32_t)comm;
    for (size_t i = 0; i < nr; i++)
        fo->key[2 + i] = fo->frames[nr - 1 - i];
    return count(fo, nr + 2, period, err);
}

/* Which attrs' samples are folded, each under the number of its name. */
static bool choose_events(folding *fo)
{
    fo->nr_attrs = pv_file_nr_attrs(fo->f);
    fo->event_of = pv_malloc((fo->nr_attrs ? fo->nr_attrs : 1) * sizeof *fo->event_of);
    if (!fo->event_of)
        return false;
    for (size_t a = 0; a < fo->nr_attrs; a++) {
        /* every attr has a name, unless memory ran out making them */
        const char *name = pv_file_event_name(fo->f, a);
        if (!name)
            return false;
        fo->event_of[a] = -1;
        if (fo->event && strcmp(name, fo->event) != 0)
            continue;
        fo->event_of[a] = (int64_t)a;
        for (size_t b = 0; b < a; b++) {
            if (strcmp(pv_file_event_name(fo->f, b), name) == 0) {
                fo->event_of[a] = (int64_t)b;
                break;
            }
        }
    }
    return true;
}

/* Name number i of a stack's key (0: the event, 1: the comm, then frames). */
static uint32_t key_part(const pv_folded_stacks *p, const pv_folded_row *row, size_t i,
                         size_t *nr)
{
    size_t len;
    const char *key = pv_key_table_key(&p->stacks, row->stack, &len);
    uint32_t part = 0;
    *nr = len / sizeof part;
    if (i < *nr)
        memcpy(&part, key + i * sizeof part, sizeof part);
    return part;
}

bool pv_folded_stacks_text(const pv_folded_stacks *p, const pv_folded_row *row, pv_strbuf *out)
{
    pv_strbuf_reset(out);
    size_t nr;
    key_part(p, row, 0, &nr);
    for (size_t i = 1; row->has_stack && i < nr; i++) {
        size_t len;
        const char *name = pv_key_table_key(&p->names, key_part(p, row, i, &nr), &len);
        if (i > 1)
            pv_strbuf_append(out, ";", 1);
        pv_strbuf_append(out, name, len);
    }
    return !out->failed;
}

/* Two stacks compared as their texts' bytes are (memcmp, then length),
 * name by name: a name that is a prefix of the other's is followed by ';'
 * or the end.  Names contain no ';'. */
static int compare_stacks(const pv_folded_stacks *p, const pv_folded_row *x,
                          const pv_folded_row *y)
{
    size_t nx, ny;
    key_part(p, x, 0, &nx);
    key_part(p, y, 0, &ny);
    for (size_t i = 1;; i++) {
        if (i == nx || i == ny)
            return (nx > ny) - (nx < ny);
        uint32_t a = key_part(p, x, i, &nx), b = key_part(p, y, i, &ny);
        if (a == b)
            continue;
        size_t la, lb;
        const unsigned char *ta = pv_key_table_key(&p->names, a, &la);
        const unsigned char *tb = pv_key_table_key(&p->names, b, &lb);
        size_t n = la < lb ? la : lb;
        int c = n ? memcmp(ta, tb, n) : 0;
        if (c)
            return c;
        /* one name is a prefix of the other: what follows it (';' or the
         * end of the stack) meets the other's next byte */
        if (la < lb)
            return i + 1 < nx && ';' > tb[la] ? 1 : -1;
        return i + 1 < ny && ';' > ta[lb] ? -1 : 1;
    }
}

/* What rows are sorted with: their file (the events' names) and stacks. */
typedef struct sorting {
    pv_file *f;
    const pv_folded_stacks *p;
} sorting;

static int by_event_then_stack(const void *a, const void *b, void *ctx)
{
    const pv_folded_row *x = a, *y = b;
    const sorting *so = ctx;
    if (x->attr_index != y->attr_index) {
        int c = strcmp(pv_file_event_name(so->f, x->attr_index),
                       pv_file_event_name(so->f, y->attr_index));
        if (c)
            return c;
    }
    if (x->has_stack != y->has_stack)
        return x->has_stack ? 1 : -1;
    return x->has_stack ? compare_stacks(so->p, x, y) : 0;
}

int pv_folded_stacks_build(pv_file *f, pv_symbolizer *sym, const char *event,
                           pv_folded_stacks *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    folding *fo = pv_malloc(sizeof *fo);
    if (!fo)
        return pv_error_set(err, "%s: out of memory folding the stacks", f->path);
    /* the stack needs no clearing (sample_stack.h): only what comes before it */
    memset(fo, 0, offsetof(folding, stack));
    fo->f = f;
    fo->sym = sym;
    fo->event = event;
    fo->out = out;
    int rc = choose_events(fo) ? pv_sample_pass(f, fold_sample, fo, err) : no_memory(fo, err);
    if (rc == 0 && out->nr_rows > 1) {
        sorting so = { f, out };
        qsort_r(out->rows, out->nr_rows, sizeof *out->rows, by_event_then_stack, &so);
    }
    free(fo->event_of);
    free(fo->cache);
    free(fo->frames);
    free(fo->key);
    pv_strbuf_free(&fo->text);
    free(fo);
    if (rc < 0)
        pv_folded_stacks_free(out);
    return rc < 0 ? -1 : 0;
}

void pv_folded_stacks_free(pv_folded_stacks *p)
{
    free(p->rows);
    pv_key_table_free(&p->names);
    pv_key_table_free(&p->stacks);
    memset(p, 0, sizeof *p);
}
