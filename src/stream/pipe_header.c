#include "stream/pipe_header.h"
#include "base/sorted_search.h"

#include <stdlib.h>
#include <string.h>

#include "format/attr.h"
#include "format/perf_abi.h"
#include "format/user_records.h"
#include "stream/record_walk.h"
#include "base/pv_alloc.h"

/* perf ends a pipe's features with an empty HEADER_FEATURE record whose id
 * is its HEADER_LAST_FEATURE: 32 up to perf 6.19, 34 or 35 since perf 7.0,
 * whose features 32 to 34 are real ones.  No feature from 32 up is empty. */
#define FEATURE_END_MARKER_MIN 32
#define MAX_ATTRS 65536
/* Sample ids of all events together, as perf_file.c caps the attr section's:
 * each id costs memory in the id index, however the file repeats them. */
#define MAX_IDS (1u << 24)

static int add_attr(pv_file *f, const pv_record *r, uint64_t *total_ids, pv_error *err)
{
    if (f->nr_attrs >= MAX_ATTRS)
        return pv_error_set(err, "%s: more than %d HEADER_ATTR records (at offset 0x%llx)",
                            f->data_path, MAX_ATTRS, (unsigned long long)r->file_offset);
    pv_rec_header_attr h;
    if (pv_rec_header_attr_decode(f, r, &h, err))
        return -1;
    if (h.nr_ids > MAX_IDS - *total_ids)
        return pv_error_set(err, "%s: HEADER_ATTR record at offset 0x%llx brings the events' ids "
                            "to more than %u", f->data_path, (unsigned long long)r->file_offset,
                            MAX_IDS);
    pv_attr *grown = pv_realloc(f->attrs, (f->nr_attrs + 1) * sizeof *grown);
    if (!grown)
        return pv_error_set(err, "%s: out of memory", f->data_path);
    f->attrs = grown;
    pv_attr *a = &f->attrs[f->nr_attrs];
    *a = h.attr;
    a->ids = NULL;
    a->nr_ids = 0;
    f->nr_attrs++;
    if (h.nr_ids) {
        a->ids = pv_malloc((size_t)h.nr_ids * 8);
        if (!a->ids)
            return pv_error_set(err, "%s: out of memory", f->data_path);
        for (uint64_t k = 0; k < h.nr_ids; k++)
            a->ids[k] = pv_rec_header_attr_id(&h, k);
        a->nr_ids = h.nr_ids;
    }
    *total_ids += h.nr_ids;
    return 0;
}

/* EVENT_UPDATE names are noted during the scan and applied after it,
 * through one sorted index of every id: looking each up by scanning all
 * events' ids would make a stream of updates cost time quadratic in the
 * file's size.  An update applies to the first event holding its id among
 * those declared before it, as if applied on the spot. */
typedef struct pending_name {
    uint64_t id;
    size_t attrs_known;         /* events declared before the update */
    char *name;
} pending_name;

typedef struct pending_names {
    pending_name *items;
    size_t nr, capacity;
} pending_names;

static int note_event_update(pv_file *f, const pv_record *r, pending_names *pending)
{
    /* a damaged update only loses a name: perf_records' fields report it */
    pv_rec_event_update u;
    pv_error ignored;
    if (pv_rec_event_update_decode(f, r, &u, &ignored) || u.type != PV_EVENT_UPDATE_NAME)
        return 0;
    const char *name = u.text;
    uint64_t len = u.text_len;
    if (!name || len == 0 || f->nr_attrs == 0)
        return 0;
    uint64_t id = u.id;
    if (pending->nr == pending->capacity) {
        size_t capacity = pending->capacity ? pending->capacity * 2 : 16;
        pending_name *grown = pv_realloc(pending->items, capacity * sizeof *grown);
        if (!grown)
            return -1;
        pending->items = grown;
        pending->capacity = capacity;
    }
    char *copy = pv_malloc((size_t)len + 1);
    if (!copy)
        return -1;
    memcpy(copy, name, (size_t)len);
    copy[len] = 0;
    pending->items[pending->nr++] = (pending_name){id, f->nr_attrs, copy};
    return 0;
}

