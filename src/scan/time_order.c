#include "scan/time_order.h"

#include <stdlib.h>
#include <string.h>

#include "decode/sample.h"
#include "format/attr.h"
#include "format/perf_abi.h"

#define SIGN_BIT ((uint64_t)1 << 63)

int pv_ordered_scan_start(pv_ordered_scan *o, pv_file *file, const pv_record_filter *filter,
                          pv_record_type_test wants, pv_record_order order, pv_error *err)
{
    memset(o, 0, sizeof *o);
    o->file = file;
    o->order = order;
    return pv_record_scan_start(&o->scan, file, filter, wants, err);
}

void pv_ordered_scan_end(pv_ordered_scan *o)
{
    pv_record_scan_end(&o->scan);
    free(o->queue);
    free(o->sort_buffer);
    free(o->arena);
    free(o->spare);
    free(o->shadow);
    free(o->limits);
    memset(o, 0, sizeof *o);
}

static int out_of_memory(pv_ordered_scan *o, pv_error *err)
{
    return pv_error_set(err, "%s: out of memory holding records to put them in time order",
                        o->file->data_path);
}

/* Grows *p (of elem-byte items) to hold at least need. */
static bool reserve(void **p, uint64_t *capacity, uint64_t need, size_t elem)
{
    if (need <= *capacity)
        return true;
    uint64_t grown = *capacity ? *capacity : 1024;
    while (grown < need)
        grown *= 2;
    void *q = realloc(*p, (size_t)grown * elem);
    if (!q)
        return false;
    *p = q;
    *capacity = grown;
    return true;
}

/* ------------------------------------------------------------------ */
/* Sorting: stable, by key.  A round is a few runs already in order (one
 * per CPU buffer perf read), so runs are found and merged. */

static uint64_t run_end(const pv_queued_record *q, uint64_t from, uint64_t n)
{
    uint64_t i = from + 1;
    while (i < n && q[i - 1].key <= q[i].key)
        i++;
    return i;
}

static void merge(const pv_queued_record *a, uint64_t na, const pv_queued_record *b,
                  uint64_t nb, pv_queued_record *out)
{
    uint64_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = b[j].key < a[i].key ? b[j++] : a[i++];   /* ties: a's first */
    while (i < na)
        out[k++] = a[i++];
    while (j < nb)
        out[k++] = b[j++];
}

static int sort_queue(pv_ordered_scan *o, pv_error *err)
{
    uint64_t n = o->nr_queued;
    if (n < 2 || run_end(o->queue, 0, n) == n)
        return 0;
    uint64_t capacity = o->queue_capacity;
    /* the sort buffer is kept as large as the queue */
    void *p = realloc(o->sort_buffer, (size_t)capacity * sizeof *o->queue);
    if (!p)
        return out_of_memory(o, err);
    o->sort_buffer = p;
    pv_queued_record *src = o->queue, *dst = o->sort_buffer;
    for (;;) {
        uint64_t i = 0;
        bool one_run = false;
        while (i < n) {
            uint64_t mid = run_end(src, i, n);
            if (mid == n) {
                one_run = i == 0;
                memcpy(dst + i, src + i, (size_t)(n - i) * sizeof *src);
                break;
            }
            uint64_t end = run_end(src, mid, n);
            merge(src + i, mid - i, src + mid, end - mid, dst + i);
            i = end;
        }
        pv_queued_record *t = src;
        src = dst;
        dst = t;
        if (one_run)
            break;
    }
    /* src holds the sorted queue (the last pass copied it whole) */
    o->queue = src;
    o->sort_buffer = dst;
    return 0;
}

