#include "stream/file_walk.h"

#include <stdlib.h>
#include <string.h>

#include "format/perf_abi.h"
#include "format/user_records.h"
#include "base/byte_reader.h"
#include "base/pv_alloc.h"

/* Bytes read from the file at once; a record (at most 64 KiB) always fits. */
#define WINDOW_CAPACITY (256u << 10)

void pv_file_walk_start(pv_file_walk *w, pv_file *f)
{
    memset(w, 0, sizeof *w);
    w->file = f;
    w->path = f->data_path;
    w->next_offset = f->data_section.offset;
    w->end_offset = f->data_section.offset + f->data_section.size;
}

void pv_file_walk_seek(pv_file_walk *w, uint32_t segment, uint64_t offset)
{
    const pv_file *f = w->file;
    if (segment != w->segment) {
        w->window_len = 0;
        w->segment = segment;
        if (segment == 0) {
            w->path = f->data_path;
            w->end_offset = f->data_section.offset + f->data_section.size;
        } else {
            const pv_segment *s = &f->segments[segment - 1];
            w->path = s->path;
            w->end_offset = s->data_end;
        }
    }
    w->next_offset = offset;
    w->chain_end = 0;
}

bool pv_file_walk_next_file(pv_file_walk *w)
{
    const pv_file *f = w->file;
    if (w->segment >= f->nr_segments)
        return false;
    const pv_segment *s = &f->segments[w->segment++];
    w->path = s->path;
    w->window_len = 0;
    w->next_offset = s->data_offset;
    w->chain_end = 0;
    w->end_offset = s->data_end;
    return true;
}

void pv_file_walk_end(pv_file_walk *w)
{
    for (uint32_t i = 0; i < w->nr_buffers; i++)
        free(w->buffers[i].bytes);
    free(w->buffers);
    w->buffers = NULL;
    w->nr_buffers = w->current = w->nr_pinned = 0;
    w->window = NULL;
    w->window_len = 0;
}

/* Makes buffers[current] one no reader has pinned; false when out of
 * memory. */
static bool unpinned_buffer(pv_file_walk *w)
{
    if (w->nr_buffers && w->buffers[w->current].pins == 0)
        return true;
    for (uint32_t i = 0; i < w->nr_buffers; i++)
        if (w->buffers[i].pins == 0) {
            w->current = i;
            return true;
        }
    struct pv_walk_buffer *grown = pv_realloc(w->buffers, (w->nr_buffers + 1) * sizeof *grown);
    if (!grown)
        return false;
    w->buffers = grown;
    uint8_t *bytes = pv_malloc(WINDOW_CAPACITY);
    if (!bytes)
        return false;
    w->buffers[w->nr_buffers].bytes = bytes;
    w->buffers[w->nr_buffers].pins = 0;
    w->current = w->nr_buffers++;
    return true;
}

/* Reads the window that holds the n bytes at at (walk_bytes' slow way). */
static const uint8_t *move_window(pv_file_walk *w, uint64_t at, uint64_t n, pv_error *err)
{
    const pv_file *f = w->file;
    if (w->segment == 0 && f->memory) {
        w->window = f->memory + at;
        w->window_offset = at;
        w->window_len = w->end_offset - at;
        return w->window;
    }
    w->window = NULL;
    if (!unpinned_buffer(w)) {
        pv_error_set(err, "%s: out of memory for reading records", w->path);
        return NULL;
    }
    uint8_t *buffer = w->buffers[w->current].bytes;
    uint64_t capacity = WINDOW_CAPACITY;
    if (w->window_limit && w->window_limit < capacity)
        capacity = w->window_limit < n ? n : w->window_limit;
    uint64_t len = w->end_offset - at < capacity ? w->end_offset - at : capacity;
    if (pv_file_read(f, w->segment, at, buffer, len, err))
        return NULL;
    w->buffers[w->current].segment = (uint32_t)w->segment;
    w->buffers[w->current].window_offset = at;
    w->window = buffer;
    w->window_offset = at;
    w->window_len = len;
    return w->window;
}

/* The n bytes at offset at of the current segment (at + n <= end_offset,
 * n <= WINDOW_CAPACITY), or NULL with err set.  Inline: the walk asks for
 * every record's bytes, and they are nearly always in the window. */
static inline const uint8_t *walk_bytes(pv_file_walk *w, uint64_t at, uint64_t n, pv_error *err)
{
    if (w->window && at >= w->window_offset && w->window_len >= n &&
        at - w->window_offset <= w->window_len - n)
        return w->window + (at - w->window_offset);
    return move_window(w, at, n, err);
}

