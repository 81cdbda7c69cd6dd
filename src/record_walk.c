#include "record_walk.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "perf_abi.h"
#include "pv_cursor.h"

#define RECORD_HEADER_SIZE 8
/* Decompressed bytes held at once: any record (at most 64 KiB) fits, and the
 * memory stays the same whatever the file declares. */
#define UNPACKED_CAPACITY (1u << 20)
/* Bytes read from the file at once; a record (at most 64 KiB) always fits. */
#define WINDOW_CAPACITY (256u << 10)
#define MAX_RECORD_SIZE 0xffffu

void pv_walk_start(pv_walk *w, pv_file *f)
{
    memset(w, 0, sizeof *w);
    w->file = f;
    w->path = f->data_path;
    w->next_offset = f->data_section.offset;
    w->end_offset = f->data_section.offset + f->data_section.size;
}

void pv_walk_seek(pv_walk *w, uint32_t segment, uint64_t offset, uint64_t index)
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
    w->next_index = index;
}

/* Moves to the next data.N file; false when there is none. */
static bool next_segment(pv_walk *w)
{
    const pv_file *f = w->file;
    if (w->segment >= f->nr_segments)
        return false;
    const pv_segment *s = &f->segments[w->segment++];
    w->path = s->path;
    w->window_len = 0;
    w->next_offset = s->data_offset;
    w->end_offset = s->data_end;
    return true;
}

void pv_walk_end(pv_walk *w)
{
    if (w->unpacked.zstd)
        ZSTD_freeDStream(w->unpacked.zstd);
    free(w->unpacked.buffer);
    free(w->unpacked.input_copy);
    memset(&w->unpacked, 0, sizeof w->unpacked);
    free(w->buffer);
    w->buffer = NULL;
    w->window = NULL;
    w->window_len = 0;
}

/* The n bytes at offset at of the current segment (at + n <= end_offset,
 * n <= WINDOW_CAPACITY), or NULL with err set. */
static const uint8_t *walk_bytes(pv_walk *w, uint64_t at, uint64_t n, pv_error *err)
{
    if (w->window && at >= w->window_offset && w->window_len >= n &&
        at - w->window_offset <= w->window_len - n)
        return w->window + (at - w->window_offset);
    const pv_file *f = w->file;
    if (w->segment == 0 && f->memory) {
        w->window = f->memory + at;
        w->window_offset = at;
        w->window_len = w->end_offset - at;
        return w->window;
    }
    if (!w->buffer) {
        w->buffer = malloc(WINDOW_CAPACITY);
        if (!w->buffer) {
            pv_error_set(err, "%s: out of memory for reading records", w->path);
            return NULL;
        }
    }
    uint64_t len = w->end_offset - at < WINDOW_CAPACITY ? w->end_offset - at : WINDOW_CAPACITY;
    w->window = NULL;
    if (pv_file_read(f, w->segment, at, w->buffer, len, err))
        return NULL;
    w->window = w->buffer;
    w->window_offset = at;
    w->window_len = len;
    return w->window;
}

/* Record types are small numbers; text appended to a pipe recording reads
 * as a huge one. */
#define PIPE_MAX_RECORD_TYPE 0x10000

/* 1: a record starts at at; 0: it does not; -1: read error. */
static int pipe_record_fits(pv_walk *w, uint64_t at, uint64_t end, pv_error *err)
{
    if (end - at < RECORD_HEADER_SIZE)
        return 0;
    const uint8_t *p = walk_bytes(w, at, RECORD_HEADER_SIZE, err);
    if (!p)
        return -1;
    uint32_t type = pv_load_u32(p, w->file->swap);
    uint16_t size = pv_load_u16(p + 6, w->file->swap);
    /* A record type with an impossible size is a damaged record, not text
     * or zero padding: read_header reports it. */
    if (type != 0 && type < PIPE_MAX_RECORD_TYPE && size < RECORD_HEADER_SIZE)
        return 1;
    return type < PIPE_MAX_RECORD_TYPE && size >= RECORD_HEADER_SIZE && end - at >= size;
}