/* Sorts the queue and releases the records with key <= limit. */
static int release_up_to(pv_ordered_scan *o, uint64_t limit, pv_error *err)
{
    if (sort_queue(o, err))
        return -1;
    uint64_t lo = 0, hi = o->nr_queued;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (o->queue[mid].key <= limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    o->released = lo;
    return 0;
}

/* Drops the records handed out: the rest move to the spare arena, which
 * becomes the arena.  The rows handed out last stay readable in the old
 * one until the next refill. */
static int drop_released(pv_ordered_scan *o, pv_error *err)
{
    if (o->released == 0)
        return 0;
    uint64_t bytes = 0;
    for (uint64_t i = o->released; i < o->nr_queued; i++)
        bytes += o->queue[i].rec.size;
    if (!reserve((void **)&o->spare, &o->spare_capacity, bytes ? bytes : 1, 1))
        return out_of_memory(o, err);
    uint64_t at = 0;
    for (uint64_t i = o->released; i < o->nr_queued; i++) {
        pv_queued_record q = o->queue[i];
        memcpy(o->spare + at, o->arena + q.at, q.rec.size);
        q.at = at;
        at += q.rec.size;
        o->queue[i - o->released] = q;
    }
    uint8_t *t = o->arena;
    o->arena = o->spare;
    o->spare = t;
    uint64_t c = o->arena_capacity;
    o->arena_capacity = o->spare_capacity;
    o->spare_capacity = c;
    o->arena_len = at;
    o->nr_queued -= o->released;
    o->released = o->next_out = 0;
    return 0;
}

static int enqueue(pv_ordered_scan *o, const pv_record *rec, uint64_t key, pv_error *err)
{
    if (!reserve((void **)&o->queue, &o->queue_capacity, o->nr_queued + 1, sizeof *o->queue) ||
        !reserve((void **)&o->arena, &o->arena_capacity, o->arena_len + rec->size, 1))
        return out_of_memory(o, err);
    pv_queued_record *q = &o->queue[o->nr_queued++];
    q->key = key;
    q->at = o->arena_len;
    q->rec = *rec;
    q->rec.bytes = NULL;
    memcpy(o->arena + o->arena_len, rec->bytes, rec->size);
    o->arena_len += rec->size;
    return 0;
}

/* ------------------------------------------------------------------ */
/* perf's rounds */

/* A FINISHED_ROUND: what perf's queue holds up to the limit set at the
 * round before goes out; the next limit is the highest time queued. */
static int finish_round(pv_ordered_scan *o, pv_error *err)
{
    o->seen_round = true;
    uint64_t limit = o->next_flush;
    if (limit) {    /* perf flushes nothing up to 0 */
        if (release_up_to(o, limit, err))
            return -1;
        uint64_t kept = 0;
        for (uint64_t i = 0; i < o->nr_shadow; i++)
            if (o->shadow[i] > limit)
                o->shadow[kept++] = o->shadow[i];
        o->nr_shadow = kept;
    }
    o->next_flush = o->max_time;
    return 0;
}

/* A timed record enters perf's queue: the highest time queued, reset
 * when the queue had run empty, as perf's is. */
static void note_queued_time(pv_ordered_scan *o, uint64_t time)
{
    bool empty = o->nr_queued == o->released && o->nr_shadow == 0;
    if (empty || time > o->max_time)
        o->max_time = time;
}

/* ------------------------------------------------------------------ */
/* The time index */

static uint64_t time_key(const pv_ordered_scan *o, int64_t time)
{
    if (o->order == PV_ORDER_TIME)
        return (uint64_t)time ^ SIGN_BIT;
    /* perf compares u64s; a time past 2^63 hides a chunk's lowest
     * positive one, so it holds everything until then */
    return time < 0 ? 0 : (uint64_t)time;
}

static int use_index(pv_ordered_scan *o, pv_error *err)
{
    if (pv_time_index_get_complete(o->file, &o->index, err))
        return -1;
    const pv_time_index *ti = o->index;
    o->limits = malloc((size_t)(ti->nr_chunks ? ti->nr_chunks : 1) * sizeof *o->limits);
    if (!o->limits)
        return out_of_memory(o, err);
    uint64_t lowest = UINT64_MAX;
    for (uint64_t c = ti->nr_chunks; c-- > 0;) {
        if (ti->chunks[c].has_time) {
            uint64_t k = time_key(o, ti->chunks[c].min_time);
            if (k < lowest)
                lowest = k;
        }
        o->limits[c] = lowest;
    }
    o->by_index = true;
    o->chunk = 0;
    o->nr_shadow = 0;
    return 0;
}

/* The record at ordinal index is read: on entering a new chunk, what no
 * record ahead can precede goes out. */
static int index_reached(pv_ordered_scan *o, uint64_t index, pv_error *err)
{
    const pv_time_index *ti = o->index;
    uint64_t c = o->chunk;
    while (c + 1 < ti->nr_chunks && ti->chunks[c + 1].first_index <= index)
        c++;
    if (c == o->chunk || o->hold_all)
        return 0;
    o->chunk = c;
    /* keys below the limit, not equal: a later record of the same key
     * follows those queued, which is where it goes anyway */
    return release_up_to(o, o->limits[c], err);
}

/* Whether every record can carry a time: otherwise PV_ORDER_TIME, which
 * puts the records without one first, holds all. */
static bool all_events_timed(const pv_file *f)
{
    for (size_t i = 0; i < f->nr_attrs; i++) {
        const pv_attr *a = &f->attrs[i];
        if (!(a->sample_type & PV_SAMPLE_TIME) || !pv_attr_flag(a, PV_ATTR_SAMPLE_ID_ALL))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */

static void hand_out(pv_ordered_scan *o, pv_record *rec)
{
    const pv_queued_record *q = &o->queue[o->next_out++];
    *rec = q->rec;
    rec->bytes = o->arena + q->at;
}

int pv_ordered_scan_next(pv_ordered_scan *o, pv_record *rec, pv_error *err)
{
    if (o->order == PV_ORDER_FILE)
        return pv_record_scan_next(&o->scan, rec, err);
    if (o->order == PV_ORDER_TIME && !o->by_index && !o->ended) {
        o->hold_all = !all_events_timed(o->file);
        if (!o->hold_all && use_index(o, err))
            return -1;
        o->by_index = true;
    } else if (!o->by_index && o->file->nr_segments && use_index(o, err)) {
        return -1;
    }
    for (;;) {
        if (o->next_out < o->released) {
            hand_out(o, rec);
            return 1;
        }
        if (o->ended)
            return 0;
        if (drop_released(o, err))
            return -1;
        pv_record r;
        bool passes;
        int rc = pv_record_scan_next_any(&o->scan, &r, &passes, err);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            o->ended = true;
            if (release_up_to(o, UINT64_MAX, err))
                return -1;
            continue;
        }
        bool by_rounds = o->order == PV_ORDER_PERF && !o->by_index;
        if (r.type == PV_RECORD_FINISHED_ROUND) {
            if (by_rounds && finish_round(o, err))
                return -1;
            if (passes) {
                *rec = r;
                return 1;
            }
            continue;
        }
        if (!passes && !by_rounds)
            continue;
        bool timed;
        uint64_t time;
        if (pv_record_time(o->file, &r, &timed, &time, err))
            return -1;
        if (o->by_index && o->index && index_reached(o, r.index, err))
            return -1;
        if (o->order == PV_ORDER_TIME) {
            /* SQL puts NULL before every number */
            if (enqueue(o, &r, timed ? time ^ SIGN_BIT : 0, err))
                return -1;
            continue;
        }
        if (!timed || time == 0 || time == UINT64_MAX) {
            if (!passes)
                continue;
            *rec = r;    /* perf hands it out at once */
            return 1;
        }
        if (by_rounds)
            note_queued_time(o, time);
        if (!passes) {
            if (!reserve((void **)&o->shadow, &o->shadow_capacity, o->nr_shadow + 1,
                         sizeof *o->shadow))
                return out_of_memory(o, err);
            o->shadow[o->nr_shadow++] = time;
            continue;
        }
        if (enqueue(o, &r, time, err))
            return -1;
        if (by_rounds && !o->seen_round && o->arena_len > PV_ORDER_ROUNDLESS_BYTES) {
            if (use_index(o, err) || index_reached(o, r.index, err))
                return -1;
        }
    }
}
