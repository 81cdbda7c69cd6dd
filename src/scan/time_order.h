/*
 * A record scan (record_scan.h) handed out in time order.
 *
 * perf reads a recording through its ordered-events queue.  A record with
 * a time waits there; each FINISHED_ROUND hands out, sorted by time (equal
 * times in file order), the queued records whose time is at most the
 * highest time queued before the previous FINISHED_ROUND; the end of the
 * file hands out the rest.  A record without a time (user records, records
 * whose event does not sample TIME, time 0 or ~0) is handed out when read,
 * ahead of the queued ones.  PV_ORDER_PERF gives that order, holding about
 * two rounds of records in memory.
 *
 * A stream without FINISHED_ROUND is sorted whole by perf.  Up to
 * PV_ORDER_ROUNDLESS_BYTES of records are held the same way; past that (and
 * from the start for a --threads directory, whose data.N files each run
 * through the whole recording), the file's time index (time_index.h) says
 * how early the records not yet read can be, and what is no later is
 * handed out: the same order, memory bounded by how far records stray
 * back in time.
 *
 * PV_ORDER_TIME is what SQL's ORDER BY time asks for: strictly sorted, the
 * time compared as the signed INTEGER SQL sees, records without a time
 * first.  It is released by the time index only, so that a record that
 * comes back behind a round (perf warns "Timestamp below last timeslice
 * flush" and hands it out late) is still in place.  A record without a
 * time (a NULL) is handed out when read: no timed one goes out while the
 * index says a record without one lies ahead.  (Rows are kernel records:
 * the index does not look for user records, which have no time.)
 *
 * PV_ORDER_FILE is the scan as it is: file order (ORDER BY record).  It may
 * watch perf's round rule as the records go by: whether a timed record came
 * below what perf's queue had flushed by then (perf warns "Timestamp below
 * last timeslice flush"), the one case where a reader replaying records in
 * perf's order (the symbolizer's maps) can tell file order from perf's.
 */
#ifndef PV_TIME_ORDER_H
#define PV_TIME_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "format/perf_file.h"
#include "scan/record_filter.h"
#include "scan/record_scan.h"
#include "scan/time_index.h"

typedef enum pv_record_order {
    PV_ORDER_PERF,
    PV_ORDER_TIME,
    PV_ORDER_FILE,
} pv_record_order;

/* Record bytes a stream without rounds may hold before the time index
 * takes over. */
#define PV_ORDER_ROUNDLESS_BYTES (32u << 20)

/* Record bytes are copied into blocks, each given back when the last of
 * its records has been handed out: copied once, whatever order they leave
 * in.  Each record's pv_record (bytes NULL) is stored just before its
 * bytes, so that handing it out reads one place. */
typedef struct pv_order_block {
    uint8_t *bytes;
    uint32_t used;
    uint64_t live;          /* its records not handed out yet */
} pv_order_block;

/* A queued record's place in the sorted order (16 bytes, what the sort
 * moves).  A record pinned in the walk's buffer is told by its place there
 * alone (ref: the buffer << 16 | the place's ordinal_step, at: the
 * place's); a copied one by its block (ref: PV_QUEUE_COPIED | the block,
 * at: where its pv_record and bytes are in it). */
typedef struct pv_queue_slot {
    uint64_t key;           /* the time, as the order compares it */
    uint32_t at, ref;
} pv_queue_slot;
#define PV_QUEUE_COPIED 0x80000000u
_Static_assert(PV_WALK_UNPACKED_BUFFER << 16 < PV_QUEUE_COPIED, "a block's ref is not a copy's");

typedef struct pv_ordered_scan {
    pv_record_scan scan;
    pv_file *file;
    pv_record_order order;
    /* The slots of the queued records: [next_out, released) are handed
     * out next (of sort_buffer when released_aside), the rest wait. */
    pv_queue_slot *slots, *sort_buffer;
    uint64_t nr_queued, capacity;
    /* Where each run of the queue in order begins (a record came in
     * below the one before it): the sort merges them, and a queue of one
     * run is not sorted. */
    uint64_t *run_starts;
    uint64_t nr_runs;
    size_t runs_capacity;
    uint64_t released, next_out;
    bool released_aside;    /* the released are in sort_buffer */
    /* blocks[filling] takes the next record's bytes; free_blocks lists
     * the empty ones. */
    pv_order_block *blocks;
    uint32_t *free_blocks;
    uint64_t nr_blocks, nr_free;
    size_t blocks_capacity;
    uint32_t filling;
    uint64_t held_bytes;    /* bytes of the records queued */
    /* PV_ORDER_ROUNDLESS_BYTES (a test may lower it after the start) */
    uint64_t roundless_limit;
    /* A SAMPLE's time: the byte it starts at when every event has it in
     * the same place (0: look up the record's event). */
    uint64_t sample_time_at;
    /* PV_ORDER_PERF by rounds: perf's queue also holds the records that
     * are not rows (other types, filtered out); their times, to tell when
     * it is empty.  max_time and next_flush as perf keeps them. */
    uint64_t *shadow;
    uint64_t nr_shadow;
    size_t shadow_capacity;
    uint64_t max_time, next_flush;
    bool seen_round;
    /* Released by the time index: limits[c] is the lowest key a timed
     * record of chunk c or later can have; for PV_ORDER_TIME, chunks up to
     * untimed_end - 1 may hold a record without a time, and hold back every
     * timed one, and released_timed says whether one went out. */
    bool by_index;
    const pv_time_index *index;
    uint64_t *limits;
    uint64_t chunk, untimed_end;
    bool released_timed;
    /* PV_ORDER_FILE watching the round rule: the highest time so far, the
     * limit the last FINISHED_ROUND set, and the one it flushed up to (an
     * upper bound on perf's: it never lowers its highest time) */
    bool watch_rounds, rounds_broken;
    uint64_t file_max_time, file_next_flush, file_flushed;
    bool ended;
    /* By rounds, runs of samples are queued straight from the walk's
     * window (time_order.c, enqueue_span), nr_spanned of them so far; a
     * test turns it off after the start for the twin, record by record. */
    bool span_samples;
    uint64_t nr_spanned;
} pv_ordered_scan;

