/*
 * Where records are, by ordinal: a sparse list of marks (a record header's
 * segment, offset and ordinal), about one per MARK_BYTES of the stream, so
 * that a lookup by ordinal (record_lookup.h) seeks to the mark before the
 * record and walks a few kB of headers instead of the file.
 *
 * The index is built lazily, by the lookups' own walks as they pass the
 * last mark, and kept with the file (pv_file_state_get) for every later
 * lookup of the connection.  A compressed stream cannot be entered in the
 * middle (one zstd stream runs through all its containers): marks stop at
 * the first container, and a record past it is reached by walking on, or
 * from the last mark before it.
 */
#ifndef PV_ORDINAL_INDEX_H
#define PV_ORDINAL_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "format/perf_file.h"
#include "format/record.h"

typedef struct pv_ordinal_mark {
    uint32_t segment;       /* as in pv_record.segment */
    uint64_t offset;        /* the record's header */
    uint64_t index;         /* its ordinal */
} pv_ordinal_mark;

typedef struct pv_ordinal_index {
    pv_ordinal_mark *marks; /* rising ordinals */
    uint64_t nr_marks, capacity;
    bool closed;            /* a compressed container reached: no mark after it */
} pv_ordinal_index;

/* The file's index (empty at first), kept with the file. */
int pv_ordinal_index_get(pv_file *f, pv_ordinal_index **out, pv_error *err);
/* A walk read rec: a mark when it is far enough past the last one.  Marks
 * are a help, not a promise: out of memory adds none. */
void pv_ordinal_index_note(pv_ordinal_index *ix, const pv_record *rec);
/* The last mark at or before ordinal, or NULL (none: the stream's start). */
const pv_ordinal_mark *pv_ordinal_index_before(const pv_ordinal_index *ix, uint64_t ordinal);

#endif
