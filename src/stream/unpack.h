/*
 * Decompressing COMPRESSED containers: a source of decompressed bytes in
 * blocks, for the record walk (record_walk.h) to cut into records.
 *
 * perf record -z writes one zstd stream per file of the recording, never
 * terminated, cut into COMPRESSED (81) or COMPRESSED2 (83) records; a
 * record of the stream may span two containers.  Decompression costs about
 * as much as the rest of a scan, so when there is enough compressed data
 * a second thread runs ahead of the walk: it reads the containers itself
 * (its own file walk, file_walk.h, of the same files) and fills a few
 * blocks while the walk cuts records out of the one before.  With little
 * data the walk decompresses each container itself when it enters it.
 * Either way the walk sees the same blocks.
 *
 * A block is a run of pieces, each the output of one container (or of the
 * part of it that fitted), tagged with that container's place in the files
 * so that the walk can check that the thread read the containers it did.
 */
#ifndef PV_UNPACK_H
#define PV_UNPACK_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "format/record.h"

#define PV_UNPACK_MAX_PIECES 64
/* Decompressed bytes per block: big enough that handing a block over costs
 * nothing next to filling it, small enough that the blocks stay in cache
 * between the thread that writes them and the walk that reads them. */
#define PV_UNPACK_BLOCK_CAPACITY (256u << 10)
/* A place in a block (record_walk.h) tells the piece by the bits above
 * its offset. */
#define PV_UNPACK_PIECE_SHIFT 18
_Static_assert(PV_UNPACK_BLOCK_CAPACITY <= 1u << PV_UNPACK_PIECE_SHIFT &&
               PV_UNPACK_MAX_PIECES <= 1u << (32 - PV_UNPACK_PIECE_SHIFT),
               "a block's piece and offset fit a place");

typedef struct pv_unpack_piece {
    uint32_t segment;           /* the container's file, as pv_record.segment */
    uint64_t container_offset;  /* the container's offset in that file */
    uint32_t end;               /* the piece is bytes [end of the previous piece, end) */
    bool last;                  /* the container's output ends with this piece */
} pv_unpack_piece;

typedef enum pv_unpack_status {
    PV_UNPACK_MORE,   /* more blocks follow */
    PV_UNPACK_END,    /* the thread found no container after these pieces */
    PV_UNPACK_ERROR,  /* error holds what went wrong after these pieces */
} pv_unpack_status;

typedef struct pv_unpack_block {
    uint8_t *bytes;
    uint32_t len;
    uint32_t nr_pieces;
    pv_unpack_piece pieces[PV_UNPACK_MAX_PIECES];
    pv_unpack_status status;
    pv_error error;
    /* The walk's alone, from next_block to give_back: records of the
     * block a reader holds past the next (record_walk.h, pinning), the
     * ordinal of the first pinned since it had none, whether the walk has
     * moved on to a later block. */
    uint32_t pins;
    uint64_t first_pinned_index;
    bool left;
} pv_unpack_block;

/* Blocks the walk may hold pinned at once, the one it reads included:
 * past that, a reader copies.  With the blocks being filled ahead, the
 * pool is big enough that decompression never waits for a pinned one. */
#define PV_UNPACK_MAX_PINNED 16u
#define PV_UNPACK_POOL (PV_UNPACK_MAX_PINNED + 10u)

typedef struct pv_unpacker pv_unpacker;

/* Starts decompressing at container, the first COMPRESSED record a walk of
 * f met.  remaining: bytes from there to the end of the recording, which
 * decide whether a thread is worth it (at least PV_UNPACK_THREAD_MIN, or
 * what the environment variable PERFVTAB_UNPACK_THREAD_MIN says: 0 always,
 * a huge number never).  path: the walk's, for messages. */
int pv_unpacker_open(pv_unpacker **out, pv_file *f, const pv_record *container,
                     uint64_t remaining, const char *path, pv_error *err);
/* The walk enters container (the first one included): checks its framing
 * and, without a thread, takes its bytes, which must stay in place until
 * the container's last piece has been handed out. */
int pv_unpacker_enter(pv_unpacker *u, const pv_record *container, const char *path,
                      pv_error *err);
/* The next block.  The one read before goes back to the pool, unless
 * records of it are pinned (its pins): then when the last is unpinned
 * (pv_unpacker_unpinned).  The walk keeps at most PV_UNPACK_MAX_PINNED
 * blocks pinned at once.  Without a thread: the output of the container
 * entered last, as far as it fits. */
int pv_unpacker_next_block(pv_unpacker *u, pv_unpack_block **out, pv_error *err);
/* The last pinned record of b, a block the walk has left, was handed out:
 * b goes back to the pool once the caller is done with that record. */
void pv_unpacker_unpinned(pv_unpacker *u, pv_unpack_block *b);
/* The pool of blocks, PV_UNPACK_POOL of them, fixed for the unpacker's
 * life: a pinned record is told by its block's place in it. */
pv_unpack_block *pv_unpacker_blocks(pv_unpacker *u);
/* Stops the thread (waits for it) and frees everything. */
void pv_unpacker_close(pv_unpacker *u);
/* Whether a thread decompresses (for tests). */
bool pv_unpacker_threaded(const pv_unpacker *u);

#define PV_UNPACK_THREAD_MIN (1u << 20)

#endif
