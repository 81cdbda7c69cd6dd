/*
 * Walking the record stream.
 *
 * The record walk is the "record source" of the reader: the records of the
 * files (file_walk.h: the data section read in windows with pread, the
 * data.N files of a directory after it) and the records of the compressed
 * containers among them (unpack.h: decompressed on a second thread when
 * there are many), numbered in the order they come, all behind
 * pv_walk_next.  It steps from header to header; it never touches a body.
 * Every table's cursor owns one walk.
 */
#ifndef PV_RECORD_WALK_H
#define PV_RECORD_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "format/record.h"
#include "stream/file_walk.h"
#include "stream/unpack.h"

/* Records cut out of the decompressed bytes of COMPRESSED containers
 * (unpack.h hands them out in blocks).  A record may span two containers,
 * or two blocks: its pieces are put together in stitch. */
typedef struct pv_unpacked {
    pv_unpacker *source;                  /* created at the first container */
    const pv_unpack_block *block;         /* records are cut from here */
    uint32_t piece;                       /* the block's piece being read */
    uint32_t pos;                         /* offset in the block */
    bool container_done;                  /* the container's output is all read */
    uint32_t segment;                     /* the container being read */
    uint64_t container_offset;
    uint8_t *stitch;                      /* the start of a record that goes on */
    uint32_t held;                        /* in the next piece: its length */
} pv_unpacked;

typedef struct pv_walk {
    pv_file_walk files;    /* the records of the files themselves */
    uint64_t next_index;   /* the ordinal of the next record handed out */
    pv_unpacked unpacked;
} pv_walk;

/* Starts a walk over f; every started walk must be ended with pv_walk_end. */
void pv_walk_start(pv_walk *w, pv_file *f);
int pv_walk_next_slow(pv_walk *w, pv_record *rec, pv_error *err);
/* 1: *rec holds the next record, valid until the next call; 0: end of
 * stream; -1: error in err.  Inline: a scan asks for every record, and
 * nearly all are in the file walk's window. */
static inline int pv_walk_next(pv_walk *w, pv_record *rec, pv_error *err)
{
    if (!w->unpacked.source && pv_file_walk_in_window(&w->files, rec)) {
        rec->index = w->next_index++;
        return 1;
    }
    return pv_walk_next_slow(w, rec, err);
}
/* Steps over the records of unwanted types pv_walk_next would hand out
 * next, as pv_file_walk_skip: how many (numbered as if handed out).  None
 * while compressed data is read. */
static inline uint64_t pv_walk_skip(pv_walk *w, const uint64_t wanted[2])
{
    if (w->unpacked.source)
        return 0;
    uint64_t n = pv_file_walk_skip(&w->files, wanted);
    w->next_index += n;
    return n;
}
/* Continues the walk at the record header at offset of segment (as in
 * pv_record.segment), whose ordinal is index: a place an earlier walk of
 * the same file found (time_index.h).  Decompression stops there: a seek
 * anywhere but where the walk already is drops it (compressed files have
 * no time index). */
void pv_walk_seek(pv_walk *w, uint32_t segment, uint64_t offset, uint64_t index);
/* Pinning a record the walk handed out, as pv_file_walk_pin, for readers
 * that hold records past the next one (scan/time_order.h). */
static inline bool pv_walk_pin(pv_walk *w, const pv_record *rec, pv_walk_place *place)
{
    return pv_file_walk_pin(&w->files, rec, place);
}
static inline void pv_walk_unpin(pv_walk *w, unsigned buffer)
{
    pv_file_walk_unpin(&w->files, buffer);
}
static inline void pv_walk_pinned_record(const pv_walk *w, pv_walk_place place, pv_record *rec)
{
    pv_file_walk_pinned_record(&w->files, place, rec);
}
/* A run of the window's records pinned at once, as pv_file_walk_span_begin
 * and _end; none while compressed data is read. */
static inline bool pv_walk_span_begin(const pv_walk *w, pv_walk_span *s)
{
    return !w->unpacked.source && pv_file_walk_span_begin(&w->files, w->next_index, s);
}
static inline void pv_walk_span_end(pv_walk *w, const pv_walk_span *s, const uint8_t *at,
                                    uint64_t n)
{
    pv_file_walk_span_end(&w->files, s, at, n);
    w->next_index += n;
}
/* Frees what the walk allocated (its window, decompression state) and
 * stops a decompressing thread.  Safe on a zeroed or ended walk. */
void pv_walk_end(pv_walk *w);

#endif
