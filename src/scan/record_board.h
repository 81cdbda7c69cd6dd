/*
 * The records that the scans of a file stand on, for its lookups.
 *
 * A join on the ordinal (perf_samples s JOIN perf_callchains c ON c.sample
 * = s.record) scans one table and looks each of its rows up in the other:
 * the record looked up is the one the scan has just handed out.  A scan
 * posts its current record here, and a lookup of that ordinal copies it
 * instead of reading and walking the file a second time.
 *
 * A post lives while its record's bytes do: its scan replaces it with
 * each record it hands out and withdraws it before its bytes can go (the
 * end of the scan, an error, the scan's next call returning no record).
 * Scans post only while a lookup of the file is open.  The board belongs
 * to the file and, like it, to one connection's thread at a time.
 */
#ifndef PV_RECORD_BOARD_H
#define PV_RECORD_BOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "format/perf_file.h"
#include "format/record.h"

/* Scans a board takes posts from at once; a further one posts nothing. */
#define PV_BOARD_POSTS 4

typedef struct pv_record_post {
    const void *owner;      /* NULL: a free place */
    pv_record rec;          /* ordinals as the walk from the stream's start numbers them */
} pv_record_post;

typedef struct pv_record_board {
    pv_record_post posts[PV_BOARD_POSTS];
    unsigned readers;       /* lookups open on the file */
} pv_record_board;

/* The file's board, made on first use; 0, or -1 with err set. */
int pv_record_board_get(pv_file *f, pv_record_board **out, pv_error *err);

/* A lookup opens and closes. */
void pv_record_board_add_reader(pv_record_board *b);
void pv_record_board_remove_reader(pv_record_board *b);

/* owner's current record is rec, its bytes valid until owner withdraws or
 * posts again.  Nothing is kept while no lookup reads the board. */
void pv_record_board_post(pv_record_board *b, const void *owner, const pv_record *rec);
void pv_record_board_withdraw(pv_record_board *b, const void *owner);

/* A posted record with that ordinal, or NULL. */
const pv_record *pv_record_board_find(const pv_record_board *b, uint64_t ordinal);

#endif