/* ---- COMPRESSED2 records whose sizes disagree ------------------------------
 * COMPRESSED2: header, 8 data_size u64, 16 data, zero padding to 8 bytes.
 * perf 6.16's writer (until "perf record: Fix multiple PERF_RECORD_COMPRESSED2
 * records per push") set the first record of a push to describe the whole
 * push: data_size the bytes of every record zstd wrote for it, less 16, and
 * header.size that rounded up to 8, cut to 16 bits (0 at 65536), with no
 * padding written.  The records after the first keep the header.size zstd's
 * loop gave them (16 + their data, not rounded) and a data_size never
 * written.  So the bytes decide: a size is proven when a record (or the end
 * of the data) starts where it ends. */
#define COMPRESSED2_HEAD 16u
#define MAX_RECORD_SIZE 0xffffu

/* A record header, or the end of the data, at offset at. */
static bool record_starts(pv_file_walk *w, uint64_t at)
{
    if (at == w->end_offset)
        return true;
    pv_error ignored;
    if (at > w->end_offset || w->end_offset - at < PV_RECORD_HEADER_SIZE)
        return false;
    const uint8_t *p = walk_bytes(w, at, PV_RECORD_HEADER_SIZE, &ignored);
    if (!p)
        return false;
    uint32_t type = pv_load_u32(p, w->file->swap);
    uint16_t size = pv_load_u16(p + 6, w->file->swap);
    return type != 0 && type < PV_RECORD_TYPE_LIMIT && size >= PV_RECORD_HEADER_SIZE &&
           w->end_offset - at >= size;
}

/* True when COMPRESSED2 records follow one another from at to exactly end
 * as perf's zstd loop writes them: each full (16 + 65519 bytes of zstd
 * output, MAX_RECORD_SIZE) but the last.  Full records keep the walk along
 * the chain short whatever the bytes. */
static bool compressed2_chain(pv_file_walk *w, uint64_t at, uint64_t end)
{
    pv_error ignored;
    while (at < end) {
        if (end - at < COMPRESSED2_HEAD)
            return false;
        const uint8_t *p = walk_bytes(w, at, PV_RECORD_HEADER_SIZE, &ignored);
        if (!p || pv_load_u32(p, w->file->swap) != PV_RECORD_COMPRESSED2)
            return false;
        uint16_t size = pv_load_u16(p + 6, w->file->swap);
        if (size < COMPRESSED2_HEAD || end - at < size ||
            (size != MAX_RECORD_SIZE && end - at != size))
            return false;
        at += size;
    }
    return at == end;
}

/* The size of the COMPRESSED2 at at (header.size written), as the bytes
 * prove it, and how it was repaired; as written when nothing disagrees or
 * nothing is proven (the usual checks then report what is wrong). */
static void compressed2_size(pv_file_walk *w, uint64_t at, uint16_t written, uint64_t *size,
                             uint8_t *repair)
{
    *size = written;
    *repair = PV_SIZE_AS_WRITTEN;
    uint64_t left = w->end_offset - at;
    if (w->chain_end > at) {
        /* a record perf wrote inside the data_size of the first */
        if (written >= COMPRESSED2_HEAD && w->chain_end - at >= written) {
            *repair = PV_SIZE_DATA_SIZE_UNSET;
            return;
        }
        w->chain_end = 0;
    }
    if (left < COMPRESSED2_HEAD)
        return;
    pv_error ignored;
    const uint8_t *p = walk_bytes(w, at, COMPRESSED2_HEAD, &ignored);
    if (!p)
        return;
    uint64_t data_size = pv_load_u64(p + 8, w->file->swap);
    /* perf pads the data to 8 bytes */
    if (written >= COMPRESSED2_HEAD && data_size <= written - COMPRESSED2_HEAD &&
        written - COMPRESSED2_HEAD - data_size < 8)
        return;
    if (data_size <= left - COMPRESSED2_HEAD) {
        uint64_t exact = COMPRESSED2_HEAD + data_size;
        uint64_t padded = exact + (-exact & 7);
        /* that writer never padded; a padded record ends 8-aligned */
        uint64_t ends[2] = {exact, padded};
        for (int i = 0; i < 2; i++) {
            if (ends[i] > left || !record_starts(w, at + ends[i]))
                continue;
            if (ends[i] <= MAX_RECORD_SIZE) {
                *size = ends[i];
                *repair = PV_SIZE_FROM_DATA;
                return;
            }
            /* more than a record holds: perf's zstd loop wrote the push as
             * full records and a last one, the first rewritten */
            if (compressed2_chain(w, at + MAX_RECORD_SIZE, at + ends[i])) {
                *size = MAX_RECORD_SIZE;
                *repair = PV_SIZE_FROM_DATA;
                w->chain_end = at + ends[i];
                return;
            }
        }
    }
}

