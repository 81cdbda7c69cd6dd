#include "scan/record_scan.h"

#include <string.h>

#include "format/features.h"
#include "format/perf_abi.h"

int pv_record_scan_start(pv_record_scan *scan, pv_file *file, const pv_record_filter *filter,
                         pv_record_type_test wants, pv_error *err)
{
    memset(scan, 0, sizeof *scan);
    pv_walk_start(&scan->walk, file);
    scan->file = file;
    scan->filter = filter && filter->active ? filter : NULL;
    scan->wants = wants;
    if (scan->filter && (filter->has_time_min || filter->has_time_max)) {
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
        if (scan->walk.files.segment == c->segment && scan->walk.files.next_offset < c->end)
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
    if (k < scan->run_end)
        return true;
    /* a run of adjacent chunks that meet the range starts here: the walk
     * reads it, not the chunks after it */
    uint64_t j = k;
    while (j + 1 < ti->nr_chunks && ti->chunks[j + 1].segment == c->segment &&
           ti->chunks[j + 1].offset == ti->chunks[j].end &&
           pv_time_chunk_meets(&ti->chunks[j + 1], min, max))
        j++;
    scan->run_end = j + 1;
    uint64_t run = ti->chunks[j].end - c->offset;
    scan->walk.files.window_limit = run < UINT32_MAX ? (uint32_t)run : UINT32_MAX;
    return true;
}

int pv_record_scan_next_any_slow(pv_record_scan *scan, pv_record *rec, bool *passes,
                                 pv_error *err)
{
    if (scan->time_index && !next_chunk(scan))
        return 0;
    int rc = pv_walk_next(&scan->walk, rec, err);
    if (rc <= 0)
        return rc;
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

void pv_record_scan_end(pv_record_scan *scan)
{
    pv_walk_end(&scan->walk);
    scan->time_index = NULL;
    scan->in_chunk = false;
}