/* Reads the header at p (n bytes available) into rec; checks size >= 8. */
static int read_header(const pv_walk *w, const uint8_t *p, pv_record *rec, uint64_t at,
                       const char *where, pv_error *err)
{
    bool swap = w->file->swap;
    rec->type = pv_load_u32(p, swap);
    rec->misc = pv_load_u16(p + 4, swap);
    rec->size = pv_load_u16(p + 6, swap);
    rec->segment = (uint32_t)w->segment;
    if (rec->size < RECORD_HEADER_SIZE)
        return pv_error_set(err, "%s: record at offset 0x%llx%s has size %u (< 8)",
                            w->path, (unsigned long long)at, where, rec->size);
    return 0;
}

/*
 * COMPRESSED (81):  header; u8 data[size - 8]            zstd stream bytes
 * COMPRESSED2 (83): header; u64 data_size; u8 data[data_size]; padding to 8
 */
static int enter_container(pv_walk *w, const pv_record *container, pv_error *err)
{
    const pv_file *f = w->file;
    pv_unpacked *u = &w->unpacked;
    const uint8_t *data = container->bytes + RECORD_HEADER_SIZE;
    uint64_t size = (uint64_t)container->size - RECORD_HEADER_SIZE;
    if (container->type == PV_RECORD_COMPRESSED2) {
        if (size < 8)
            return pv_error_set(err, "%s: COMPRESSED2 record at offset 0x%llx has size %u (< 16)",
                                w->path, (unsigned long long)container->file_offset,
                                container->size);
        uint64_t data_size = pv_load_u64(data, f->swap);
        /* perf 6.16+ may overstate data_size by the padding: trust the record. */
        data += 8;
        size -= 8;
        if (data_size < size)
            size = data_size;
    }
    if (!u->zstd) {
        u->zstd = ZSTD_createDStream();
        u->buffer = malloc(UNPACKED_CAPACITY);
        u->input_copy = malloc(MAX_RECORD_SIZE);
        if (!u->zstd || !u->buffer || !u->input_copy)
            return pv_error_set(err, "%s: out of memory for decompression", f->data_path);
        ZSTD_initDStream(u->zstd);
        u->capacity = UNPACKED_CAPACITY;
    }
    /* The window moves on while the container is being unpacked. */
    memcpy(u->input_copy, data, (size_t)size);
    u->input = u->input_copy;
    u->input_left = size;
    u->container_offset = container->file_offset;
    return 0;
}

/* Decompresses more of the current container into the buffer.
 * Returns the number of new bytes (0 when the container is used up). */
static int64_t unpack_more(pv_walk *w, pv_error *err)
{
    pv_unpacked *u = &w->unpacked;
    if (u->start > 0) {
        memmove(u->buffer, u->buffer + u->start, (size_t)(u->end - u->start));
        u->end -= u->start;
        u->start = 0;
    }
    uint64_t before = u->end;
    while (u->input_left > 0 && u->end < u->capacity) {
        ZSTD_inBuffer in = {u->input, (size_t)u->input_left, 0};
        ZSTD_outBuffer out = {u->buffer + u->end, (size_t)(u->capacity - u->end), 0};
        size_t rc = ZSTD_decompressStream(u->zstd, &out, &in);
        if (ZSTD_isError(rc))
            return pv_error_set(err, "%s: compressed data of the record at offset 0x%llx "
                                "does not decompress: %s", w->path,
                                (unsigned long long)u->container_offset, ZSTD_getErrorName(rc));
        u->input += in.pos;
        u->input_left -= in.pos;
        u->end += out.pos;
        if (in.pos == 0 && out.pos == 0)
            break;
        if (out.pos > 0)
            break;
    }
    return (int64_t)(u->end - before);
}

/* The next record from decompressed bytes: 1 found, 0 need another
 * container, -1 error. */
static int next_unpacked(pv_walk *w, pv_record *rec, pv_error *err)
{
    pv_unpacked *u = &w->unpacked;
    for (;;) {
        uint64_t have = u->end - u->start;
        if (have >= RECORD_HEADER_SIZE) {
            const uint8_t *p = u->buffer + u->start;
            if (read_header(w, p, rec, u->container_offset,
                            " (inside the compressed data of that record)", err))
                return -1;
            if (have >= rec->size) {
                rec->bytes = p;
                rec->file_offset = u->container_offset;
                rec->compressed = true;
                rec->index = w->next_index++;
                u->start += rec->size;
                return 1;
            }
        }
        int64_t got = unpack_more(w, err);
        if (got < 0)
            return -1;
        if (got == 0)
            return 0;
    }
}