/* Record types are small numbers; text appended to a pipe recording reads
 * as a huge one. */
#define PIPE_MAX_RECORD_TYPE PV_RECORD_TYPE_LIMIT

/* 1: a record starts at at; 0: it does not; -1: read error. */
static int pipe_record_fits(pv_file_walk *w, uint64_t at, uint64_t end, pv_error *err)
{
    if (end - at < PV_RECORD_HEADER_SIZE)
        return 0;
    const uint8_t *p = walk_bytes(w, at, PV_RECORD_HEADER_SIZE, err);
    if (!p)
        return -1;
    uint32_t type = pv_load_u32(p, w->file->swap);
    uint16_t size = pv_load_u16(p + 6, w->file->swap);
    /* A record type with an impossible size is a damaged record, not text
     * or zero padding: pv_file_walk_read_header reports it. */
    if (type != 0 && type < PIPE_MAX_RECORD_TYPE && size < PV_RECORD_HEADER_SIZE)
        return 1;
    return type < PIPE_MAX_RECORD_TYPE && size >= PV_RECORD_HEADER_SIZE && end - at >= size;
}

int pv_file_walk_read_header(const pv_file_walk *w, const uint8_t *p, pv_record *rec,
                             uint64_t at, const char *where, pv_error *err)
{
    bool swap = w->file->swap;
    rec->type = pv_load_u32(p, swap);
    rec->misc = pv_load_u16(p + 4, swap);
    rec->size = pv_load_u16(p + 6, swap);
    rec->segment = (uint32_t)w->segment;
    rec->size_repair = PV_SIZE_AS_WRITTEN;
    if (rec->size < PV_RECORD_HEADER_SIZE)
        return pv_error_set(err, "%s: record at offset 0x%llx%s has size %u (< 8)",
                            w->path, (unsigned long long)at, where, rec->size);
    return 0;
}

uint64_t pv_file_walk_bytes_left(const pv_file_walk *w, uint64_t at)
{
    const pv_file *f = w->file;
    uint64_t n = w->end_offset - at;
    for (size_t k = w->segment; k < f->nr_segments; k++)
        n += f->segments[k].data_end - f->segments[k].data_offset;
    return n;
}

void pv_file_walk_cut_short(pv_file_walk *w, uint32_t segment, uint64_t at, uint64_t n)
{
    if (w->cut_bytes == 0) {
        w->cut_segment = segment;
        w->cut_offset = at;
    }
    w->cut_bytes += n;
}

/* An unfinished file's last record, begun at at, never ended: the rest of
 * the current file is dropped (and counted), and the file ends there. */
static int drop_rest_of_file(pv_file_walk *w, uint64_t at)
{
    uint64_t rest = w->end_offset - at;
    w->next_offset = w->end_offset;
    pv_file_walk_cut_short(w, (uint32_t)w->segment, at, rest);
    return 0;
}

/* A stream: waits until n bytes at at are in (or it ended), and moves the
 * walk's end to what is in. */
static int stream_reach(pv_file_walk *w, uint64_t at, uint64_t n, pv_error *err)
{
    uint64_t end = n > UINT64_MAX - at ? UINT64_MAX : at + n;
    if (pv_file_stream_reach(w->file, end, err))
        return -1;
    w->end_offset = w->file->data_section.offset + w->file->data_section.size;
    return 0;
}

/* A stream: waits for the whole record at at, from its header's size, so
 * that the checks below see it as they see a file's. */
static int stream_reach_record(pv_file_walk *w, uint64_t at, pv_error *err)
{
    if (stream_reach(w, at, PV_RECORD_HEADER_SIZE, err))
        return -1;
    if (at > w->end_offset || w->end_offset - at < PV_RECORD_HEADER_SIZE)
        return 0;
    const uint8_t *p = walk_bytes(w, at, PV_RECORD_HEADER_SIZE, err);
    if (!p)
        return -1;
    return stream_reach(w, at, pv_load_u16(p + 6, w->file->swap), err);
}

