#include "stream/record_walk.h"

#include <stdlib.h>
#include <string.h>

#include "format/perf_abi.h"
#include "base/byte_reader.h"
#include "base/pv_alloc.h"
#include "base/pv_env.h"

#define MAX_RECORD_SIZE 0xffffu

void pv_walk_start(pv_walk *w, pv_file *f)
{
    memset(w, 0, sizeof *w);
    pv_file_walk_start(&w->files, f);
}

/* Ends decompression: stops its thread, frees its blocks. */
static void stop_unpacking(pv_walk *w)
{
    pv_unpacked *u = &w->unpacked;
    pv_unpacker_close(u->source);
    free(u->stitch);
    memset(u, 0, sizeof *u);
}

void pv_walk_seek(pv_walk *w, uint32_t segment, uint64_t offset, uint64_t index)
{
    if (segment == w->files.segment && offset == w->files.next_offset && index == w->next_index)
        return;
    stop_unpacking(w);
    pv_file_walk_seek(&w->files, segment, offset);
    w->next_index = index;
}

void pv_walk_end(pv_walk *w)
{
    stop_unpacking(w);
    pv_file_walk_end(&w->files);
}

/* Enters the COMPRESSED container the file walk just handed out.  The
 * compressed bytes from there to the end of the recording decide whether
 * a decompressing thread is worth it. */
static int enter_container(pv_walk *w, const pv_record *container, pv_error *err)
{
    pv_file_walk *fw = &w->files;
    pv_unpacked *u = &w->unpacked;
    if (!u->source) {
        u->stitch = pv_malloc(MAX_RECORD_SIZE);
        if (!u->stitch)
            return pv_error_set(err, "%s: out of memory for decompression", fw->path);
        if (pv_unpacker_open(&u->source, fw->file, container,
                             pv_file_walk_bytes_left(fw, container->file_offset), fw->path, err))
            return -1;
        u->pool = pv_unpacker_blocks(u->source);
        u->copy_only = pv_env_number("PERFVTAB_UNPACK_PIN", 0, 1) == 0;
    }
    if (pv_unpacker_enter(u->source, container, fw->path, err))
        return -1;
    u->segment = container->segment;
    u->container_offset = container->file_offset;
    u->container_done = false;
    return 0;
}

/* Moves on to the next block of decompressed bytes. */
static int next_block(pv_walk *w, pv_error *err)
{
    pv_unpacked *u = &w->unpacked;
    pv_unpack_block *b = u->block;
    if (b && b->status == PV_UNPACK_ERROR) {
        *err = b->error;
        return -1;
    }
    if (b && b->status == PV_UNPACK_END)
        return pv_error_set(err, "%s: the decompressed data of the record at offset 0x%llx is "
                            "missing: the file changed while it was read", w->files.path,
                            (unsigned long long)u->container_offset);
    if (pv_unpacker_next_block(u->source, &u->block, err))
        return -1;
    u->piece = 0;
    u->pos = 0;
    return 0;
}

static void hand_out(pv_walk *w, const uint8_t *p, pv_record *rec)
{
    rec->bytes = p;
    rec->file_offset = w->unpacked.container_offset;
    rec->compressed = true;
    rec->index = w->next_index++;
}

/* The next record from decompressed bytes: 1 found, 0 the current
 * container's output is used up, -1 error.  A record lies in one piece and
 * is handed out where it is, or is put together in stitch from the pieces
 * it spans (of the same container, or of the next containers the walk
 * enters). */
