#include "scan/record_lookup.h"
#include "base/sorted_search.h"
#include "base/pv_alloc.h"

#include <stdlib.h>
#include <string.h>

int pv_record_lookup_start(pv_record_lookup *l, pv_file *file, const pv_record_filter *filter,
                           pv_record_type_test wants, pv_error *err)
{
    memset(l, 0, sizeof *l);
    pv_walk_start(&l->walk, file);
    l->file = file;
    l->filter = filter && filter->active ? filter : NULL;
    l->wants = wants;
    l->stash_limit = PV_LOOKUP_STASH_BYTES;
    l->stash_entry_limit = PV_LOOKUP_STASH_ENTRIES;
    if (pv_ordinal_index_get(file, &l->marks, err) || pv_record_board_get(file, &l->board, err))
        return -1;
    pv_record_board_add_reader(l->board);
    return 0;
}

/* The size class of a record of size bytes: buffers of 64 << class bytes. */
static unsigned size_class(uint64_t size)
{
    if (size <= 64)
        return 0;
    /* the least c with 64 << c >= size, without a loop: twice a lookup */
    unsigned c = (unsigned)(64 - __builtin_clzll(size - 1)) - 6;
    return c < PV_LOOKUP_SIZE_CLASSES ? c : PV_LOOKUP_SIZE_CLASSES - 1;
}

/* A spare buffer's first bytes link to the next spare of its class. */
static uint8_t *spare_link(const uint8_t *b)
{
    uint8_t *next;
    memcpy(&next, b, sizeof next);
    return next;
}

/* A buffer for a record of size bytes: a spare one, or a new one. */
static uint8_t *take_buffer(pv_record_lookup *l, uint64_t size)
{
    unsigned c = size_class(size);
    uint8_t *b = l->spare[c];
    if (b) {
        l->spare[c] = spare_link(b);
        return b;
    }
    return pv_malloc((size_t)64 << c);
}

/* Keeps b, the buffer of a record of size bytes, for take_buffer. */
static void give_buffer(pv_record_lookup *l, uint8_t *b, uint64_t size)
{
    if (!b)
        return;
    unsigned c = size_class(size);
    uint8_t *next = l->spare[c];
    memcpy(b, &next, sizeof next);
    l->spare[c] = b;
}

/* A copy of rec's bytes in a buffer of the lookup's, or NULL with err set. */
static uint8_t *copy_bytes(pv_record_lookup *l, const pv_record *rec, pv_error *err)
{
    uint8_t *copy = take_buffer(l, rec->size);
    if (!copy) {
        pv_error_set(err, "%s: out of memory for records looked up", l->file->data_path);
        return NULL;
    }
    memcpy(copy, rec->bytes, rec->size);
    return copy;
}

/* Hands out the record meta says, its bytes in the lookup's buffer bytes,
 * which it keeps until the next call. */
static void hand_over(pv_record_lookup *l, const pv_record *meta, uint8_t *bytes, pv_record *rec)
{
    l->handed = *meta;
    l->handed.bytes = bytes;
    l->handed_bytes = bytes;
    l->has_handed = true;
    *rec = l->handed;
}

static void drop_handed(pv_record_lookup *l)
{
    give_buffer(l, l->handed_bytes, l->handed.size);
    l->handed_bytes = NULL;
    l->has_handed = false;
}

/* Forgets the stash's first entries while they are handed out already. */
static void trim_head(pv_record_lookup *l)
{
    while (l->head < l->tail && !l->stash[l->head].bytes)
        l->known_from = l->stash[l->head++].rec.index + 1;
    if (l->head == l->tail)
        l->head = l->tail = 0;
}

/* Forgets the first entry, to stay within PV_LOOKUP_STASH_BYTES and
 * PV_LOOKUP_STASH_ENTRIES. */
static void evict_head(pv_record_lookup *l)
{
    pv_stashed_record *s = &l->stash[l->head++];
    if (s->bytes)
        l->stash_bytes -= s->rec.size;
    give_buffer(l, s->bytes, s->rec.size);
    s->bytes = NULL;
    l->known_from = s->rec.index + 1;
    trim_head(l);
}

static void clear_stash(pv_record_lookup *l, uint64_t from)
{
    for (uint64_t i = l->head; i < l->tail; i++)
        give_buffer(l, l->stash[i].bytes, l->stash[i].rec.size);
    l->head = l->tail = 0;
    l->stash_bytes = 0;
    l->known_from = l->known_to = from;
}

/* Keeps rec, a row with the ordinal known_to: its bytes when keep, else
 * only that it is one. */
static int stash_add(pv_record_lookup *l, const pv_record *rec, bool keep, pv_error *err)
{
    if (l->tail == l->capacity) {
        if (l->head > 0) {
            memmove(l->stash, l->stash + l->head, (size_t)(l->tail - l->head) * sizeof *l->stash);
            l->tail -= l->head;
            l->head = 0;
        } else {
            uint64_t grown = l->capacity ? l->capacity * 2 : 1024;
            pv_stashed_record *s = pv_realloc(l->stash, (size_t)grown * sizeof *s);
            if (!s)
                return pv_error_set(err, "%s: out of memory for records looked up", l->file->data_path);
            l->stash = s;
            l->capacity = grown;
        }
    }
    pv_stashed_record *s = &l->stash[l->tail];
    s->rec = *rec;
    s->rec.bytes = NULL;
    s->bytes = NULL;
    if (keep) {
        if (!(s->bytes = copy_bytes(l, rec, err)))
            return -1;
        s->rec.bytes = s->bytes;
        l->stash_bytes += rec->size;
    }
    l->tail++;
    while (l->head < l->tail &&
           (l->stash_bytes > l->stash_limit || l->tail - l->head > l->stash_entry_limit))
        evict_head(l);
    trim_head(l);
    return 0;
}

