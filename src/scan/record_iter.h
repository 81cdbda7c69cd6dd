/*
 * The records a table's rows are, one after another: the records of some
 * types that pass a filter, either scanned in an order (time_order.h) or,
 * for a query that asks for one ordinal at a time, looked up
 * (record_lookup.h).
 *
 * A scan posts the record it stands on on the file's board
 * (record_board.h), so that a lookup of the same file (the other side of a
 * join on the ordinal) copies it instead of walking to it.  A lookup is
 * kept from one ordinal to the next: asking for another ordinal of the
 * same file goes on from where it stands.
 */
#ifndef PV_RECORD_ITER_H
#define PV_RECORD_ITER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "format/perf_file.h"
#include "scan/record_board.h"
#include "scan/record_filter.h"
#include "scan/record_lookup.h"
#include "scan/record_scan.h"
#include "scan/time_order.h"

typedef struct pv_record_iter {
    pv_ordered_scan scan;
    /* The caller's filter, with its event resolved for the file. */
    pv_record_filter filter;
    /* Looking up (pv_record_iter_look_up): the lookup, started once and
     * kept, and the ordinal still to be handed out (when ordinal_pending). */
    bool looking_up, lookup_started, ordinal_pending;
    uint64_t ordinal;
    pv_record_lookup lookup;
    /* Where a scan posts the record it stands on; NULL: it does not post
     * (a lookup, or a scan that has ended). */
    pv_record_board *board;
} pv_record_iter;

/* The filter the next scan or lookup of file applies: wanted, and the
 * event called event_name (NULL: any).  0, or -1 with err set. */
int pv_record_iter_filter(pv_record_iter *it, pv_file *file, const pv_record_filter *wanted,
                          const char *event_name, pv_error *err);
/* Starts a scan of file in order: the records of the types wants passes
 * (NULL: all) that pass the filter.  watch_rounds: in file order, watch
 * perf's round rule (pv_ordered_scan_watch_rounds).  0, or -1 with err
 * set; the iterator is ended with pv_record_iter_end either way. */
int pv_record_iter_scan(pv_record_iter *it, pv_file *file, pv_record_type_test wants,
                        pv_record_order order, bool watch_rounds, pv_error *err);
/* Asks for the one record whose ordinal is ordinal (none: no record, for
 * an ordinal no record has), starting the lookup over file the first time
 * and going on with it afterwards.  0, or -1 with err set. */
int pv_record_iter_look_up(pv_record_iter *it, pv_file *file, pv_record_type_test wants,
                           bool none, uint64_t ordinal, pv_error *err);
int pv_record_iter_next_slow(pv_record_iter *it, pv_record *rec, pv_error *err);
/* What follows a scan's pv_ordered_scan_next that gave rc: the end stops
 * the posts; a record is posted while a lookup reads the board. */
int pv_record_iter_scanned(pv_record_iter *it, const pv_record *rec, int rc);
/* 1: *rec is the next record, its bytes valid until the next call; 0: no
 * more; -1: error in err.  Inline: a scan asks it for every row. */
static inline int pv_record_iter_next(pv_record_iter *it, pv_record *rec, pv_error *err)
{
    if (it->looking_up)
        return pv_record_iter_next_slow(it, rec, err);
    int rc = pv_ordered_scan_next(&it->scan, rec, err);
    if (rc != 1)
        return pv_record_iter_scanned(it, rec, rc);
    /* posted without a call between: once per outer row of a join */
    if (it->board && it->board->readers)
        pv_record_board_post(it->board, it, rec);
    return 1;
}
/* pv_record_iter_next's common case, with no call: true when *rec is the
 * next record of a scan no lookup reads (pv_ordered_scan_take_pinned);
 * false when pv_record_iter_next answers. */
static inline bool pv_record_iter_take_pinned(pv_record_iter *it, pv_record *rec)
{
    return !it->looking_up && !(it->board && it->board->readers) &&
           pv_ordered_scan_take_pinned(&it->scan, rec);
}
/* Whether a scan watching the round rule met a record that breaks it. */
bool pv_record_iter_rounds_broken(const pv_record_iter *it);
/* Frees what the iterator holds, its filter included.  Safe on a zeroed or
 * ended iterator. */
void pv_record_iter_end(pv_record_iter *it);

#endif