int pv_file_walk_record(pv_file_walk *w, pv_record *rec, pv_error *err)
{
    const pv_file *f = w->file;
    uint64_t at = w->next_offset;
    bool stream = w->segment == 0 && pv_file_is_stream(f) && f->pipe;
    if (stream && stream_reach_record(w, at, err))
        return -1;
    if (at >= w->end_offset)
        return 0;
    int fits = f->pipe ? pipe_record_fits(w, at, w->end_offset, err) : 1;
    if (fits < 0)
        return -1;
    if (!fits) {
        /* A pipe has no size in a header: what does not form a record at
         * the end (a cut-off write, text a shell appended) ends the stream. */
        w->garbage_offset = at;
        w->next_offset = w->end_offset;
        return 0;
    }
    bool cut_ends = f->unfinished;
    if (cut_ends && w->end_offset - at < PV_RECORD_HEADER_SIZE) {
        return drop_rest_of_file(w, at);
    }
    if (w->end_offset - at < PV_RECORD_HEADER_SIZE)
        return pv_error_set(err, "%s: truncated record header at offset 0x%llx: "
                            "only %llu bytes left in the data section",
                            w->path, (unsigned long long)at,
                            (unsigned long long)(w->end_offset - at));
    const uint8_t *p = walk_bytes(w, at, PV_RECORD_HEADER_SIZE, err);
    if (!p)
        return -1;
    uint64_t proven = pv_load_u16(p + 6, f->swap);
    uint8_t repair = PV_SIZE_AS_WRITTEN;
    if (pv_load_u32(p, f->swap) == PV_RECORD_COMPRESSED2) {
        compressed2_size(w, at, (uint16_t)proven, &proven, &repair);
        p = walk_bytes(w, at, PV_RECORD_HEADER_SIZE, err);
        if (!p)
            return -1;
    }
    /* An unfinished file's records end where one cannot be: a tail the
     * file system zero-filled, or (data size lost from a finished file)
     * the feature sections.  What follows is dropped and said, not fatal. */
    if (cut_ends && proven < PV_RECORD_HEADER_SIZE) {
        return drop_rest_of_file(w, at);
    }
    if (repair == PV_SIZE_FROM_DATA) {
        pv_error written_size;   /* may be under 8: proven is not */
        pv_file_walk_read_header(w, p, rec, at, "", &written_size);
        rec->size = (uint16_t)proven;
    } else if (pv_file_walk_read_header(w, p, rec, at, "", err)) {
        return -1;
    }
    rec->size_repair = repair;
    if (cut_ends && w->end_offset - at < rec->size) {
        return drop_rest_of_file(w, at);
    }
    if (w->end_offset - at < rec->size)
        return pv_error_set(err, "%s: record at offset 0x%llx (type %u, size %u) goes past the "
                            "end of the data section at offset 0x%llx: truncated file",
                            w->path, (unsigned long long)at, rec->type, rec->size,
                            (unsigned long long)w->end_offset);
    p = walk_bytes(w, at, rec->size, err);
    if (!p)
        return -1;
    rec->bytes = p;
    rec->file_offset = at;
    uint64_t next = at + rec->size;
    /* In a pipe, tracing data follows its record, outside header.size.  A
     * record too short to say how much is taken to have none (perf_records'
     * fields report it). */
    if (f->pipe && rec->type == PV_RECORD_HEADER_TRACING_DATA) {
        pv_rec_tracing_data td;
        pv_error ignored;
        uint64_t payload = pv_rec_tracing_data_decode(f, rec, &td, &ignored) == 0 ? td.size : 0;
        if (stream && stream_reach(w, next, payload, err))
            return -1;
        if (w->end_offset - next < payload)
            return pv_error_set(err, "%s: HEADER_TRACING_DATA record at offset 0x%llx has %llu bytes "
                                "of data that go past the end of the file at offset 0x%llx",
                                w->path, (unsigned long long)at, (unsigned long long)payload,
                                (unsigned long long)w->end_offset);
        next += payload;
    }
    /* An AUXTRACE record's trace data follows it, outside header.size.  Its
     * length is the first field: a record damaged after it (perf_records'
     * fields report it) still says where the next one starts. */
    if (rec->type == PV_RECORD_AUXTRACE) {
        pv_rec_auxtrace aux;
        pv_error damaged;
        if (pv_rec_auxtrace_decode(f, rec, &aux, &damaged) &&
            rec->size - PV_RECORD_HEADER_SIZE < 8) {
            *err = damaged;
            return -1;
        }
        if (stream && stream_reach(w, next, aux.size, err))
            return -1;
        if (cut_ends && w->end_offset - next < aux.size) {
            return drop_rest_of_file(w, at);
        }
        if (w->end_offset - next < aux.size)
            return pv_error_set(err, "%s: AUXTRACE record at offset 0x%llx has %llu bytes of trace "
                                "data that go past the end of the data section at offset 0x%llx",
                                w->path, (unsigned long long)at, (unsigned long long)aux.size,
                                (unsigned long long)w->end_offset);
        next += aux.size;
    }
    rec->compressed = false;
    w->next_offset = next;
    return 1;
}

int pv_file_walk_next(pv_file_walk *w, pv_record *rec, pv_error *err)
{
    for (;;) {
        int rc = pv_file_walk_record(w, rec, err);
        if (rc != 0 || w->garbage_offset || !pv_file_walk_next_file(w))
            return rc;
    }
}

