/*
 * The record of a given ordinal, for a query that asks for one ordinal
 * after another: one per row of the outer table of a join on the record's
 * ordinal, or of a correlated subquery.
 *
 * A lookup keeps its walk from one ordinal to the next.  An ordinal ahead
 * is reached by walking on; the records walked past that are rows (the
 * type test and the filter pass them) are kept, copied, until asked for or
 * until they exceed PV_LOOKUP_STASH_BYTES: the outer table's rows come in
 * perf's time order, which goes back and forth in file order within a
 * round, and those are answered from memory.  An ordinal behind that is not
 * kept is found from the mark before it (ordinal_index.h), or, past the
 * first container of a compressed stream, by walking again from the start.
 *
 * The record a scan of the same file has just handed out (the outer row
 * of a join) is copied from that scan (record_board.h) without walking.
 *
 * Whatever the order of the ordinals, the answer is the record the walk
 * numbers so, if it is a row: exactly what a scan with the same type test
 * and filter yields.
 */
#ifndef PV_RECORD_LOOKUP_H
#define PV_RECORD_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "format/perf_file.h"
#include "scan/ordinal_index.h"
#include "scan/record_board.h"
#include "scan/record_filter.h"
#include "scan/record_scan.h"
#include "stream/record_walk.h"

#define PV_LOOKUP_STASH_BYTES (16u << 20)
/* Entries, whether they still hold bytes or only say a row was handed out:
 * behind a row never asked for (a sample without frames, in a join of
 * perf_callchains to perf_samples), rising ordinals would pile up entries
 * without bytes, one per lookup, up to the file's rows. */
#define PV_LOOKUP_STASH_ENTRIES (1u << 16)

/* Size classes of the stash's buffers: powers of two from 64 bytes to a
 * record's 64 kB (its size is a u16). */
#define PV_LOOKUP_SIZE_CLASSES 11

/* A row walked past: its bytes (NULL once handed out: it was a row, and
 * is read again if asked for again). */
typedef struct pv_stashed_record {
    pv_record rec;
    uint8_t *bytes;
} pv_stashed_record;

typedef struct pv_record_lookup {
    pv_walk walk;
    pv_file *file;
    const pv_record_filter *filter;     /* NULL: none */
    pv_record_type_test wants;
    pv_ordinal_index *marks;
    /* The records the file's scans stand on: one asked for is copied from
     * there, not walked to (record_board.h). */
    pv_record_board *board;
    /* Every row with an ordinal in [known_from, known_to) is in
     * stash[head, tail), in rising order; an ordinal of that range that is
     * not there is not a row. */
    pv_stashed_record *stash;
    uint64_t head, tail, capacity;
    uint64_t known_from, known_to;
    uint64_t stash_bytes;
    uint64_t stash_limit;   /* PV_LOOKUP_STASH_BYTES (a test may lower it) */
    uint64_t stash_entry_limit;     /* PV_LOOKUP_STASH_ENTRIES (likewise) */
    /* the walk reached the end: no ordinal from end_index on */
    bool end_known;
    uint64_t end_index;
    /* the record handed out last, its bytes in the walk's window or in
     * handed_bytes: asked again at once (a subquery per row of a join), it
     * is handed out again */
    bool has_handed;
    pv_record handed;
    uint8_t *handed_bytes;
    /* Buffers let go of, by size class, each list linked through the
     * buffers' first bytes: a join whose outer rows come in time order
     * stashes nearly every record once, and takes a buffer back instead of
     * allocating one per lookup.  Never more than the stash held at once. */
    uint8_t *spare[PV_LOOKUP_SIZE_CLASSES];
} pv_record_lookup;

/* Starts a lookup over file; filter (may be NULL) must outlive it.  Every
 * started lookup is ended with pv_record_lookup_end, even when this fails. */
int pv_record_lookup_start(pv_record_lookup *l, pv_file *file, const pv_record_filter *filter,
                           pv_record_type_test wants, pv_error *err);
/* 1: *rec is the row whose ordinal is ordinal, its bytes valid until the
 * next call; 0: no such row; -1: error in err. */
int pv_record_lookup_find(pv_record_lookup *l, uint64_t ordinal, pv_record *rec, pv_error *err);
/* Frees what the lookup holds.  Safe on a zeroed or ended lookup. */
void pv_record_lookup_end(pv_record_lookup *l);

#endif
