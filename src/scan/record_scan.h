/*
 * The records of a file that a query asks for, in file order: the record
 * walk, a test of each record's type, and the record filter.  With a time
 * range and a usable time index, only the chunks of the stream whose time
 * range meets the filter's are read: the walk seeks from chunk to chunk.
 *
 * Whatever the index, the scan yields exactly the records a plain walk
 * with the same type test and filter yields, in the same order.  Only the
 * index, built by a walk over every record, says where records of a time
 * lie: perf's round rule (time_order.h) is not trusted to skip bytes, since
 * a file need not keep it and no byte left unread can be shown to.
 */
#ifndef PV_RECORD_SCAN_H
#define PV_RECORD_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "base/pv_error.h"
#include "scan/record_filter.h"
#include "stream/record_walk.h"
#include "scan/time_index.h"

/* Which record types a scan yields; NULL: all. */
typedef bool (*pv_record_type_test)(uint32_t type);

typedef struct pv_record_scan {
    pv_walk walk;
    const pv_file *file;
    /* The caller's; read, never freed, by the scan.  NULL: no filter. */
    const pv_record_filter *filter;
    pv_record_type_test wants;
    /* With a time range and a usable index: the chunk being read, and the
     * end of the run of adjacent chunks it is in (the walk's reads). */
    const pv_time_index *time_index;
    uint64_t chunk, run_end;
    bool in_chunk;
} pv_record_scan;

/* Starts a scan of file; filter (may be NULL) must outlive the scan.  A
 * filter on time builds the file's time index if it has none yet (a walk
 * over the whole stream, once per file).  Every started scan is ended with
 * pv_record_scan_end, even when this fails. */
int pv_record_scan_start(pv_record_scan *scan, pv_file *file, const pv_record_filter *filter,
                         pv_record_type_test wants, pv_error *err);
/* 1: *rec is the next record, valid until the next call; 0: no more;
 * -1: error in err. */
int pv_record_scan_next(pv_record_scan *scan, pv_record *rec, pv_error *err);
/* The same, handing out as well the records the type test or the filter
 * drops (*passes false), for a reader that must see every record the
 * scan reads (time_order.h: FINISHED_ROUND and the times of all records
 * decide when rows are released).  Chunks the time index skips are not
 * read at all. */
int pv_record_scan_next_any_slow(pv_record_scan *scan, pv_record *rec, bool *passes,
                                 pv_error *err);
/* Inline for a plain scan (no filter, no index, no rounds to watch): a
 * time-ordered scan asks for every record. */
static inline int pv_record_scan_next_any(pv_record_scan *scan, pv_record *rec, bool *passes,
                                          pv_error *err)
{
    if (scan->filter || scan->time_index)
        return pv_record_scan_next_any_slow(scan, rec, passes, err);
    int rc = pv_walk_next(&scan->walk, rec, err);
    if (rc == 1)
        *passes = !scan->wants || scan->wants(rec->type);
    return rc;
}
/* Frees the walk's buffers.  Safe on a zeroed or ended scan. */
void pv_record_scan_end(pv_record_scan *scan);

#endif
