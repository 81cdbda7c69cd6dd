/*
 * Walking the records the files of a recording hold.
 *
 * A record is an 8-byte header {u32 type; u16 misc; u16 size} followed by
 * size - 8 bytes of body.  The file walk steps from header to header
 * through the data section of the perf.data, read in windows with pread
 * (or an image in memory), then through the data.N files of a `--threads`
 * directory.  It skips the payloads that follow AUXTRACE records (and
 * HEADER_TRACING_DATA in a pipe), ends a pipe where the bytes stop forming
 * records, and drops the record an unfinished recording was cut in.
 *
 * It never enters a COMPRESSED container: decompression (unpack.h) runs a
 * file walk of its own to find the containers, and the record walk
 * (record_walk.h) puts the two together.  Nor does it number records: the
 * record walk numbers them, those of compressed data included.
 */
#ifndef PV_FILE_WALK_H
#define PV_FILE_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "format/perf_abi.h"
#include "format/record.h"
#include "base/byte_reader.h"
#include "stream/pin_count.h"

typedef struct pv_file_walk {
    pv_file *file;
    size_t segment;        /* 0: the perf.data itself; N + 1: segments[N] */
    const char *path;      /* the current segment's path, for messages */
    uint64_t next_offset;
    uint64_t end_offset;
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
     * window; one a reader has pinned (pv_file_walk_pin) is not read into
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
    /* where the COMPRESSED2 records perf 6.16 wrote inside the data_size
     * of the one before them end (file_walk.c, compressed2_size), or 0 */
    uint64_t chain_end;
} pv_file_walk;

/* Starts a walk over f; every started walk must be ended with
 * pv_file_walk_end. */
void pv_file_walk_start(pv_file_walk *w, pv_file *f);
/* The next record when it is the common one: one that lies whole in the
 * window, of a file that is not a pipe, with nothing after it (not
 * AUXTRACE) and nothing in it to enter (not COMPRESSED).  False when
 * pv_file_walk_record must look (window edges, damage, the rest).  Inline:
 * a scan asks for every record, and nearly all are in the window. */
static inline bool pv_file_walk_in_window(pv_file_walk *w, pv_record *rec)
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
    rec->size_repair = PV_SIZE_AS_WRITTEN;
    w->next_offset = at + size;
    return true;
}
/* A bit per record type below 128 (bit t % 64 of word t / 64). */
#define PV_TYPE_BIT(t) ((uint64_t)1 << ((t) & 63))
/* Steps over the records pv_file_walk_in_window would hand out next whose
 * type is not in wanted (types from 128 on, AUXTRACE and COMPRESSED ones
 * always are), up to the first wanted one or the first it would not hand
 * out: how many it stepped over.  For a reader that needs few types (the
 * maps fed ahead of a scan): a header's type and size read per record,
 * and no record made. */
static inline uint64_t pv_file_walk_skip(pv_file_walk *w, const uint64_t wanted[2])
{
    const pv_file *f = w->file;
    uint64_t at = w->next_offset;
    if (!w->window || f->pipe || at < w->window_offset || at - w->window_offset > w->window_len)
        return 0;
    uint64_t stop[2] = { wanted[0], wanted[1] | PV_TYPE_BIT(PV_RECORD_AUXTRACE) |
                                        PV_TYPE_BIT(PV_RECORD_COMPRESSED) |
                                        PV_TYPE_BIT(PV_RECORD_COMPRESSED2) };
    const uint8_t *from = w->window + (at - w->window_offset), *p = from;
    const uint8_t *end = w->window + w->window_len;
    uint64_t n = 0;
    while ((uint64_t)(end - p) >= PV_RECORD_HEADER_SIZE) {
        uint16_t size = pv_load_u16(p + 6, f->swap);
        uint32_t type = pv_load_u32(p, f->swap);
        if (type >= 128 || (stop[type >> 6] & PV_TYPE_BIT(type)) || size < PV_RECORD_HEADER_SIZE ||
            (uint64_t)(end - p) < size)
            break;
        p += size;
        n++;
    }
    w->next_offset = at + (uint64_t)(p - from);
    return n;
}
/* The next record of the current file, its index left to the caller: 1,
 * 0 at the file's end (or where a pipe's bytes stop forming records:
 * garbage_offset says where), -1 on error. */
