/*
 * Walking the record stream.
 *
 * A record is an 8-byte header {u32 type; u16 misc; u16 size} followed by
 * size - 8 bytes of body.  The walk steps from header to header; it never
 * touches a body.  Every table's cursor owns one walk.
 *
 * The walk is the "record source" of the reader: the data section read in
 * windows with pread, compressed containers unpacked by one zstd stream,
 * and the data.N files of a directory after it, all behind pv_walk_next.
 */
#ifndef PV_RECORD_WALK_H
#define PV_RECORD_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "perf_file.h"

typedef struct pv_record {
    uint64_t index;        /* ordinal in the record stream, 0-based */
    uint32_t segment;      /* which file: 0 the perf.data itself, N+1 its data.N */
    uint64_t file_offset;  /* offset of the header in the file; for a record
                              inside a COMPRESSED container, the container's */
    bool compressed;       /* came out of a COMPRESSED container */
    uint32_t type;
    uint16_t misc;
    uint16_t size;         /* whole record, header included */
    const uint8_t *bytes;  /* size bytes, header included; valid until the next
                              pv_walk_next or pv_walk_end */
} pv_record;

/* Records decompressed from COMPRESSED containers: one zstd stream runs
 * across all containers of a file, and a record may span two of them. */
typedef struct pv_unpacked {
    void *zstd;                 /* ZSTD_DStream, created at the first container */
    uint8_t *input_copy;        /* the current container's compressed bytes */
    const uint8_t *input;       /* the part of them not yet decompressed */
    uint64_t input_left;
    uint64_t container_offset;  /* file offset of the current container */
    uint8_t *buffer;            /* decompressed bytes not yet handed out */
    uint64_t start, end, capacity;
} pv_unpacked;

typedef struct pv_walk {
    pv_file *file;
    size_t segment;        /* 0: the perf.data itself; N + 1: segments[N] */
    const char *path;      /* the current segment's path, for messages */
    uint64_t next_offset;
    uint64_t end_offset;
    uint64_t next_index;
    /* Bytes [window_offset, window_offset + window_len) of the current
     * segment: read into buffer with pread, or pointing into an image in
     * memory.  Records are handed out from here. */
    const uint8_t *window;
    uint64_t window_offset, window_len;
    uint8_t *buffer;
    pv_unpacked unpacked;
} pv_walk;

/* Starts a walk over f; every started walk must be ended with pv_walk_end. */
void pv_walk_start(pv_walk *w, pv_file *f);
/* 1: *rec holds the next record, valid until the next call; 0: end of
 * stream; -1: error in err. */
int pv_walk_next(pv_walk *w, pv_record *rec, pv_error *err);
/* Continues the walk at the record header at offset of segment (as in
 * pv_record.segment), whose ordinal is index: a place an earlier walk of
 * the same file found (time_index.h).  Not inside compressed data. */
void pv_walk_seek(pv_walk *w, uint32_t segment, uint64_t offset, uint64_t index);
/* Frees what the walk allocated (its window, decompression state). */
void pv_walk_end(pv_walk *w);

#endif
