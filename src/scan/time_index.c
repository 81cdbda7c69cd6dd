#include "scan/time_index.h"

#include <stdlib.h>
#include <string.h>

#include "format/perf_abi.h"
#include "stream/record_walk.h"
#include "decode/sample.h"
#include "base/pv_alloc.h"

/* Small enough that 1% of a long recording is many chunks, large enough
 * that the index of a 2 GB file is a few hundred kB. */
#define CHUNK_BYTES (64u << 10)

static int add_chunk(pv_time_index *ti, uint64_t *capacity, const pv_record *rec,
                     const char *path, pv_error *err)
{
    if (ti->nr_chunks == *capacity) {
        uint64_t grown = *capacity ? *capacity * 2 : 256;
        pv_time_chunk *c = pv_realloc(ti->chunks, (size_t)grown * sizeof *c);
        if (!c)
            return pv_error_set(err, "%s: out of memory for the time index", path);
        ti->chunks = c;
        *capacity = grown;
    }
    pv_time_chunk *c = &ti->chunks[ti->nr_chunks++];
    memset(c, 0, sizeof *c);
    c->segment = rec->segment;
    c->offset = rec->file_offset;
    c->end = rec->file_offset;
    c->first_index = rec->index;
    return 0;
}

/* complete: go on through compressed containers (the index then orders,
 * time_order.h, but cannot seek). */
static int build(pv_file *f, pv_time_index *ti, bool complete, pv_error *err)
{
    pv_walk w;
    pv_walk_start(&w, f);
    uint64_t capacity = 0;
    pv_time_chunk *chunk = NULL;
    int rc;
    pv_record rec;
    uint64_t chunk_bytes = 0;
    /* perf's flush limit, from above (time_order.h's watch) */
    uint64_t max_time = 0, next_flush = 0, flushed = 0;
    ti->usable = true;
    ti->complete = true;
    while ((rc = pv_walk_next(&w, &rec, err)) == 1) {
        if (rec.compressed || rec.type == PV_RECORD_COMPRESSED ||
            rec.type == PV_RECORD_COMPRESSED2) {
            ti->usable = false;
            if (!complete) {
                ti->complete = false;
                break;
            }
        }
        /* records of a container share its offset: they are counted */
        chunk_bytes += rec.size;
        if (!chunk || chunk->segment != rec.segment || rec.file_offset - chunk->offset >= CHUNK_BYTES ||
            chunk_bytes >= CHUNK_BYTES) {
            chunk_bytes = rec.size;
            if (add_chunk(ti, &capacity, &rec, f->data_path, err)) {
                rc = -1;
                break;
            }
            chunk = &ti->chunks[ti->nr_chunks - 1];
        }
        /* The walk has stepped over the record and any payload after it. */
        chunk->end = w.files.next_offset;
        if (rec.type == PV_RECORD_FINISHED_ROUND) {
            flushed = next_flush;
            next_flush = max_time;
        }
        if (rec.type != PV_RECORD_SAMPLE && rec.type >= PV_RECORD_KERNEL_TYPE_END)
            continue;
        pv_sample_id id;
        pv_error ignored;
        if (pv_record_identity_fixed(f, &rec, &id, &ignored)) {
            /* Its time is unknown: the chunk may hold any time and none,
             * and is always read.  The scan meets the record and fails or
             * not as the query without the range does. */
            chunk->has_untimed = true;
            chunk->min_time = INT64_MIN;
            chunk->max_time = INT64_MAX;
            chunk->has_time = true;
            ti->rounds_broken = true;
            continue;
        }
        if (!(id.fields & PV_SAMPLE_TIME)) {
            chunk->has_untimed = true;
            continue;
        }
        /* 0 and ~0 are perf's "no time" */
        if (id.time != 0 && id.time != UINT64_MAX) {
            ti->rounds_broken = ti->rounds_broken || id.time < flushed;
            if (id.time > max_time)
                max_time = id.time;
        }
        int64_t time = (int64_t)id.time;    /* as the filter compares it */
        if (!chunk->has_time || time < chunk->min_time)
            chunk->min_time = time;
        if (!chunk->has_time || time > chunk->max_time)
            chunk->max_time = time;
        chunk->has_time = true;
    }
    pv_walk_end(&w);
    return rc < 0 ? -1 : 0;
}

/* The keys of the index among the file's derived state: the one that
 * stops at the first compressed container, and the complete one. */
static const char time_index_key, complete_time_index_key;

static void free_time_index(void *ti)
{
    pv_time_index_free(ti);
}

static int get_index(pv_file *f, const void *key, bool complete, const pv_time_index **out,
                     pv_error *err)
{
    void *kept;
    if (!pv_file_state_get(f, key, &kept)) {
        pv_time_index *ti = pv_calloc(1, sizeof *ti);
        if (!ti)
            return pv_error_set(err, "%s: out of memory for the time index", f->data_path);
        if (build(f, ti, complete, err)) {
            pv_time_index_free(ti);
            return -1;
        }
        if (pv_file_state_set(f, key, ti, free_time_index, err))
            return -1;
        kept = ti;
    }
    *out = kept;
    return 0;
}

int pv_time_index_get(pv_file *f, const pv_time_index **out, pv_error *err)
{
    return get_index(f, &time_index_key, false, out, err);
}

int pv_time_index_get_complete(pv_file *f, const pv_time_index **out, pv_error *err)
{
    /* An uncompressed file's seeking index is complete already; a
     * compressed file's stops at its first container, at once. */
    const pv_time_index *ti;
    if (pv_time_index_get(f, &ti, err))
        return -1;
    if (ti->complete) {
        *out = ti;
        return 0;
    }
    return get_index(f, &complete_time_index_key, true, out, err);
}

const pv_time_index *pv_time_index_kept(const pv_file *f)
{
    void *kept;
    return pv_file_state_get(f, &time_index_key, &kept) ? kept : NULL;
}

void pv_time_index_free(pv_time_index *ti)
{
    if (!ti)
        return;
    free(ti->chunks);
    free(ti);
}