int pv_walk_next(pv_walk *w, pv_record *rec, pv_error *err)
{
    pv_file *f = w->file;
    if (w->unpacked.buffer) {
        int rc = next_unpacked(w, rec, err);
        if (rc != 0)
            return rc;
    }
    uint64_t at = w->next_offset;
    if (at >= w->end_offset && w->unpacked.end == w->unpacked.start && next_segment(w))
        return pv_walk_next(w, rec, err);
    if (at >= w->end_offset) {
        uint64_t pending = w->unpacked.end - w->unpacked.start;
        if (pending > 0)
            return pv_error_set(err, "%s: the compressed data ends in the middle of a record: "
                                "%llu bytes left after the container at offset 0x%llx",
                                w->path, (unsigned long long)pending,
                                (unsigned long long)w->unpacked.container_offset);
        return 0;
    }
    int fits = f->pipe ? pipe_record_fits(w, at, w->end_offset, err) : 1;
    if (fits < 0)
        return -1;
    if (!fits) {
        /* A pipe has no size in a header: what does not form a record at
         * the end (a cut-off write, text a shell appended) ends the stream. */
        f->trailing_garbage_offset = at;
        w->next_offset = w->end_offset;
        return 0;
    }
    if (w->end_offset - at < RECORD_HEADER_SIZE)
        return pv_error_set(err, "%s: truncated record header at offset 0x%llx: "
                            "only %llu bytes left in the data section",
                            w->path, (unsigned long long)at,
                            (unsigned long long)(w->end_offset - at));
    const uint8_t *p = walk_bytes(w, at, RECORD_HEADER_SIZE, err);
    if (!p || read_header(w, p, rec, at, "", err))
        return -1;
    if (w->end_offset - at < rec->size)
        return pv_error_set(err, "%s: record at offset 0x%llx (type %u, size %u) goes past the "
                            "end of the data section at offset 0x%llx: truncated file",
                            w->path, (unsigned long long)at, rec->type, rec->size,
                            (unsigned long long)w->end_offset);
    p = walk_bytes(w, at, rec->size, err);
    if (!p)
        return -1;
    uint64_t next = at + rec->size;
    /* In a pipe, tracing data follows its record, outside header.size. */
    if (f->pipe && rec->type == PV_RECORD_HEADER_TRACING_DATA) {
        uint64_t payload = rec->size >= RECORD_HEADER_SIZE + 4
                               ? pv_load_u32(p + RECORD_HEADER_SIZE, f->swap) : 0;
        if (w->end_offset - next < payload)
            return pv_error_set(err, "%s: HEADER_TRACING_DATA record at offset 0x%llx has %llu bytes "
                                "of data that go past the end of the file at offset 0x%llx",
                                w->path, (unsigned long long)at, (unsigned long long)payload,
                                (unsigned long long)w->end_offset);
        next += payload;
    }
    /* An AUXTRACE record's trace data follows it, outside header.size;
     * its length is the record's first body field. */
    if (rec->type == PV_RECORD_AUXTRACE) {
        if (rec->size < RECORD_HEADER_SIZE + 8)
            return pv_error_set(err, "%s: AUXTRACE record at offset 0x%llx has size %u (< 16)",
                                w->path, (unsigned long long)at, rec->size);
        uint64_t payload = pv_load_u64(p + RECORD_HEADER_SIZE, f->swap);
        if (w->end_offset - next < payload)
            return pv_error_set(err, "%s: AUXTRACE record at offset 0x%llx has %llu bytes of trace "
                                "data that go past the end of the data section at offset 0x%llx",
                                w->path, (unsigned long long)at, (unsigned long long)payload,
                                (unsigned long long)w->end_offset);
        next += payload;
    }
    rec->bytes = p;
    rec->file_offset = at;
    rec->compressed = false;
    rec->index = w->next_index++;
    w->next_offset = next;
    if ((rec->type == PV_RECORD_COMPRESSED || rec->type == PV_RECORD_COMPRESSED2) &&
        enter_container(w, rec, err))
        return -1;
    return 1;
}