int pv_file_walk_record(pv_file_walk *w, pv_record *rec, pv_error *err);
/* Moves to the next data.N file; false when there is none. */
bool pv_file_walk_next_file(pv_file_walk *w);
/* The next record of all the files, one after another, its index left to
 * the caller: 1, 0 at the end, -1 on error.  Writes nothing but w, so
 * that a second thread can run ahead of a walk on the same file
 * (unpack.h). */
int pv_file_walk_next(pv_file_walk *w, pv_record *rec, pv_error *err);
/* Continues the walk at the record header at offset of segment (as in
 * pv_record.segment). */
void pv_file_walk_seek(pv_file_walk *w, uint32_t segment, uint64_t offset);
/* Reads the record header at p, found at offset at of the current file
 * (where: more about that place, for messages), into rec; checks that its
 * size is at least 8. */
int pv_file_walk_read_header(const pv_file_walk *w, const uint8_t *p, pv_record *rec,
                             uint64_t at, const char *where, pv_error *err);
/* Bytes from offset at of the current file to the end of the recording. */
uint64_t pv_file_walk_bytes_left(const pv_file_walk *w, uint64_t at);
/* An unfinished recording may end in the middle of a record, where perf
 * was stopped while writing it: the n bytes at at of segment that began
 * it are dropped, and counted in cut_bytes. */
void pv_file_walk_cut_short(pv_file_walk *w, uint32_t segment, uint64_t at, uint64_t n);

/* Buffers pv_file_walk_pin may keep pinned at once: past that, a reader
 * copies (memory stays bounded whatever records it holds). */
#define PV_WALK_MAX_PINNED 16u
/* Where a pinned record lies: enough to give its pv_record back
 * (pv_file_walk_pinned_record) in 8 bytes, so that a queue of them stays
 * small.  at: its offset in the buffer; ordinal_step: its index less the
 * buffer's first_pinned_index. */
typedef struct pv_walk_place {
    uint32_t at;
    uint16_t buffer;
    uint16_t ordinal_step;
} pv_walk_place;
/* Keeps the bytes of rec, the record just handed out (its index given),
 * valid past the next one, until pv_file_walk_unpin(w, place->buffer).
 * False when they cannot be kept (a record of compressed data, of an
 * image in memory, or PV_WALK_MAX_PINNED buffers pinned): the reader
 * copies them.  Inline, as unpin: a time-ordered scan pins nearly every
 * record. */
