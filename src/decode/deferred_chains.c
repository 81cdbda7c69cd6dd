#include "decode/deferred_chains.h"

#include <stdlib.h>
#include <string.h>

#include "base/pv_alloc.h"
#include "decode/record_types.h"
#include "format/perf_abi.h"
#include "stream/record_walk.h"

bool pv_sample_deferred_cookie(const pv_sample *s, uint64_t *cookie)
{
    if (s->attr_index < 0 || !(s->sample_type & PV_SAMPLE_CALLCHAIN) || s->callchain_nr < 2 ||
        pv_sample_u64_at(s, s->callchain, s->callchain_nr - 2) != PV_CONTEXT_USER_DEFERRED)
        return false;
    *cookie = pv_sample_u64_at(s, s->callchain, s->callchain_nr - 1);
    return true;
}

/* A sample that waits, kept while the index is built to count those whose
 * record never comes. */
typedef struct waiting_sample {
    uint64_t tid, time, ordinal, cookie, offset;
} waiting_sample;

typedef struct builder {
    pv_file *f;
    pv_deferred_chains *dc;
    uint64_t records_cap, entries_cap;
    waiting_sample *waiting;
    uint64_t waiting_cap;
    pv_error *err;
} builder;

static uint64_t bytes_used(const builder *b)
{
    return b->records_cap * sizeof(pv_deferred_record) + b->entries_cap * sizeof(uint64_t) +
           b->waiting_cap * sizeof(waiting_sample);
}

/* Room for one more of an array of elem-byte items, within the bound. */
static int grow(builder *b, void **array, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint64_t grown = *cap ? *cap : 256;
    while (grown < need)
        grown *= 2;
    uint64_t more = (grown - *cap) * elem;
    if (bytes_used(b) > PV_DEFERRED_MAX_BYTES || PV_DEFERRED_MAX_BYTES - bytes_used(b) < more)
        return pv_error_set(b->err, "%s: the deferred callchains need more than %llu MiB to be "
                            "stitched", b->f->data_path,
                            (unsigned long long)(PV_DEFERRED_MAX_BYTES >> 20));
    void *p = pv_realloc(*array, (size_t)(grown * elem));
    if (!p)
        return pv_error_set(b->err, "%s: out of memory for the deferred callchains",
                            b->f->data_path);
    *array = p;
    *cap = grown;
    return 0;
}

static int add_record(builder *b, const pv_record *rec)
{
    pv_rec_callchain_deferred c;
    pv_error ignored;
    /* one that does not decode is perf_diagnostics' malformed record: the
     * samples it was for stay kernel-only, and are counted so */
    if (pv_rec_callchain_deferred_decode(b->f, rec, &c, &ignored))
        return 0;
    pv_deferred_chains *dc = b->dc;
    if (grow(b, (void **)&dc->records, &b->records_cap, dc->nr_records + 1, sizeof *dc->records) ||
        grow(b, (void **)&dc->entries, &b->entries_cap, dc->nr_entries + c.nr, sizeof *dc->entries))
        return -1;
    pv_deferred_record *r = &dc->records[dc->nr_records++];
    r->tid = (c.trailer.fields & PV_SAMPLE_TID) ? c.trailer.tid : PV_DEFERRED_NO_TID;
    r->time = (c.trailer.fields & PV_SAMPLE_TIME) ? c.trailer.time : 0;
    r->ordinal = rec->index;
    r->cookie = c.cookie;
    r->first_entry = dc->nr_entries;
    r->nr_entries = c.nr;
    for (uint64_t i = 0; i < c.nr; i++)
        dc->entries[dc->nr_entries++] = pv_rec_callchain_deferred_ip(&c, i);
    return 0;
}

static uint64_t sample_tid(const pv_sample *s)
{
    return (s->sample_type & PV_SAMPLE_TID) ? s->tid : PV_DEFERRED_NO_TID;
}

static uint64_t sample_time(const pv_sample *s)
{
    return (s->sample_type & PV_SAMPLE_TIME) ? s->time : 0;
}

static int add_sample(builder *b, const pv_record *rec)
{
    pv_sample s;
    pv_error ignored;
    uint64_t cookie;
    if (pv_sample_decode(b->f, rec, &s, &ignored) || !pv_sample_deferred_cookie(&s, &cookie))
        return 0;
    uint64_t n = b->dc->waiting;
    if (grow(b, (void **)&b->waiting, &b->waiting_cap, n + 1, sizeof *b->waiting))
        return -1;
    b->waiting[n] = (waiting_sample){ sample_tid(&s), sample_time(&s), rec->index, cookie,
                                      rec->file_offset };
    b->dc->waiting++;
    return 0;
}