/* Starts the scan (as pv_record_scan_start) in the given order.  Every
 * started scan is ended with pv_ordered_scan_end, even when this fails. */
int pv_ordered_scan_start(pv_ordered_scan *o, pv_file *file, const pv_record_filter *filter,
                          pv_record_type_test wants, pv_record_order order, pv_error *err);
int pv_ordered_scan_next_slow(pv_ordered_scan *o, pv_record *rec, pv_error *err);
/* The next released record when it is pinned in the walk's buffer (slot):
 * its pv_record as the walk handed it out; the buffer is let go. */
static inline void pv_ordered_scan_hand_out_pinned(pv_ordered_scan *o, const pv_queue_slot *slot,
                                                   pv_record *rec)
{
    pv_walk_place place = { slot->at, (uint16_t)(slot->ref >> 16), (uint16_t)slot->ref };
    pv_walk_pinned_record(&o->scan.walk, place, rec);
    pv_walk_unpin(&o->scan.walk, place.buffer);
    o->held_bytes -= rec->size;
}
/* The next released record's slot; NULL when none is released. */
static inline const pv_queue_slot *pv_ordered_scan_released_slot(const pv_ordered_scan *o)
{
    if (o->next_out >= o->released)
        return NULL;
    return &(o->released_aside ? o->sort_buffer : o->slots)[o->next_out];
}
/* pv_ordered_scan_next's common case alone: true when *rec is the next
 * record, released and pinned in the window buffer of the file walk;
 * false when pv_ordered_scan_next_slow answers (a record copied, or pinned
 * in a block of decompressed bytes).  A caller's fast path of a row is
 * this and no call. */
static inline bool pv_ordered_scan_take_pinned(pv_ordered_scan *o, pv_record *rec)
{
    const pv_queue_slot *slot = pv_ordered_scan_released_slot(o);
    /* neither copied (the top bit) nor in a block */
    if (!slot || slot->ref >= PV_WALK_UNPACKED_BUFFER << 16)
        return false;
    o->next_out++;
    pv_walk_place place = { slot->at, (uint16_t)(slot->ref >> 16), (uint16_t)slot->ref };
    pv_file_walk_pinned_record(&o->scan.walk.files, place, rec);
    pv_file_walk_unpin(&o->scan.walk.files, place.buffer);
    o->held_bytes -= rec->size;
    return true;
}
/* 1: *rec is the next record, its bytes valid until the next call; 0: no
 * more; -1: error in err.  Inline: a scan in time order hands out nearly
 * every row from the released records pinned in the walk's buffers. */
static inline int pv_ordered_scan_next(pv_ordered_scan *o, pv_record *rec, pv_error *err)
{
    const pv_queue_slot *slot = pv_ordered_scan_released_slot(o);
    if (slot && !(slot->ref & PV_QUEUE_COPIED)) {
        o->next_out++;
        pv_ordered_scan_hand_out_pinned(o, slot, rec);
        return 1;
    }
    return pv_ordered_scan_next_slow(o, rec, err);
}
/* Frees what the scan holds.  Safe on a zeroed or ended scan. */
void pv_ordered_scan_end(pv_ordered_scan *o);
/* In file order, from the start: watch the round rule (a time that does
 * not read is left out: the scan goes on as without watching). */
void pv_ordered_scan_watch_rounds(pv_ordered_scan *o);
/* Whether a watched scan met a record timed below what perf had flushed by
 * then (or may have: the watch errs on the side of a breach).  False on a
 * zeroed scan. */
bool pv_ordered_scan_rounds_broken(const pv_ordered_scan *o);

#endif