static inline bool pv_file_walk_pin(pv_file_walk *w, const pv_record *rec, pv_walk_place *place)
{
    /* a resized record's header does not give it back */
    if (rec->compressed || rec->size_repair || !w->nr_buffers ||
        w->window != w->buffers[w->current].bytes)
        return false;
    struct pv_walk_buffer *b = &w->buffers[w->current];
    uint64_t at = (uint64_t)(rec->bytes - b->bytes);
    /* the window is at most w->window_len bytes, the record lies in it */
    if (rec->bytes < b->bytes || at > w->window_len || w->window_len - at < rec->size ||
        w->current > UINT16_MAX)
        return false;
    if (!pv_pin_count_take(&b->pins, &b->first_pinned_index, &w->nr_pinned, PV_WALK_MAX_PINNED,
                           rec->index, &place->ordinal_step))
        return false;
    place->at = (uint32_t)at;
    place->buffer = (uint16_t)w->current;
    return true;
}
static inline void pv_file_walk_unpin(pv_file_walk *w, unsigned buffer)
{
    struct pv_walk_buffer *b = &w->buffers[buffer];
    if (--b->pins == 0)
        w->nr_pinned--;
}
/* The pv_record of a record pinned at place, as it was handed out. */
static inline void pv_file_walk_pinned_record(const pv_file_walk *w, pv_walk_place place,
                                              pv_record *rec)
{
    const struct pv_walk_buffer *b = &w->buffers[place.buffer];
    const uint8_t *p = b->bytes + place.at;
    bool swap = w->file->swap;
    rec->index = b->first_pinned_index + place.ordinal_step;
    rec->segment = b->segment;
    rec->file_offset = b->window_offset + place.at;
    rec->compressed = false;
    rec->size_repair = PV_SIZE_AS_WRITTEN;
    rec->type = pv_load_u32(p, swap);
    rec->misc = pv_load_u16(p + 4, swap);
    rec->size = pv_load_u16(p + 6, swap);
    rec->bytes = p;
}
/* The records left in the window, for a reader that pins a run of them at
 * once (scan/time_order.c): it steps through [next, end) itself, as
 * pv_file_walk_in_window would record by record, and pv_file_walk_span_end
 * pins in one go the n records it took (ordinals first_index on, at most
 * room of them) and moves the walk past them.  A record it does not take
 * (AUXTRACE, COMPRESSED, one cut by the window's end, or any it leaves)
 * stays for the walk. */
typedef struct pv_walk_span {
    const uint8_t *next, *end;
    const uint8_t *base;        /* the buffer's start: a place's at is next - base */
    uint16_t buffer;
    uint64_t first_index;       /* the ordinal of the record at next */
    uint64_t room;              /* how many records a place can tell from here */
    uint16_t first_step;        /* the place's ordinal_step of the record at next */
    uint32_t at_tag;            /* added to each place's at (record_walk.h) */
} pv_walk_span;
/* False when the window's records cannot be pinned as a run (not read
 * into a buffer, a pipe, a buffer out of places): the walk goes on one by
 * one. */
static inline bool pv_file_walk_span_begin(const pv_file_walk *w, uint64_t next_index,
                                           pv_walk_span *s)
{
    if (!w->window || w->file->pipe || !w->nr_buffers || w->current > UINT16_MAX ||
        w->window != w->buffers[w->current].bytes || w->window_len > UINT32_MAX ||
        w->next_offset < w->window_offset || w->next_offset - w->window_offset > w->window_len)
        return false;
    const struct pv_walk_buffer *b = &w->buffers[w->current];
    uint64_t step = 0;
    if (b->pins == 0) {
        if (w->nr_pinned >= PV_WALK_MAX_PINNED)
            return false;
    } else {
        if (next_index < b->first_pinned_index ||
            next_index - b->first_pinned_index > UINT16_MAX)
            return false;
        step = next_index - b->first_pinned_index;
    }
    s->base = b->bytes;
    s->next = w->window + (w->next_offset - w->window_offset);
    s->end = w->window + w->window_len;
    s->buffer = (uint16_t)w->current;
    s->first_index = next_index;
    s->first_step = (uint16_t)step;
    s->at_tag = 0;
    s->room = (uint64_t)UINT16_MAX - step + 1;
    return true;
}
/* The reader took the n records before at (n <= room, each whole in the
 * window, none AUXTRACE or COMPRESSED): they are pinned, each until its
 * own pv_file_walk_unpin, and the walk goes on at at. */
static inline void pv_file_walk_span_end(pv_file_walk *w, const pv_walk_span *s,
                                         const uint8_t *at, uint64_t n)
{
    if (n == 0)
        return;
    struct pv_walk_buffer *b = &w->buffers[s->buffer];
    if (b->pins == 0) {
        b->first_pinned_index = s->first_index;
        w->nr_pinned++;
    }
    b->pins += (uint32_t)n;
    w->next_offset += (uint64_t)(at - s->next);
}
/* Frees the walk's window buffers.  Safe on a zeroed or ended walk. */
void pv_file_walk_end(pv_file_walk *w);

#endif