/* (tid, time, ordinal) order */
static int compare_key(uint64_t tid_a, uint64_t time_a, uint64_t ord_a, uint64_t tid_b,
                       uint64_t time_b, uint64_t ord_b)
{
    if (tid_a != tid_b)
        return tid_a < tid_b ? -1 : 1;
    if (time_a != time_b)
        return time_a < time_b ? -1 : 1;
    if (ord_a != ord_b)
        return ord_a < ord_b ? -1 : 1;
    return 0;
}

static int compare_records(const void *a, const void *b)
{
    const pv_deferred_record *x = a, *y = b;
    return compare_key(x->tid, x->time, x->ordinal, y->tid, y->time, y->ordinal);
}

/* The first record of tid after (time, ordinal): perf's next record of
 * the task; NULL when none comes. */
static const pv_deferred_record *next_record(const pv_deferred_chains *dc, uint64_t tid,
                                             uint64_t time, uint64_t ordinal)
{
    uint64_t lo = 0, hi = dc->nr_records;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const pv_deferred_record *r = &dc->records[mid];
        if (compare_key(r->tid, r->time, r->ordinal, tid, time, ordinal) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == dc->nr_records || dc->records[lo].tid != tid)
        return NULL;
    return &dc->records[lo];
}

static const pv_deferred_record *match(const pv_deferred_chains *dc, uint64_t tid,
                                       uint64_t time, uint64_t ordinal, uint64_t cookie)
{
    const pv_deferred_record *r = next_record(dc, tid, time, ordinal);
    return r && r->cookie == cookie ? r : NULL;
}

static void count_unmatched(builder *b)
{
    pv_deferred_chains *dc = b->dc;
    for (uint64_t i = 0; i < dc->waiting; i++) {
        const waiting_sample *w = &b->waiting[i];
        if (match(dc, w->tid, w->time, w->ordinal, w->cookie))
            continue;
        if (dc->unmatched++ == 0) {
            dc->first_unmatched_record = w->ordinal;
            dc->first_unmatched_offset = w->offset;
        }
    }
}

static int build(pv_file *f, pv_deferred_chains *dc, pv_error *err)
{
    builder b = { .f = f, .dc = dc, .err = err };
    pv_walk w;
    pv_record rec;
    int rc;
    pv_walk_start(&w, f);
    while ((rc = pv_walk_next(&w, &rec, err)) == 1) {
        if (rec.type == PV_RECORD_CALLCHAIN_DEFERRED)
            rc = add_record(&b, &rec);
        else if (rec.type == PV_RECORD_SAMPLE)
            rc = add_sample(&b, &rec);
        if (rc < 0)
            break;
    }
    pv_walk_end(&w);
    if (rc == 0) {
        if (dc->nr_records > 1)
            qsort(dc->records, (size_t)dc->nr_records, sizeof *dc->records, compare_records);
        count_unmatched(&b);
    }
    free(b.waiting);
    return rc < 0 ? -1 : 0;
}

static const char deferred_chains_key;

static void free_chains(void *p)
{
    pv_deferred_chains *dc = p;
    if (!dc)
        return;
    free(dc->records);
    free(dc->entries);
    free(dc);
}

int pv_deferred_chains_get(pv_file *f, const pv_deferred_chains **out, pv_error *err)
{
    void *kept;
    if (!pv_file_state_get(f, &deferred_chains_key, &kept)) {
        pv_deferred_chains *dc = pv_calloc(1, sizeof *dc);
        if (!dc)
            return pv_error_set(err, "%s: out of memory for the deferred callchains",
                                f->data_path);
        if (build(f, dc, err)) {
            free_chains(dc);
            return -1;
        }
        if (pv_file_state_set(f, &deferred_chains_key, dc, free_chains, err))
            return -1;      /* dc freed */
        kept = dc;
    }
    *out = kept;
    return 0;
}

int pv_deferred_chains_find(const pv_deferred_chains *dc, const pv_sample *s, uint64_t cookie,
                            const uint64_t **entries, uint64_t *nr)
{
    const pv_deferred_record *r = match(dc, sample_tid(s), sample_time(s), s->record_index,
                                        cookie);
    if (!r)
        return 0;
    *entries = dc->entries + r->first_entry;
    *nr = r->nr_entries;
    return 1;
}
