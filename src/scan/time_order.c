#include "scan/time_order.h"

#include <stdlib.h>
#include <string.h>

#include "base/pv_array.h"
#include "decode/sample.h"
#include "format/attr.h"
#include "format/perf_abi.h"
#include "base/pv_alloc.h"

#define SIGN_BIT ((uint64_t)1 << 63)

/* Where a SAMPLE's time sits when every event puts it in one place. */
static uint64_t common_sample_time_at(const pv_file *f)
{
    if (f->nr_attrs == 0)
        return 0;
    uint64_t t = f->attrs[0].sample_type;
    for (size_t i = 1; i < f->nr_attrs; i++)
        if (f->attrs[i].sample_type != t)
            return 0;
    return pv_sample_time_offset(t);
}

int pv_ordered_scan_start(pv_ordered_scan *o, pv_file *file, const pv_record_filter *filter,
                          pv_record_type_test wants, pv_record_order order, pv_error *err)
{
    memset(o, 0, sizeof *o);
    o->file = file;
    o->order = order;
    o->sample_time_at = common_sample_time_at(file);
    o->roundless_limit = PV_ORDER_ROUNDLESS_BYTES;
    if (pv_record_scan_start(&o->scan, file, filter, wants, err))
        return -1;
    /* enqueue_span's records: no filter or index to ask, samples wanted,
     * their time in one place */
    o->span_samples = order == PV_ORDER_PERF && !o->scan.filter && !o->scan.time_index &&
                      (!wants || wants(PV_RECORD_SAMPLE)) && o->sample_time_at != 0;
    return 0;
}

void pv_ordered_scan_end(pv_ordered_scan *o)
{
    pv_record_scan_end(&o->scan);
    free(o->slots);
    free(o->sort_buffer);
    for (uint64_t i = 0; i < o->nr_blocks; i++)
        free(o->blocks[i].bytes);
    free(o->blocks);
    free(o->free_blocks);
    free(o->shadow);
    free(o->limits);
    free(o->run_starts);
    memset(o, 0, sizeof *o);
}

static int out_of_memory(pv_ordered_scan *o, pv_error *err)
{
    return pv_error_set(err, "%s: out of memory holding records to put them in time order",
                        o->file->data_path);
}

/* The two arrays of slots share one capacity. */
static bool reserve_queue(pv_ordered_scan *o, uint64_t need)
{
    if (need <= o->capacity)
        return true;
    uint64_t grown = o->capacity ? o->capacity * 2 : 1024;
    while (grown < need)
        grown *= 2;
    void *c = pv_realloc(o->slots, (size_t)grown * sizeof *o->slots);
    if (c)
        o->slots = c;
    void *d = pv_realloc(o->sort_buffer, (size_t)grown * sizeof *o->slots);
    if (d)
        o->sort_buffer = d;
    if (!c || !d)
        return false;
    o->capacity = grown;
    return true;
}

/* ------------------------------------------------------------------ */
/* Sorting: stable, by key.  A round is a few runs already in order (one
 * per CPU buffer perf read, and what the last round left): the queue
 * notes where each begins as records come in, and they are merged. */

static void merge(const pv_queue_slot *a, uint64_t na, const pv_queue_slot *b, uint64_t nb,
                  pv_queue_slot *out)
{
    const pv_queue_slot *a_end = a + na, *b_end = b + nb;
    /* without a branch on the keys: runs of CPUs interleave unpredictably */
    if (a < a_end && b < b_end) {
        for (;;) {
            bool take_b = b->key < a->key;      /* ties: a's first */
            *out++ = *(take_b ? b : a);
            b += take_b;
            a += !take_b;
            if (a == a_end || b == b_end)
                break;
        }
    }
    while (a < a_end)
        *out++ = *a++;
    while (b < b_end)
        *out++ = *b++;
}

