/*
 * A sparse time index of a file's record stream, built on first use: the
 * stream cut into chunks of about CHUNK_BYTES, each with the range of times
 * its records carry.  A query for a time range then reads only the chunks
 * whose range meets it.  perf writes records in rounds, not strictly in
 * time order, so chunks' ranges overlap; they are compared, not bisected.
 *
 * Compressed files have no index to seek by: one zstd stream runs through
 * all their containers, so the walk cannot start in the middle.  Their
 * complete index still gives each chunk's times, by record ordinal, for
 * time_order.h.
 */
#ifndef PV_TIME_INDEX_H
#define PV_TIME_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "base/pv_error.h"

typedef struct pv_time_chunk {
    uint32_t segment;        /* as in pv_record.segment */
    uint64_t offset;         /* first record's header */
    uint64_t end;            /* where the chunk's last record ends */
    uint64_t first_index;    /* first record's ordinal */
    bool has_time;           /* some record in it has a time */
    bool has_untimed;        /* some kernel record in it has none */
    int64_t min_time, max_time;
} pv_time_chunk;

typedef struct pv_time_index {
    bool usable;             /* false: a compressed stream, walk it all */
    bool complete;           /* the chunks cover the whole stream */
    /* a record the index read came timed below what perf's queue had
     * flushed by then, or its time did not read (as time_order.h watches
     * the round rule in file order) */
    bool rounds_broken;
    pv_time_chunk *chunks;
    uint64_t nr_chunks;
} pv_time_index;

/* The file's index, built by one pass over the record headers (and the
 * time fields) the first time it is asked for, then kept with the file. */
int pv_time_index_get(pv_file *f, const pv_time_index **out, pv_error *err);
/* The same, with chunks through the whole stream even when it is
 * compressed (not usable for seeking then): what time_order.h needs to
 * know how early the records ahead can be.  Uncompressed files share one
 * index for both. */
int pv_time_index_get_complete(pv_file *f, const pv_time_index **out, pv_error *err);
/* The seeking index if a query built it already, else NULL (nothing read). */
const pv_time_index *pv_time_index_kept(const pv_file *f);
void pv_time_index_free(pv_time_index *ti);

/* Whether a chunk may hold a record with time in [min, max]. */
static inline bool pv_time_chunk_meets(const pv_time_chunk *c, int64_t min, int64_t max)
{
    return c->has_time && c->max_time >= min && c->min_time <= max;
}

#endif
