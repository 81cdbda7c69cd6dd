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
#include "stream/pin_count.h"
#include "stream/unpack.h"

/* Records cut out of the decompressed bytes of COMPRESSED containers
 * (unpack.h hands them out in blocks).  A record may span two containers,
 * or two blocks: its pieces are put together in stitch. */
typedef struct pv_unpacked {
    pv_unpacker *source;                  /* created at the first container */
    pv_unpack_block *pool;                /* the source's blocks */
    pv_unpack_block *block;               /* records are cut from here */
    uint32_t piece;                       /* the block's piece being read */
    uint32_t pos;                         /* offset in the block */
    bool container_done;                  /* the container's output is all read */
    uint32_t segment;                     /* the container being read */
    uint64_t container_offset;
    uint8_t *stitch;                      /* the start of a record that goes on */
    uint32_t held;                        /* in the next piece: its length */
    uint32_t nr_pinned;                   /* blocks with records pinned */
    /* PERFVTAB_UNPACK_PIN=0: no record is pinned, readers copy them all
     * (the twin the tests compare pinning with) */
    bool copy_only;
} pv_unpacked;

/* A place's buffer from here on is a block of the unpacker's pool. */
#define PV_WALK_UNPACKED_BUFFER 0x4000u

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
 * that hold records past the next one (scan/time_order.h).  A record of
 * decompressed bytes is pinned in its block, which the walk then keeps
 * from decompression until it is unpinned; not one put together from the
 * pieces it spans (stitch), nor past PV_UNPACK_MAX_PINNED blocks. */
static inline bool pv_unpacked_pin(pv_unpacked *u, const pv_record *rec, pv_walk_place *place)
{
    pv_unpack_block *b = u->block;
    if (u->copy_only || rec->size_repair || !b || rec->bytes == u->stitch)
        return false;
    /* rec was cut from the block just now: it lies in it */
    uint64_t at = (uint64_t)(rec->bytes - b->bytes);
    if (!pv_pin_count_take(&b->pins, &b->first_pinned_index, &u->nr_pinned, PV_UNPACK_MAX_PINNED,
                           rec->index, &place->ordinal_step))
        return false;
    place->at = (uint32_t)at | u->piece << PV_UNPACK_PIECE_SHIFT;
    place->buffer = (uint16_t)(PV_WALK_UNPACKED_BUFFER + (uint32_t)(b - u->pool));
    return true;
}
static inline bool pv_walk_pin(pv_walk *w, const pv_record *rec, pv_walk_place *place)
{
    if (rec->compressed)
        return pv_unpacked_pin(&w->unpacked, rec, place);
    return pv_file_walk_pin(&w->files, rec, place);
}
static inline void pv_unpacked_unpin(pv_unpacked *u, unsigned buffer)
{
    pv_unpack_block *b = &u->pool[buffer - PV_WALK_UNPACKED_BUFFER];
    if (--b->pins == 0) {
        u->nr_pinned--;
        if (b->left)
            pv_unpacker_unpinned(u->source, b);
    }
}
/* The pv_record of a record pinned in a block, as it was handed out: the
 * container it came from is its piece's, which the place's at tells above
 * the offset. */
static inline void pv_unpacked_pinned_record(const pv_unpacked *u, pv_walk_place place,
                                             bool swap, pv_record *rec)
{
    const pv_unpack_block *b = &u->pool[place.buffer - PV_WALK_UNPACKED_BUFFER];
    const pv_unpack_piece *piece = &b->pieces[place.at >> PV_UNPACK_PIECE_SHIFT];
    const uint8_t *p = b->bytes + (place.at & ((1u << PV_UNPACK_PIECE_SHIFT) - 1));
    rec->index = b->first_pinned_index + place.ordinal_step;
    rec->segment = piece->segment;
    rec->file_offset = piece->container_offset;
    rec->compressed = true;
    rec->size_repair = PV_SIZE_AS_WRITTEN;
    rec->type = pv_load_u32(p, swap);
    rec->misc = pv_load_u16(p + 4, swap);
    rec->size = pv_load_u16(p + 6, swap);
    rec->bytes = p;
}
static inline void pv_walk_unpin(pv_walk *w, unsigned buffer)
{
    if (buffer < PV_WALK_UNPACKED_BUFFER)
        pv_file_walk_unpin(&w->files, buffer);
    else
        pv_unpacked_unpin(&w->unpacked, buffer);
}
static inline void pv_walk_pinned_record(const pv_walk *w, pv_walk_place place, pv_record *rec)
{
    if (place.buffer < PV_WALK_UNPACKED_BUFFER)
        pv_file_walk_pinned_record(&w->files, place, rec);
    else
        pv_unpacked_pinned_record(&w->unpacked, place, w->files.file->swap, rec);
}
/* A run of the records pinned at once, as pv_file_walk_span_begin and
 * _end: of the window, or of the piece of decompressed bytes being read. */
bool pv_unpacked_span_begin(pv_unpacked *u, uint64_t next_index, pv_walk_span *s);
static inline bool pv_walk_span_begin(pv_walk *w, pv_walk_span *s)
{
    if (w->unpacked.source)
        return pv_unpacked_span_begin(&w->unpacked, w->next_index, s);
    return pv_file_walk_span_begin(&w->files, w->next_index, s);
}
void pv_unpacked_span_end(pv_unpacked *u, const pv_walk_span *s, const uint8_t *at, uint64_t n);
static inline void pv_walk_span_end(pv_walk *w, const pv_walk_span *s, const uint8_t *at,
                                    uint64_t n)
{
    if (s->buffer < PV_WALK_UNPACKED_BUFFER)
        pv_file_walk_span_end(&w->files, s, at, n);
    else
        pv_unpacked_span_end(&w->unpacked, s, at, n);
    w->next_index += n;
}
/* Frees what the walk allocated (its window, decompression state) and
 * stops a decompressing thread.  Safe on a zeroed or ended walk. */
void pv_walk_end(pv_walk *w);

#endif
