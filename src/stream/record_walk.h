/*
 * Walking the record stream.
 *
 * A record is an 8-byte header {u32 type; u16 misc; u16 size} followed by
 * size - 8 bytes of body.  The walk steps from header to header; it never
 * touches a body.  Every table's cursor owns one walk.
 *
 * The walk is the "record source" of the reader: the data section read in
 * windows with pread, the records of compressed containers (unpack.h:
 * decompressed on a second thread when there are many), and the data.N
 * files of a directory after it, all behind pv_walk_next.
 */
#ifndef PV_RECORD_WALK_H
#define PV_RECORD_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "format/perf_abi.h"
#include "format/record.h"
#include "base/pv_cursor.h"

/* Records cut out of the decompressed bytes of COMPRESSED containers
 * (unpack.h hands them out in blocks).  A record may span two containers,
 * or two blocks: its pieces are put together in stitch. */
struct pv_unpacker;
struct pv_unpack_block;
typedef struct pv_unpacked {
    struct pv_unpacker *source;           /* created at the first container */
    const struct pv_unpack_block *block;  /* records are cut from here */
    uint32_t piece;                       /* the block's piece being read */
    uint32_t pos;                         /* offset in the block */
    bool container_done;                  /* the container's output is all read */
    uint32_t segment;                     /* the container being read */
    uint64_t container_offset;
    uint8_t *stitch;                      /* the start of a record that goes on */
    uint32_t held;                        /* in the next piece: its length */
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
    /* Bytes read at once when the window moves (more when a record needs
     * it); 0: the default.  A scan that reads a few chunks of the stream
     * (scan/record_scan.h) reads no more than them. */
    uint32_t window_limit;
    /* The buffers windows are read into: buffers[current] holds the
     * window; one a reader has pinned (pv_walk_pin) is not read into
     * again until unpinned. */
    struct pv_walk_buffer {
        uint8_t *bytes;
        uint32_t pins;
        /* the window read into it: its segment and file offset, and the
         * ordinal of the first record pinned in it since it had none */
        uint32_t segment;
        uint64_t window_offset;
        uint64_t first_pinned_index;
    } *buffers;
    uint32_t nr_buffers, current, nr_pinned;
    /* pipe mode: where bytes that are not a record end the stream, or 0 */
    uint64_t garbage_offset;
    /* an unfinished recording (pv_file.unfinished): bytes of records cut
     * short at the ends of its files, dropped, and where the first began */
    uint64_t cut_bytes;
    uint32_t cut_segment;
    uint64_t cut_offset;
    pv_unpacked unpacked;
} pv_walk;

/* Starts a walk over f; every started walk must be ended with pv_walk_end. */
void pv_walk_start(pv_walk *w, pv_file *f);
/* The next record when it is the common one: one that lies whole in the
 * window, of a file that is not a pipe, with nothing after it (not
 * AUXTRACE) and nothing in it to enter (not COMPRESSED).  False when
 * pv_walk_next_slow must look (window edges, damage, the rest). */
static inline bool pv_walk_in_window(pv_walk *w, pv_record *rec)
{
    const pv_file *f = w->file;
    uint64_t at = w->next_offset;
    if (!w->window || f->pipe || at < w->window_offset || at - w->window_offset > w->window_len)
        return false;
    uint64_t left = w->window_len - (at - w->window_offset);
    if (left < PV_RECORD_HEADER_SIZE)
        return false;
    const uint8_t *p = w->window + (at - w->window_offset);
    uint16_t size = pv_load_u16(p + 6, f->swap);
    uint32_t type = pv_load_u32(p, f->swap);
    /* the window never reaches past end_offset */
    if (size < PV_RECORD_HEADER_SIZE || left < size || type == PV_RECORD_AUXTRACE ||
        type == PV_RECORD_COMPRESSED || type == PV_RECORD_COMPRESSED2)
        return false;
    rec->type = type;
    rec->misc = pv_load_u16(p + 4, f->swap);
    rec->size = size;
    rec->segment = (uint32_t)w->segment;
    rec->bytes = p;
    rec->file_offset = at;
    rec->compressed = false;
    rec->index = w->next_index++;
    w->next_offset = at + size;
    return true;
}
int pv_walk_next_slow(pv_walk *w, pv_record *rec, pv_error *err);
/* 1: *rec holds the next record, valid until the next call; 0: end of
 * stream; -1: error in err.  Inline: a scan asks for every record, and
 * nearly all are in the window. */