static int next_unpacked(pv_walk *w, pv_record *rec, pv_error *err)
{
    static const char inside[] = " (inside the compressed data of that record)";
    pv_unpacked *u = &w->unpacked;
    for (;;) {
        if (u->container_done)
            return 0;
        if (!u->block || u->piece == u->block->nr_pieces) {
            if (next_block(w, err))
                return -1;
            continue;
        }
        const pv_unpack_piece *piece = &u->block->pieces[u->piece];
        if (piece->segment != u->segment || piece->container_offset != u->container_offset)
            return pv_error_set(err, "%s: the decompressed data of the record at offset 0x%llx "
                                "is not where it was: the file changed while it was read",
                                w->files.path, (unsigned long long)u->container_offset);
        if (u->pos == piece->end) {
            u->container_done = piece->last;
            u->piece++;
            continue;
        }
        const uint8_t *p = u->block->bytes + u->pos;
        uint32_t avail = piece->end - u->pos;
        if (u->held == 0 && avail >= PV_RECORD_HEADER_SIZE) {
            if (pv_file_walk_read_header(&w->files, p, rec, u->container_offset, inside, err))
                return -1;
            if (avail >= rec->size) {
                u->pos += rec->size;
                hand_out(w, p, rec);
                return 1;
            }
        }
        uint32_t need = PV_RECORD_HEADER_SIZE - u->held;
        if (u->held >= PV_RECORD_HEADER_SIZE)
            need = pv_load_u16(u->stitch + 6, w->files.file->swap) - u->held;
        uint32_t take = avail < need ? avail : need;
        memcpy(u->stitch + u->held, p, take);
        u->held += take;
        u->pos += take;
        if (u->held >= PV_RECORD_HEADER_SIZE) {
            if (pv_file_walk_read_header(&w->files, u->stitch, rec, u->container_offset, inside, err))
                return -1;
            if (u->held == rec->size) {
                u->held = 0;
                hand_out(w, u->stitch, rec);
                return 1;
            }
        }
    }
}

bool pv_unpacked_span_begin(pv_unpacked *u, uint64_t next_index, pv_walk_span *s)
{
    pv_unpack_block *b = u->block;
    if (u->copy_only || !b || u->held > 0 || u->container_done || u->piece == b->nr_pieces)
        return false;
    /* what next_unpacked checks before cutting records from the piece */
    const pv_unpack_piece *piece = &b->pieces[u->piece];
    if (piece->segment != u->segment || piece->container_offset != u->container_offset)
        return false;
    uint64_t step = 0;
    if (b->pins == 0) {
        if (u->nr_pinned >= PV_UNPACK_MAX_PINNED)
            return false;
    } else {
        if (next_index < b->first_pinned_index || next_index - b->first_pinned_index > UINT16_MAX)
            return false;
        step = next_index - b->first_pinned_index;
    }
    s->base = b->bytes;
    s->next = b->bytes + u->pos;
    s->end = b->bytes + piece->end;
    s->buffer = (uint16_t)(PV_WALK_UNPACKED_BUFFER + (uint32_t)(b - u->pool));
    s->first_index = next_index;
    s->first_step = (uint16_t)step;
    s->at_tag = u->piece << PV_UNPACK_PIECE_SHIFT;
    s->room = (uint64_t)UINT16_MAX - step + 1;
    return true;
}

void pv_unpacked_span_end(pv_unpacked *u, const pv_walk_span *s, const uint8_t *at, uint64_t n)
{
    if (n == 0)
        return;
    pv_unpack_block *b = u->block;
    if (b->pins == 0) {
        b->first_pinned_index = s->first_index;
        u->nr_pinned++;
    }
    b->pins += (uint32_t)n;
    u->pos += (uint32_t)(at - s->next);
}

int pv_walk_next_slow(pv_walk *w, pv_record *rec, pv_error *err)
{
    pv_file_walk *fw = &w->files;
    pv_unpacked *u = &w->unpacked;
    for (;;) {
        if (u->source) {
            int rc = next_unpacked(w, rec, err);
            if (rc != 0)
                return rc;
        }
        if (pv_file_walk_in_window(fw, rec))
            break;
        int rc = pv_file_walk_record(fw, rec, err);
        if (rc < 0)
            return -1;
        if (rc == 1)
            break;
        if (fw->garbage_offset) {
            fw->file->trailing_garbage_offset = fw->garbage_offset;
            return 0;
        }
        /* A record does not continue into the next file. */
        if (u->held > 0 && fw->file->unfinished) {
            pv_file_walk_cut_short(fw, u->segment, u->container_offset, u->held);
            u->held = 0;
        }
        if (u->held > 0)
            return pv_error_set(err, "%s: the compressed data ends in the middle of a record: "
                                "%u bytes left after the container at offset 0x%llx",
                                fw->path, u->held, (unsigned long long)u->container_offset);
        if (!pv_file_walk_next_file(fw))
            return 0;
    }
    rec->index = w->next_index++;
    if ((rec->type == PV_RECORD_COMPRESSED || rec->type == PV_RECORD_COMPRESSED2) &&
        enter_container(w, rec, err))
        return -1;
    return 1;
}