/* Merges the runs two by two until one is left. */
static void sort_queue(pv_ordered_scan *o)
{
    uint64_t n = o->nr_queued, *runs = o->run_starts, k = o->nr_runs;
    if (k <= 1)
        return;
    pv_queue_slot *src = o->slots, *dst = o->sort_buffer;
    while (k > 1) {
        uint64_t merged = 0;
        for (uint64_t i = 0; i < k; i += 2) {
            uint64_t start = runs[i];
            uint64_t mid = i + 1 < k ? runs[i + 1] : n;
            uint64_t end = i + 2 < k ? runs[i + 2] : n;
            if (mid < end)
                merge(src + start, mid - start, src + mid, end - mid, dst + start);
            else
                memcpy(dst + start, src + start, (size_t)(end - start) * sizeof *src);
            runs[merged++] = start;
        }
        k = merged;
        pv_queue_slot *t = src;
        src = dst;
        dst = t;
    }
    o->slots = src;
    o->sort_buffer = dst;
    o->nr_runs = 1;
}

/* The first of slots[from, to) (in order) whose key is above limit. */
static uint64_t first_above(const pv_queue_slot *slots, uint64_t from, uint64_t to, uint64_t limit)
{
    while (from < to) {
        uint64_t mid = from + (to - from) / 2;
        if (slots[mid].key <= limit)
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

/* Where the records of a run [from, to) that go before a record of key k
 * end: those of a lower key, and of the same key when the run comes
 * before that record's (ties go in file order). */
static const pv_queue_slot *run_split(const pv_queue_slot *from, const pv_queue_slot *to,
                                      uint64_t k, bool ties_before)
{
    if (!ties_before && k == 0)
        return from;
    return from + first_above(from, 0, (uint64_t)(to - from), ties_before ? k : k - 1);
}

/* Runs x and y (x first) hold nearly all the records of the live runs:
 * the few others go out one at a time, in order, each after the parts of
 * x and y that go before it, merged as two.  Records out. */
static uint64_t merge_around_few(const pv_queue_slot **at, const pv_queue_slot **last,
                                 unsigned nr_live, unsigned x, unsigned y, pv_queue_slot *out)
{
    uint64_t m = 0;
    for (;;) {
        unsigned s = nr_live;   /* the next of the few: the least, the first run's on ties */
        for (unsigned i = 0; i < nr_live; i++)
            if (i != x && i != y && at[i] < last[i] && (s == nr_live || at[i]->key < at[s]->key))
                s = i;
        if (s == nr_live)
            break;
        const pv_queue_slot *end_x = run_split(at[x], last[x], at[s]->key, x < s);
        const pv_queue_slot *end_y = run_split(at[y], last[y], at[s]->key, y < s);
        merge(at[x], (uint64_t)(end_x - at[x]), at[y], (uint64_t)(end_y - at[y]), out + m);
        m += (uint64_t)(end_x - at[x]) + (uint64_t)(end_y - at[y]);
        at[x] = end_x;
        at[y] = end_y;
        out[m++] = *at[s]++;
    }
    merge(at[x], (uint64_t)(last[x] - at[x]), at[y], (uint64_t)(last[y] - at[y]), out + m);
    return m + (uint64_t)(last[x] - at[x]) + (uint64_t)(last[y] - at[y]);
}

/* Two runs hold nearly all of a release (one per CPU buffer, and a few
 * records left from the round before): the others at most 1/FEW_RUNS of
 * them. */
#define FEW_RUNS 16

/* Runs merged in one pass at a release; a queue of more is sorted whole. */
#define MERGE_WAYS 8

/* A few runs (what the last round left, one per CPU buffer of the new
 * one): only their parts up to limit are merged, in one pass, into
 * sort_buffer, and handed out from there; the rest stays as it came,
 * moved to the front.  Each record is merged once, not again with each
 * round it waits through. */
static void release_runs(pv_ordered_scan *o, uint64_t limit)
{
    pv_queue_slot *q = o->slots, *out = o->sort_buffer;
    uint64_t n = o->nr_queued, k = o->nr_runs;
    /* run r: [start, end) goes out, [end, stop) stays.  The runs with
     * some left to go out, in file order (ties go to the earlier): the
     * next of each (at), its key, and where its part ends (last). */
    uint64_t end[MERGE_WAYS], stop[MERGE_WAYS];
    const pv_queue_slot *at[MERGE_WAYS], *last[MERGE_WAYS];
    uint64_t key[MERGE_WAYS];
    unsigned nr_live = 0;
    for (unsigned r = 0; r < k; r++) {
        uint64_t start = o->run_starts[r];
        stop[r] = r + 1 < k ? o->run_starts[r + 1] : n;
        end[r] = first_above(q, start, stop[r], limit);
        if (start < end[r]) {
            at[nr_live] = q + start;
            last[nr_live] = q + end[r];
            key[nr_live++] = q[start].key;
        }
    }
    uint64_t m = 0;
    if (nr_live > 2) {
        /* the two longest runs, x before y */
        unsigned x = 0, y = 1;
        uint64_t total = 0;
        for (unsigned i = 0; i < nr_live; i++) {
            total += (uint64_t)(last[i] - at[i]);
            if (i >= 2 && last[i] - at[i] > last[x] - at[x] && last[x] - at[x] <= last[y] - at[y])
                x = i;
            else if (i >= 2 && last[i] - at[i] > last[y] - at[y])
                y = i;
        }
        if (x > y) {
            unsigned t = x;
            x = y;
            y = t;
        }
        uint64_t few = total - (uint64_t)(last[x] - at[x]) - (uint64_t)(last[y] - at[y]);
        if (few <= (total - few) / FEW_RUNS) {
            m = merge_around_few(at, last, nr_live, x, y, out);
            nr_live = 0;
        }
    }
    while (nr_live > 2) {
        unsigned best = 0;
        for (unsigned i = 1; i < nr_live; i++)
            if (key[i] < key[best])
                best = i;
        out[m++] = *at[best]++;
        if (at[best] < last[best]) {
            key[best] = at[best]->key;
            continue;
        }
        nr_live--;
        for (unsigned i = best; i < nr_live; i++) {
            at[i] = at[i + 1];
            last[i] = last[i + 1];
            key[i] = key[i + 1];
        }
    }
    if (nr_live == 2) {
        merge(at[0], (uint64_t)(last[0] - at[0]), at[1], (uint64_t)(last[1] - at[1]), out + m);
        m += (uint64_t)(last[0] - at[0]) + (uint64_t)(last[1] - at[1]);
    } else if (nr_live == 1) {
        memcpy(out + m, at[0], (size_t)(last[0] - at[0]) * sizeof *q);
        m += (uint64_t)(last[0] - at[0]);
    }
    /* what stays, moved to the front, still in runs */
    uint64_t kept = 0;
    o->nr_runs = 0;
    for (unsigned r = 0; r < k; r++) {
        uint64_t len = stop[r] - end[r];
        if (len == 0)
            continue;
        memmove(q + kept, q + end[r], (size_t)len * sizeof *q);
        if (kept == 0 || q[kept].key < q[kept - 1].key)
            o->run_starts[o->nr_runs++] = kept;
        kept += len;
    }
    o->nr_queued = kept;
    o->released = m;
    o->released_aside = true;
}

/* Releases the records with key <= limit, in order: [next_out, released)
 * of the slots (sorted whole first), or of sort_buffer when they were set
 * aside (released_aside). */
static void release_up_to(pv_ordered_scan *o, uint64_t limit)
{
    if (o->nr_runs >= 2 && o->nr_runs <= MERGE_WAYS) {
        release_runs(o, limit);
        return;
    }
    sort_queue(o);
    o->released = first_above(o->slots, 0, o->nr_queued, limit);
    o->released_aside = false;
}

/* Records queued and not released. */
static uint64_t waiting(const pv_ordered_scan *o)
{
    return o->released_aside ? o->nr_queued : o->nr_queued - o->released;
}

/* Drops the slots handed out (hand_out gave their blocks back); the rest
 * move, in sorted order, to the front. */
static void drop_released_slots(pv_ordered_scan *o)
{
    if (o->released_aside) {
        o->released = o->next_out = 0;
        o->released_aside = false;
        return;
    }
    uint64_t kept = o->nr_queued - o->released;
    memmove(o->slots, o->slots + o->released, (size_t)kept * sizeof *o->slots);
    o->nr_queued = kept;
    /* what was released was sorted: the first run */
    for (uint64_t i = 1; i < o->nr_runs; i++)
        o->run_starts[i] -= o->released;
    o->nr_runs = kept ? o->nr_runs : 0;
    o->released = o->next_out = 0;
}

/* Inline: asked before each record is read, with nothing released nearly
 * always. */
static inline void drop_released(pv_ordered_scan *o)
{
    if (o->released)
        drop_released_slots(o);
}

#define BLOCK_BYTES (256u << 10)    /* a record is at most 64 KiB */

/* What a copied record keeps in a block: its pv_record, then its bytes. */
typedef struct held_record {
    pv_record rec;
} held_record;

/* Its size in a block, padded to the next word. */
static uint32_t held_size(uint32_t copied_bytes)
{
    uint32_t n = (uint32_t)sizeof(held_record) + copied_bytes;
    return (n + 7u) & ~7u;
}

/* The block that takes size more bytes. */
static bool block_for(pv_ordered_scan *o, uint32_t size)
{
    if (o->nr_blocks && o->blocks[o->filling].used <= BLOCK_BYTES - size)
        return true;
    /* the full block is freed by its last record from now on */
    if (o->nr_blocks && o->blocks[o->filling].live == 0) {
        o->blocks[o->filling].used = 0;
        return true;
    }
    if (o->nr_free) {
        o->filling = o->free_blocks[--o->nr_free];
        return true;
    }
    /* a slot tells a block by 31 bits */
    if (o->nr_blocks >= PV_QUEUE_COPIED)
        return false;
    size_t capacity = o->blocks_capacity;
    if (!pv_array_grow((void **)&o->blocks, &o->blocks_capacity, o->nr_blocks + 1, sizeof *o->blocks))
        return false;
    if (capacity != o->blocks_capacity &&
        !pv_array_grow((void **)&o->free_blocks, &capacity, o->blocks_capacity, sizeof *o->free_blocks))
        return false;
    pv_order_block *b = &o->blocks[o->nr_blocks];
    memset(b, 0, sizeof *b);
    b->bytes = pv_malloc(BLOCK_BYTES);
    if (!b->bytes)
        return false;
    o->filling = (uint32_t)o->nr_blocks++;
    return true;
}

/* Makes room in the queue for one more record (inline: asked per record,
 * and there nearly always is room). */
static inline bool reserve_slot(pv_ordered_scan *o)
{
    if (o->nr_queued < o->capacity && o->nr_runs < o->runs_capacity)
        return true;
    return reserve_queue(o, o->nr_queued + 1) &&
           (o->nr_runs < o->runs_capacity ||
            pv_array_grow((void **)&o->run_starts, &o->runs_capacity, o->nr_runs + 1,
                         sizeof *o->run_starts));
}

/* The next slot of the queue (reserve_slot made room), for a record of
 * this key. */
static inline pv_queue_slot *append_slot(pv_ordered_scan *o, uint64_t key)
{
    if (o->nr_queued == 0 || key < o->slots[o->nr_queued - 1].key)
        o->run_starts[o->nr_runs++] = o->nr_queued;
    pv_queue_slot *slot = &o->slots[o->nr_queued++];
    slot->key = key;
    return slot;
}

/* Queues rec.  By rounds, records leave within about two rounds: their
 * bytes stay in the walk's buffer (pinned), not copied, and the slot alone
 * says where.  Other orders may hold a few records of a window for long,
 * so they copy. */
static int enqueue_copy(pv_ordered_scan *o, const pv_record *rec, uint64_t key, pv_error *err);

/* Inline: a time-ordered scan queues nearly every record, pinned. */
static inline int enqueue(pv_ordered_scan *o, const pv_record *rec, uint64_t key, bool pin,
                          pv_error *err)
{
    if (!reserve_slot(o))
        return out_of_memory(o, err);
    pv_walk_place place;
    if (pin && pv_walk_pin(&o->scan.walk, rec, &place)) {
        if (place.buffer < PV_QUEUE_COPIED >> 16) {
            pv_queue_slot *slot = append_slot(o, key);
            slot->at = place.at;
            slot->ref = (uint32_t)place.buffer << 16 | place.ordinal_step;
            o->held_bytes += rec->size;
            return 0;
        }
        pv_walk_unpin(&o->scan.walk, place.buffer);
    }
    return enqueue_copy(o, rec, key, err);
}

/* Queues a copy of rec's bytes (reserve_slot made room). */
static __attribute__((noinline)) int enqueue_copy(pv_ordered_scan *o, const pv_record *rec,
                                                  uint64_t key, pv_error *err)
{
    uint32_t size = held_size(rec->size);
    if (!block_for(o, size))
        return out_of_memory(o, err);
    pv_order_block *b = &o->blocks[o->filling];
    pv_queue_slot *slot = append_slot(o, key);
    slot->at = b->used;
    slot->ref = PV_QUEUE_COPIED | o->filling;
    held_record held = { *rec };
    memcpy(b->bytes + b->used, &held, sizeof held);
    memcpy(b->bytes + b->used + sizeof held, rec->bytes, rec->size);
    b->used += size;
    b->live++;
    o->held_bytes += rec->size;
    return 0;
}

/* By rounds, the common record (a SAMPLE that passes, timed at the place
 * every event has its time, whole in the window) taken straight from the
 * walk's window with the ones after it, their buffer pinned once: what
 * the loop of pv_ordered_scan_next would do to each, step by step.  Stops
 * at the first other record, which the loop takes.  The index of a record
 * past which the queue outgrew roundless_limit in *outgrown (else
 * UINT64_MAX): the loop turns to the time index there, as it would. */
static void enqueue_span(pv_ordered_scan *o, uint64_t *outgrown)
{
    *outgrown = UINT64_MAX;
    pv_walk_span span;
    if (!pv_walk_span_begin(&o->scan.walk, &span))
        return;
    /* the words read as they are: a file of the other byte order goes
     * record by record */
    if (o->file->swap)
        return;
    uint64_t time_at = o->sample_time_at;
    /* a record of at least min_size bytes holds its time (time_at >= 8) */
    uint64_t min_size = time_at + 8;
    const uint8_t *p = span.next;
    uint64_t room = span.room;
    /* a slot tells a buffer by 15 bits */
    if (span.buffer >= PV_QUEUE_COPIED >> 16)
        room = 0;
    uint64_t free_slots = o->capacity - o->nr_queued;
    if (room > free_slots)
        room = free_slots;
    /* The queue's counters in locals, stored once after the loop: the
     * slots' stores could otherwise be theirs, and each would be reloaded. */
    pv_queue_slot *slots = o->slots;
    uint64_t *run_starts = o->run_starts;
    uint64_t queued = o->nr_queued, runs = o->nr_runs, runs_capacity = o->runs_capacity;
    uint64_t held = o->held_bytes;
    /* perf's highest time restarts when its queue is empty: every time
     * taken is above 0 */
    uint64_t max_time = queued == 0 && o->nr_shadow == 0 ? 0 : o->max_time;
    /* an empty queue: the first record starts a run (no time is ~0) */
    uint64_t last_key = queued ? slots[queued - 1].key : UINT64_MAX;
    uint64_t held_limit = o->seen_round ? UINT64_MAX : o->roundless_limit;
    /* the n-th record's ref: first_step + n fits the 16 bits (room) */
    uint32_t first_ref = (uint32_t)span.buffer << 16 | span.first_step;
    uint64_t first = queued, stop = queued + room;
    while (queued < stop) {
        uint64_t left = (uint64_t)(span.end - p);
        if (left < PV_RECORD_HEADER_SIZE)
            break;
        uint16_t size = pv_load_u16(p + 6, false);
        if (pv_load_u32(p, false) != PV_RECORD_SAMPLE || left < size || size < min_size)
            break;
        uint64_t time = pv_load_u64(p + time_at, false);
        if (time - 1 >= UINT64_MAX - 1)     /* 0 and ~0: no time */
            break;
        if (time < last_key) {
            if (runs >= runs_capacity)
                break;
            run_starts[runs++] = queued;
        }
        if (time > max_time)
            max_time = time;
        pv_queue_slot *slot = &slots[queued];
        slot->key = last_key = time;
        slot->at = (uint32_t)(p - span.base) + span.at_tag;
        slot->ref = first_ref + (uint32_t)(queued - first);
        queued++;
        held += size;
        p += size;
        if (held > held_limit) {
            *outgrown = span.first_index + (queued - first) - 1;
            break;
        }
    }
    uint64_t n = queued - first;
    if (n) {
        o->nr_queued = queued;
        o->nr_runs = runs;
        o->held_bytes = held;
        o->max_time = max_time;
    }
    o->nr_spanned += n;
    pv_walk_span_end(&o->scan.walk, &span, p, n);
}

/* ------------------------------------------------------------------ */
/* perf's rounds */

/* A FINISHED_ROUND: what perf's queue holds up to the limit set at the
 * round before goes out; the next limit is the highest time queued. */
static void finish_round(pv_ordered_scan *o)
{
    o->seen_round = true;
    uint64_t limit = o->next_flush;
    if (limit) {    /* perf flushes nothing up to 0 */
        release_up_to(o, limit);
        uint64_t kept = 0;
        for (uint64_t i = 0; i < o->nr_shadow; i++)
            if (o->shadow[i] > limit)
                o->shadow[kept++] = o->shadow[i];
        o->nr_shadow = kept;
    }
    o->next_flush = o->max_time;
}

/* A timed record enters perf's queue: the highest time queued, reset
 * when the queue had run empty, as perf's is. */
static void note_queued_time(pv_ordered_scan *o, uint64_t time)
{
    bool empty = waiting(o) == 0 && o->nr_shadow == 0;
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
    o->limits = pv_malloc((size_t)(ti->nr_chunks ? ti->nr_chunks : 1) * sizeof *o->limits);
    if (!o->limits)
        return out_of_memory(o, err);
    uint64_t lowest = UINT64_MAX;
    o->untimed_end = 0;
    for (uint64_t c = ti->nr_chunks; c-- > 0;) {
        /* a kernel record without a time is a NULL, first in SQL's order */
        if (ti->chunks[c].has_untimed && o->order == PV_ORDER_TIME && o->untimed_end == 0)
            o->untimed_end = c + 1;
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
static void index_reached(pv_ordered_scan *o, uint64_t index)
{
    const pv_time_index *ti = o->index;
    uint64_t c = o->chunk;
    while (c + 1 < ti->nr_chunks && ti->chunks[c + 1].first_index <= index)
        c++;
    if (c == o->chunk)
        return;
    o->chunk = c;
    /* NULLs ahead: they come first (a timed key of 0, INT64_MIN, would tie
     * with them) */
    if (c < o->untimed_end)
        return;
    /* keys up to the limit: a record ahead with the same key comes after
     * them, where file order puts it among equal times */
    release_up_to(o, o->limits[c]);
    o->released_timed = true;
}

/* ------------------------------------------------------------------ */

/* The next released record.  Its block (or the walk's buffer it is
 * pinned in) is given back when this was its last record (not the block
 * being filled, which block_for reuses): its bytes stay as they are until
 * the next enqueue or window read, after the caller is done with it. */
static void hand_out_copied(pv_ordered_scan *o, const pv_queue_slot *slot, pv_record *rec);

static inline void hand_out(pv_ordered_scan *o, pv_record *rec)
{
    const pv_queue_slot *slot = &(o->released_aside ? o->sort_buffer : o->slots)[o->next_out++];
    if (!(slot->ref & PV_QUEUE_COPIED)) {
        pv_ordered_scan_hand_out_pinned(o, slot, rec);
        return;
    }
    hand_out_copied(o, slot, rec);
}

static __attribute__((noinline)) void hand_out_copied(pv_ordered_scan *o,
                                                      const pv_queue_slot *slot, pv_record *rec)
{
    uint32_t block = slot->ref & ~PV_QUEUE_COPIED;
    pv_order_block *b = &o->blocks[block];
    const uint8_t *at = b->bytes + slot->at;
    held_record held;
    memcpy(&held, at, sizeof held);
    *rec = held.rec;
    rec->bytes = at + sizeof held;
    o->held_bytes -= rec->size;
    if (--b->live == 0 && block != o->filling) {
        b->used = 0;
        o->free_blocks[o->nr_free++] = block;
    }
}

void pv_ordered_scan_watch_rounds(pv_ordered_scan *o)
{
    o->watch_rounds = o->order == PV_ORDER_FILE;
}

bool pv_ordered_scan_rounds_broken(const pv_ordered_scan *o)
{
    /* a scan that skips chunks has not seen them all: its index has */
    const pv_time_index *ti = o->scan.time_index;
    return o->rounds_broken || (o->watch_rounds && ti && ti->rounds_broken);
}

/* File order, every record's time checked against perf's flush limit. */
static int next_watching_rounds(pv_ordered_scan *o, pv_record *rec, pv_error *err)
{
    for (;;) {
        bool passes;
        int rc = pv_record_scan_next_any(&o->scan, rec, &passes, err);
        if (rc <= 0)
            return rc;
        if (rec->type == PV_RECORD_FINISHED_ROUND) {
            o->file_flushed = o->file_next_flush;
            o->file_next_flush = o->file_max_time;
        } else if (!o->rounds_broken && rec->type < PV_RECORD_KERNEL_TYPE_END) {
            bool timed;
            uint64_t time;
            pv_error ignored;
            /* 0 and ~0 are perf's "no time", handed out at once */
            if (pv_record_time(o->file, rec, &timed, &time, &ignored) == 0 && timed &&
                time != 0 && time != UINT64_MAX) {
                o->rounds_broken = time < o->file_flushed;
                if (time > o->file_max_time)
                    o->file_max_time = time;
            }
        }
        if (passes)
            return 1;
    }
}

int pv_ordered_scan_next_slow(pv_ordered_scan *o, pv_record *rec, pv_error *err)
{
    if (o->order == PV_ORDER_FILE)
        return o->watch_rounds ? next_watching_rounds(o, rec, err)
                               : pv_record_scan_next(&o->scan, rec, err);
    if (o->order == PV_ORDER_TIME && !o->by_index) {
        if (use_index(o, err))
            return -1;
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
        drop_released(o);
        if (o->span_samples && !o->by_index) {
            uint64_t outgrown;
            enqueue_span(o, &outgrown);
            if (outgrown != UINT64_MAX) {
                if (use_index(o, err))
                    return -1;
                index_reached(o, outgrown);
                continue;
            }
        }
        pv_record r;
        bool passes;
        int rc = pv_record_scan_next_any(&o->scan, &r, &passes, err);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            o->ended = true;
            release_up_to(o, UINT64_MAX);
            continue;
        }
        bool by_rounds = o->order == PV_ORDER_PERF && !o->by_index;
        if (r.type == PV_RECORD_FINISHED_ROUND) {
            if (by_rounds)
                finish_round(o);
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
        uint64_t at = o->sample_time_at;
        /* an id of no event leaves a sample's time column NULL, which
         * ORDER BY time puts first; perf's order takes the word as it is */
        if (r.type == PV_RECORD_SAMPLE && pv_sample_time_at(o->file, &r, at, &time) &&
            (o->order != PV_ORDER_TIME || o->file->nr_attrs == 1 ||
             pv_sample_attr_index(o->file, &r) >= 0)) {
            timed = true;
        } else if (pv_record_time(o->file, &r, &timed, &time, err)) {
            return -1;
        }
        if (o->by_index)
            index_reached(o, r.index);
        if (o->order == PV_ORDER_TIME) {
            if (timed) {
                if (enqueue(o, &r, time ^ SIGN_BIT, false, err))
                    return -1;
                continue;
            }
            /* SQL puts NULL before every number: it goes out now, before
             * any timed record (index_reached waits for the NULLs) */
            if (o->released_timed)
                return pv_error_set(err, "%s: record %llu has no time but came after timed "
                                    "records were put in order; the time index missed it",
                                    o->file->data_path, (unsigned long long)r.index);
            *rec = r;
            return 1;
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
            if (!pv_array_grow((void **)&o->shadow, &o->shadow_capacity, o->nr_shadow + 1,
                         sizeof *o->shadow))
                return out_of_memory(o, err);
            o->shadow[o->nr_shadow++] = time;
            continue;
        }
        if (enqueue(o, &r, time, by_rounds, err))
            return -1;
        if (by_rounds && !o->seen_round && o->held_bytes > o->roundless_limit) {
            if (use_index(o, err))
                return -1;
            index_reached(o, r.index);
        }
    }
}