static inline int pv_walk_next(pv_walk *w, pv_record *rec, pv_error *err)
{
    if (!w->unpacked.source && pv_walk_in_window(w, rec))
        return 1;
    return pv_walk_next_slow(w, rec, err);
}
/* The next record of the files themselves, COMPRESSED containers not
 * entered, the data.N files after the perf.data: 1, 0 at the end, -1 on
 * error.  Writes nothing but w, so that a second thread can run ahead of
 * the walk on the same file (unpack.h). */
int pv_walk_files_next(pv_walk *w, pv_record *rec, pv_error *err);
/* Continues the walk at the record header at offset of segment (as in
 * pv_record.segment), whose ordinal is index: a place an earlier walk of
 * the same file found (time_index.h).  Decompression stops there: a seek
 * anywhere but where the walk already is drops it (compressed files have
 * no time index). */
void pv_walk_seek(pv_walk *w, uint32_t segment, uint64_t offset, uint64_t index);
/* Buffers pv_walk_pin may keep pinned at once: past that, a reader copies
 * (memory stays bounded whatever records it holds). */
#define PV_WALK_MAX_PINNED 16u
/* Where a pinned record lies: enough to give its pv_record back
 * (pv_walk_pinned_record) in 8 bytes, so that a queue of them stays small.
 * at: its offset in the buffer; ordinal_step: its index less the buffer's
 * first_pinned_index. */
typedef struct pv_walk_place {
    uint32_t at;
    uint16_t buffer;
    uint16_t ordinal_step;
} pv_walk_place;
/* Keeps the bytes of rec, the record pv_walk_next just handed out, valid
 * past the next call, until pv_walk_unpin(w, place->buffer).  False when
 * they cannot be kept (a record of compressed data, of an image in
 * memory, or PV_WALK_MAX_PINNED buffers pinned): the reader copies them.
 * Inline, as unpin: a time-ordered scan pins nearly every record. */
static inline bool pv_walk_pin(pv_walk *w, const pv_record *rec, pv_walk_place *place)
{
    if (rec->compressed || !w->nr_buffers || w->window != w->buffers[w->current].bytes)
        return false;
    struct pv_walk_buffer *b = &w->buffers[w->current];
    uint64_t at = (uint64_t)(rec->bytes - b->bytes);
    /* the window is at most w->window_len bytes, the record lies in it */
    if (rec->bytes < b->bytes || at > w->window_len || w->window_len - at < rec->size ||
        w->current > UINT16_MAX)
        return false;
    if (b->pins == 0) {
        if (w->nr_pinned >= PV_WALK_MAX_PINNED)
            return false;
        b->first_pinned_index = rec->index;
    } else if (rec->index < b->first_pinned_index ||
               rec->index - b->first_pinned_index > UINT16_MAX) {
        return false;
    }
    if (b->pins++ == 0)
        w->nr_pinned++;
    place->at = (uint32_t)at;
    place->buffer = (uint16_t)w->current;
    place->ordinal_step = (uint16_t)(rec->index - b->first_pinned_index);
    return true;
}
static inline void pv_walk_unpin(pv_walk *w, unsigned buffer)
{
    struct pv_walk_buffer *b = &w->buffers[buffer];
    if (--b->pins == 0)
        w->nr_pinned--;
}
/* The pv_record of a record pinned at place, as pv_walk_next handed it out. */
static inline void pv_walk_pinned_record(const pv_walk *w, pv_walk_place place, pv_record *rec)
{
    const struct pv_walk_buffer *b = &w->buffers[place.buffer];
    const uint8_t *p = b->bytes + place.at;
    bool swap = w->file->swap;
    rec->index = b->first_pinned_index + place.ordinal_step;
    rec->segment = b->segment;
    rec->file_offset = b->window_offset + place.at;
    rec->compressed = false;
    rec->type = pv_load_u32(p, swap);
    rec->misc = pv_load_u16(p + 4, swap);
    rec->size = pv_load_u16(p + 6, swap);
    rec->bytes = p;
}
/* Frees what the walk allocated (its window, decompression state) and
 * stops a decompressing thread.  Safe on a zeroed or ended walk. */
void pv_walk_end(pv_walk *w);

#endif
