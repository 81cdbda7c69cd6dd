#include "scan/record_scan.h"

#include <string.h>

#include "decode/sample.h"
#include "format/features.h"
#include "format/perf_abi.h"
#include "scan/time_seek.h"

/* A time range on a file with proven rounds (time_seek.h), no index built:
 * start at the round the seek found and stop by the round rule.  1 when
 * that is the plan, 0 when the file is to be read as before. */
static int start_by_rounds(pv_record_scan *scan, pv_file *file, pv_error *err)
{
    const pv_record_filter *filter = scan->filter;
    if (!filter->may_start_late || !filter->has_time_min || filter->time_min <= 0 ||
        !filter->has_time_max || pv_time_index_kept(file) || !pv_time_seek_possible(file))
        return 0;
    uint64_t start;
    int rc = pv_time_seek_start(file, (uint64_t)filter->time_min, &start, err);
    if (rc <= 0)
        return rc;
    scan->start_offset = start;
    if (start != file->data_section.offset) {
        pv_walk_seek(&scan->walk, 0, start, 0);
        scan->late_start = true;
    }
    /* time_min > 0: a time past time_max, as perf's u64, is past the range
     * as SQL compares it too (or negative there, below time_min) */
    scan->stops_by_rounds = true;
    scan->stop_after = (uint64_t)filter->time_max;
    scan->rounds_left = -1;
    scan->stopped = filter->time_max < filter->time_min;
    return 1;
}

int pv_record_scan_start(pv_record_scan *scan, pv_file *file, const pv_record_filter *filter,
                         pv_record_type_test wants, pv_error *err)
{
    memset(scan, 0, sizeof *scan);
    pv_walk_start(&scan->walk, file);
    scan->file = file;
    scan->filter = filter && filter->active ? filter : NULL;
    scan->wants = wants;
    if (scan->filter && (filter->has_time_min || filter->has_time_max)) {
        int rc = start_by_rounds(scan, file, err);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        /* One zstd stream runs through a compressed file's containers: no
         * index can seek in it, and building one would read its start
         * twice.  It is read whole, as a plain scan. */
        if (!file->pipe && file->nr_segments == 0 &&
            pv_file_has_feature(file, PV_FEATURE_COMPRESSED) && !pv_time_index_kept(file))
            return 0;
        const pv_time_index *ti;
        if (pv_time_index_get(file, &ti, err))
            return -1;
        /* Compressed streams have no usable index: they are read whole. */
        scan->time_index = ti->usable ? ti : NULL;
    }
    return 0;
}

/* With a time index: at the end of the current chunk, moves the walk to
 * the next chunk whose time range meets the filter's.  False when none is
 * left. */
static bool next_chunk(pv_record_scan *scan)
{
    const pv_time_index *ti = scan->time_index;
    const pv_record_filter *filter = scan->filter;
    if (scan->in_chunk) {
        const pv_time_chunk *c = &ti->chunks[scan->chunk];
        if (scan->walk.segment == c->segment && scan->walk.next_offset < c->end)
            return true;
        scan->chunk++;
    }
    int64_t min = filter->has_time_min ? filter->time_min : INT64_MIN;
    int64_t max = filter->has_time_max ? filter->time_max : INT64_MAX;
    uint64_t k = scan->chunk;
    while (k < ti->nr_chunks && !pv_time_chunk_meets(&ti->chunks[k], min, max))
        k++;
    scan->chunk = k;
    scan->in_chunk = k < ti->nr_chunks;
    if (!scan->in_chunk)
        return false;
    const pv_time_chunk *c = &ti->chunks[k];
    pv_walk_seek(&scan->walk, c->segment, c->offset, c->first_index);
    return true;
}

/* The round rule: once a record is timed past the range, what follows the
 * FINISHED_ROUND after next is later still.  The FINISHED_ROUND that ends
 * the scan is handed out (time_order.h releases at it). */
static void watch_rounds(pv_record_scan *scan, const pv_record *rec)
{
    if (rec->type == PV_RECORD_FINISHED_ROUND) {
        if (scan->rounds_left > 0 && --scan->rounds_left == 0)
            scan->stopped = true;
        return;
    }
    if (scan->rounds_left >= 0 || rec->type >= PV_RECORD_KERNEL_TYPE_END)
        return;
    bool timed;
    uint64_t time;
    pv_error ignored;
    if (pv_record_time(scan->file, rec, &timed, &time, &ignored) || !timed)
        return;
    /* 0 and ~0 are perf's "no time": such records are handed out at once */
    if (time != 0 && time != UINT64_MAX && time > scan->stop_after)
        scan->rounds_left = 2;
}

int pv_record_scan_next_any_slow(pv_record_scan *scan, pv_record *rec, bool *passes,
                                 pv_error *err)
{
    if (scan->stopped)
        return 0;
    if (scan->time_index && !next_chunk(scan))
        return 0;
    int rc = pv_walk_next(&scan->walk, rec, err);
    if (rc <= 0)
        return rc;
    if (scan->stops_by_rounds)
        watch_rounds(scan, rec);
    *passes = false;
    if (scan->wants && !scan->wants(rec->type))
        return 1;
    if (scan->filter) {
        rc = pv_record_filter_test(scan->filter, scan->file, rec, err);
        if (rc < 0)
            return -1;
        *passes = rc == 1;
        return 1;
    }
    *passes = true;
    return 1;
}

int pv_record_scan_next(pv_record_scan *scan, pv_record *rec, pv_error *err)
{
    for (;;) {
        bool passes;
        int rc = pv_record_scan_next_any(scan, rec, &passes, err);
        if (rc <= 0 || passes)
            return rc;
    }
}

int pv_record_scan_ordinal_base(pv_record_scan *scan, uint64_t *base, pv_error *err)
{
    if (!scan->late_start || scan->base_known) {
        *base = scan->ordinal_base;
        return 0;
    }
    /* Counted with a walk of its own: the scan's stays where it is. */
    pv_walk w;
    pv_walk_start(&w, scan->walk.file);
    pv_record rec;
    int rc;
    while ((rc = pv_walk_next(&w, &rec, err)) == 1 && rec.file_offset < scan->start_offset)
        ;
    uint64_t at = rc == 1 ? rec.file_offset : w.next_offset;
    uint64_t count = rc == 1 ? rec.index : w.next_index;
    pv_walk_end(&w);
    if (rc < 0)
        return -1;
    if (at != scan->start_offset)
        return pv_error_set(err, "%s: the scan started at offset 0x%llx for a time range, "
                            "which is not a record boundary", scan->walk.path,
                            (unsigned long long)scan->start_offset);
    scan->ordinal_base = count;
    scan->base_known = true;
    *base = count;
    return 0;
}

void pv_record_scan_end(pv_record_scan *scan)
{
    pv_walk_end(&scan->walk);
    scan->time_index = NULL;
    scan->in_chunk = false;
}
