/*
 * Walking the record stream.
 *
 * A record is an 8-byte header {u32 type; u16 misc; u16 size} followed by
 * size - 8 bytes of body.  The walk steps from header to header; it never
 * touches a body.  Every table's cursor owns one walk.
 *
 * The walk is the "record source" of the reader: today the data section of
 * one mapped file; pipe streams, compressed containers and the data.N files
 * of a directory plug in behind pv_walk_next without changing its callers.
 */
#ifndef PV_RECORD_WALK_H
#define PV_RECORD_WALK_H

#include <stdint.h>

#include "perf_file.h"

typedef struct pv_record {
    uint64_t index;        /* ordinal in the record stream, 0-based */
    uint64_t file_offset;  /* offset of the header in the file */
    uint32_t type;
    uint16_t misc;
    uint16_t size;         /* whole record, header included */
    const uint8_t *bytes;  /* size bytes, header included; valid until the walk ends */
} pv_record;

typedef struct pv_walk {
    pv_file *file;
    uint64_t next_offset;
    uint64_t end_offset;
    uint64_t next_index;
} pv_walk;

void pv_walk_start(pv_walk *w, pv_file *f);
/* 1: *rec holds the next record; 0: end of stream; -1: error in err. */
int pv_walk_next(pv_walk *w, pv_record *rec, pv_error *err);

#endif