/* The stash's entry of ordinal (within the known range), or NULL. */
static pv_stashed_record *stash_find(pv_record_lookup *l, uint64_t ordinal)
{
    if (l->head == l->tail)
        return NULL;
    uint64_t lo = l->head + PV_LOWER_BOUND(l->stash + l->head, l->tail - l->head, rec.index, ordinal);
    return lo < l->tail && l->stash[lo].rec.index == ordinal ? &l->stash[lo] : NULL;
}

/* 1: rec is a row; 0: not; -1: error decoding it. */
static int is_row(const pv_record_lookup *l, const pv_record *rec, pv_error *err)
{
    if (l->wants && !l->wants(rec->type))
        return 0;
    return l->filter ? pv_record_filter_test(l->filter, l->file, rec, err) : 1;
}

/* Puts the walk where the record of ordinal is found by walking on: where
 * it is, when it is not past it and no mark is nearer; else at the last
 * mark before it, or at the start. */
static void position_walk(pv_record_lookup *l, uint64_t ordinal)
{
    uint64_t at = l->walk.next_index;
    /* a few records ahead: walking on costs no more than any mark */
    if (at <= ordinal && ordinal - at < 64)
        return;
    const pv_ordinal_mark *m = pv_ordinal_index_before(l->marks, ordinal);
    if (at <= ordinal && (!m || m->index <= at))
        return;
    if (m) {
        /* past the known range, the stash would have a gap: start it anew */
        if (m->index > l->known_to)
            clear_stash(l, m->index);
        pv_walk_seek(&l->walk, m->segment, m->offset, m->index);
        return;
    }
    pv_file *f = l->file;
    pv_walk_end(&l->walk);
    pv_walk_start(&l->walk, f);
}

static int walk_to(pv_record_lookup *l, uint64_t ordinal, pv_record *rec, pv_error *err)
{
    position_walk(l, ordinal);
    for (;;) {
        pv_record r;
        int rc = pv_walk_next(&l->walk, &r, err);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            l->end_known = true;
            l->end_index = l->walk.next_index;
            return 0;
        }
        pv_ordinal_index_note(l->marks, &r);
        int row = is_row(l, &r, err);
        if (row < 0)
            return -1;
        if (r.index == l->known_to) {
            if (row && stash_add(l, &r, r.index != ordinal, err))
                return -1;
            l->known_to++;
        }
        if (r.index == ordinal) {
            if (!row)
                return 0;
            l->handed = r;
            l->has_handed = true;
            *rec = r;
            return 1;
        }
    }
}

/* Hands out a copy of posted, the record of a scan of the file, if a row. */
static int take_posted(pv_record_lookup *l, const pv_record *posted, pv_record *rec,
                       pv_error *err)
{
    int row = is_row(l, posted, err);
    if (row <= 0)
        return row;
    uint8_t *copy = copy_bytes(l, posted, err);
    if (!copy)
        return -1;
    hand_over(l, posted, copy, rec);
    return 1;
}

int pv_record_lookup_find(pv_record_lookup *l, uint64_t ordinal, pv_record *rec, pv_error *err)
{
    if (l->has_handed && l->handed.index == ordinal) {
        *rec = l->handed;
        return 1;
    }
    drop_handed(l);
    if (l->end_known && ordinal >= l->end_index)
        return 0;
    if (ordinal >= l->known_from && ordinal < l->known_to) {
        pv_stashed_record *s = stash_find(l, ordinal);
        if (!s)
            return 0;
        if (s->bytes) {
            /* handed out from memory: the stash lets go of the bytes */
            hand_over(l, &s->rec, s->bytes, rec);
            l->stash_bytes -= s->rec.size;
            s->bytes = NULL;
            trim_head(l);
            return 1;
        }
        /* a row handed out before: read again */
    }
    const pv_record *posted = l->board ? pv_record_board_find(l->board, ordinal) : NULL;
    if (posted)
        return take_posted(l, posted, rec, err);
    return walk_to(l, ordinal, rec, err);
}

void pv_record_lookup_end(pv_record_lookup *l)
{
    if (l->board)
        pv_record_board_remove_reader(l->board);
    l->board = NULL;
    drop_handed(l);
    clear_stash(l, 0);
    free(l->stash);
    for (unsigned c = 0; c < PV_LOOKUP_SIZE_CLASSES; c++) {
        while (l->spare[c]) {
            uint8_t *b = l->spare[c];
            l->spare[c] = spare_link(b);
            free(b);
        }
    }
    l->stash = NULL;
    l->capacity = 0;
    pv_walk_end(&l->walk);
}
