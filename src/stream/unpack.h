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
} pv_unpack_block;

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
/* The next block; the one handed out before is given back.  Without a
 * thread: the output of the container entered last, as far as it fits. */
int pv_unpacker_next_block(pv_unpacker *u, const pv_unpack_block **out, pv_error *err);
/* Stops the thread (waits for it) and frees everything. */
void pv_unpacker_close(pv_unpacker *u);
/* Whether a thread decompresses (for tests). */
bool pv_unpacker_threaded(const pv_unpacker *u);

#define PV_UNPACK_THREAD_MIN (1u << 20)

#endif