typedef struct id_owner {
    uint64_t id;
    size_t attr_index;
} id_owner;

static int compare_id_owners(const void *a, const void *b)
{
    const id_owner *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->attr_index < y->attr_index ? -1 : x->attr_index > y->attr_index;
}

static int apply_event_updates(pv_file *f, pending_names *pending)
{
    if (pending->nr == 0)
        return 0;
    uint64_t total = 0;
    for (size_t i = 0; i < f->nr_attrs; i++)
        total += f->attrs[i].nr_ids;
    id_owner *owners = pv_malloc((total ? (size_t)total : 1) * sizeof *owners);
    if (!owners)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < f->nr_attrs; i++)
        for (uint64_t k = 0; k < f->attrs[i].nr_ids; k++)
            owners[n++] = (id_owner){f->attrs[i].ids[k], i};
    qsort(owners, n, sizeof *owners, compare_id_owners);
    for (size_t u = 0; u < pending->nr; u++) {
        pending_name *p = &pending->items[u];
        /* the first entry with this id: its lowest event index */
        size_t lo = PV_LOWER_BOUND(owners, n, id, p->id);
        if (lo == n || owners[lo].id != p->id || owners[lo].attr_index >= p->attrs_known)
            continue;
        pv_attr *a = &f->attrs[owners[lo].attr_index];
        free(a->name);
        a->name = p->name;
        p->name = NULL;
    }
    free(owners);
    return 0;
}

static void free_pending_names(pending_names *pending)
{
    for (size_t i = 0; i < pending->nr; i++)
        free(pending->items[i].name);
    free(pending->items);
}

static void add_feature(pv_file *f, const pv_record *r)
{
    /* a damaged one only loses its section: perf_records' fields report it */
    pv_rec_header_feature h;
    pv_error ignored;
    if (pv_rec_header_feature_decode(f, r, &h, &ignored))
        return;
    if ((h.feat_id >= FEATURE_END_MARKER_MIN && h.data_size == 0) || h.feat_id >= PV_FEATURE_BITS)
        return;
    f->feature_bitmap[h.feat_id / 64] |= (uint64_t)1 << (h.feat_id % 64);
    f->feature_sections[h.feat_id].offset = h.data_offset;
    f->feature_sections[h.feat_id].size = h.data_size;
}

int pv_pipe_read_header_records(pv_file *f, pv_error *err)
{
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record r;
    pv_error walk_err;
    pending_names pending = {0};
    uint64_t total_ids = 0;
    int rc = 0;
    /* Header records precede the first kernel record; a damaged stream
     * stops the scan here and is reported by the walks that reach it. */
    int step;
    while (rc == 0 && (step = pv_walk_next(&w, &r, &walk_err)) == 1) {
        if (r.type < PV_RECORD_KERNEL_TYPE_END || r.type == PV_RECORD_COMPRESSED ||
            r.type == PV_RECORD_COMPRESSED2)
            break;
        if (r.type == PV_RECORD_HEADER_ATTR)
            rc = add_attr(f, &r, &total_ids, err);
        else if (r.type == PV_RECORD_EVENT_UPDATE)
            rc = note_event_update(f, &r, &pending) ? pv_error_set(err, "%s: out of memory", f->data_path) : 0;
        else if (r.type == PV_RECORD_HEADER_FEATURE)
            add_feature(f, &r);
    }
    pv_walk_end(&w);
    /* a stream's reader waits for its header records: asked to stop, it
     * stops (and damage is still left to the walks that reach it) */
    if (rc == 0 && step < 0 && walk_err.kind == PV_ERROR_STOPPED) {
        *err = walk_err;
        rc = -1;
    }
    if (rc == 0 && apply_event_updates(f, &pending))
        rc = pv_error_set(err, "%s: out of memory", f->data_path);
    free_pending_names(&pending);
    if (rc)
        return -1;
    if (f->nr_attrs == 0)
        return pv_error_set(err, "%s: pipe-mode file without a HEADER_ATTR record before its first "
                            "event record (the stream starts at offset 0x10)", f->data_path);
    /* Names from EVENT_UPDATE are final; the rest are derived on demand. */
    return 0;
}
