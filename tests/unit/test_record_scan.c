/*
 * The chunk-seeking record scan (src/scan/record_scan.h) against a plain walk:
 * for the committed fixtures, with and without a time range, a type test
 * and identity filters, the scan must yield exactly the records (by
 * ordinal, in order) that a full walk testing every record with the same
 * type test and filter yields.  The ranges are drawn from the file's own
 * time index: the whole file, its middle, each end, one chunk, a range
 * across a chunk boundary, and ranges wholly before and after the file.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/event_names.h"
#include "stream/file_open.h"
#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "scan/record_filter.h"
#include "scan/record_scan.h"
#include "stream/record_walk.h"
#include "decode/sample.h"
#include "scan/time_index.h"
#include "unit_check.h"

typedef struct index_list {
    uint64_t *items;
    size_t nr, capacity;
    bool failed;        /* an error, or out of memory */
    char error[800];
} index_list;

static void list_add(index_list *l, uint64_t index)
{
    if (l->nr == l->capacity) {
        size_t grown = l->capacity ? l->capacity * 2 : 1024;
        uint64_t *items = realloc(l->items, grown * sizeof *items);
        if (!items) {
            l->failed = true;
            snprintf(l->error, sizeof l->error, "out of memory");
            return;
        }
        l->items = items;
        l->capacity = grown;
    }
    l->items[l->nr++] = index;
}

/* What the scan must give: every record, each tested, no seeking. */
static index_list walk_all(pv_file *f, const pv_record_filter *filter, pv_record_type_test wants)
{
    index_list l = {0};
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    pv_error err;
    int rc;
    while ((rc = pv_walk_next(&w, &rec, &err)) == 1) {
        if (wants && !wants(rec.type))
            continue;
        int pass = filter ? pv_record_filter_test(filter, f, &rec, &err) : 1;
        if (pass < 0) {
            rc = -1;
            break;
        }
        if (pass)
            list_add(&l, rec.index);
    }
    if (rc < 0) {
        l.failed = true;
        snprintf(l.error, sizeof l.error, "walk: %s", err.msg);
    }
    pv_walk_end(&w);
    return l;
}

static index_list scan_all(pv_file *f, const pv_record_filter *filter, pv_record_type_test wants,
                           bool *seeks)
{
    index_list l = {0};
    pv_record_scan scan;
    pv_error err;
    int rc = pv_record_scan_start(&scan, f, filter, wants, &err);
    *seeks = scan.time_index != NULL;
    pv_record rec;
    if (rc == 0)
        while ((rc = pv_record_scan_next(&scan, &rec, &err)) == 1)
            list_add(&l, rec.index);
    if (rc < 0) {
        l.failed = true;
        snprintf(l.error, sizeof l.error, "scan: %s", err.msg);
    }
    pv_record_scan_end(&scan);
    return l;
}

static void same_records(pv_file *f, const char *path, const char *what,
                         const pv_record_filter *filter, pv_record_type_test wants)
{
    index_list expected = walk_all(f, filter, wants);
    bool seeks;
    index_list got = scan_all(f, filter, wants, &seeks);
    char name[512];
    snprintf(name, sizeof name, "%s: %s: the scan%s gives the walk's records", path, what,
             seeks ? " (seeking by chunk)" : "");
    if (expected.failed || got.failed) {
        check(false, name, "%s", expected.failed ? expected.error : got.error);
    } else if (got.nr != expected.nr) {
        check(false, name, "%zu records, the walk %zu", got.nr, expected.nr);
    } else {
        size_t i = 0;
        while (i < got.nr && got.items[i] == expected.items[i])
            i++;
        check(i == got.nr, name, "record %zu is #%" PRIu64 ", the walk's #%" PRIu64, i,
              i < got.nr ? got.items[i] : 0, i < got.nr ? expected.items[i] : 0);
    }
    free(expected.items);
    free(got.items);
}

static bool samples_only(uint32_t type)
{
    return type == PV_RECORD_SAMPLE;
}

static bool not_samples(uint32_t type)
{
    return type != PV_RECORD_SAMPLE;
}

static pv_record_filter time_range(bool has_min, int64_t min, bool has_max, int64_t max)
{
    pv_record_filter filter = {0};
    filter.has_time_min = has_min;
    filter.time_min = min;
    filter.has_time_max = has_max;
    filter.time_max = max;
    filter.active = has_min || has_max;
    return filter;
}

/* The ranges, each with every type test. */
static void range_cases(pv_file *f, const char *path, const char *what, pv_record_filter filter)
{
    char label[256];
    snprintf(label, sizeof label, "%s, all records", what);
    same_records(f, path, label, &filter, NULL);
    snprintf(label, sizeof label, "%s, samples", what);
    same_records(f, path, label, &filter, samples_only);
    snprintf(label, sizeof label, "%s, other records", what);
    same_records(f, path, label, &filter, not_samples);
}

static void check_file(const char *path)
{
    pv_file *f;
    pv_error err;
    if (pv_file_open(path, &f, &err)) {
        check(false, path, "cannot open: %s", err.msg);
        return;
    }
    same_records(f, path, "no filter", NULL, NULL);
    same_records(f, path, "no filter, samples", NULL, samples_only);

    const pv_time_index *ti;
    if (pv_time_index_get(f, &ti, &err)) {
        check(false, path, "time index: %s", err.msg);
        pv_file_close(f);
        return;
    }
    bool any = false;
    int64_t first = 0, last = 0;
    for (uint64_t k = 0; k < ti->nr_chunks; k++) {
        const pv_time_chunk *c = &ti->chunks[k];
        if (!c->has_time)
            continue;
        if (!any || c->min_time < first) first = c->min_time;
        if (!any || c->max_time > last) last = c->max_time;
        any = true;
    }
    if (!ti->usable) {
        /* Compressed: no chunks, but a range must still filter the same. */
        range_cases(f, path, "compressed, time 0 to max", time_range(true, 0, true, INT64_MAX));
        pv_file_close(f);
        return;
    }
    check(any, path, "the time index has no times (%" PRIu64 " chunks)", ti->nr_chunks);
    if (!any) {
        pv_file_close(f);
        return;
    }
    int64_t third = (int64_t)(((uint64_t)last - (uint64_t)first) / 3);
    int64_t middle = first + (int64_t)(((uint64_t)last - (uint64_t)first) / 2);
    range_cases(f, path, "whole file", time_range(true, first, true, last));
    range_cases(f, path, "middle third", time_range(true, first + third, true, last - third));
    range_cases(f, path, "from the middle on", time_range(true, middle, false, 0));
    range_cases(f, path, "up to the middle", time_range(false, 0, true, middle));
    range_cases(f, path, "first instant", time_range(true, first, true, first));
    range_cases(f, path, "last instant", time_range(true, last, true, last));
    range_cases(f, path, "start to first instant", time_range(false, 0, true, first));
    range_cases(f, path, "last instant on", time_range(true, last, false, 0));
    if (first > INT64_MIN)
        range_cases(f, path, "before the file", time_range(false, 0, true, first - 1));
    if (last < INT64_MAX)
        range_cases(f, path, "after the file", time_range(true, last + 1, false, 0));
    range_cases(f, path, "empty range", time_range(true, middle, true, middle - 1));
    /* Chunk by chunk: each chunk's own range, and one across its end. */
    for (uint64_t k = 0; k < ti->nr_chunks; k++) {
        const pv_time_chunk *c = &ti->chunks[k];
        if (!c->has_time)
            continue;
        char label[96];
        snprintf(label, sizeof label, "chunk %" PRIu64 " of %" PRIu64 "'s range", k,
                 ti->nr_chunks);
        range_cases(f, path, label, time_range(true, c->min_time, true, c->max_time));
        if (k + 1 < ti->nr_chunks && ti->chunks[k + 1].has_time) {
            snprintf(label, sizeof label, "across the end of chunk %" PRIu64, k);
            int64_t from = c->max_time - (c->max_time - c->min_time) / 4;
            int64_t to = ti->chunks[k + 1].min_time + 1;
            range_cases(f, path, label, time_range(true, from, true, to > from ? to : from));
        }
    }

    /* Time with the identity and event filters. */
    pv_record rec;
    pv_walk w;
    pv_walk_start(&w, f);
    pv_sample_id id = {0};
    bool found = false;
    while (!found && pv_walk_next(&w, &rec, &err) == 1)
        if (rec.type == PV_RECORD_SAMPLE && pv_record_identity_decode(f, &rec, &id, &err) == 0 &&
            (id.fields & PV_SAMPLE_TID))
            found = true;
    pv_walk_end(&w);
    if (found) {
        pv_record_filter filter = time_range(true, first + third, false, 0);
        filter.has_pid = true;
        filter.pid = (int32_t)id.pid;
        range_cases(f, path, "a pid from the middle third on", filter);
        filter.has_tid = true;
        filter.tid = (int32_t)id.tid;
        filter.has_cpu = id.fields & PV_SAMPLE_CPU;
        filter.cpu = id.cpu;
        range_cases(f, path, "a tid and cpu from the middle third on", filter);
    }
    const char *event = f->nr_attrs ? pv_file_event_name(f, f->nr_attrs - 1) : NULL;
    if (event) {
        pv_record_filter filter = time_range(false, 0, true, middle);
        if (pv_record_filter_set_event(&filter, f, event, &err) == 0)
            range_cases(f, path, "the last event up to the middle", filter);
        else
            check(false, path, "event filter: %s", err.msg);
        pv_record_filter_free(&filter);
    }
    pv_file_close(f);
}

int main(void)
{
    const char *files[] = {
        "tests/fixtures/dwarf.data",
        "tests/fixtures/switch_cpu_wide.data",
        "tests/fixtures/example.data",
        "tests/fixtures/multi.data",
        "tests/fixtures/big_endian/multi.data",
        "tests/fixtures/tracepoint_pipe.data",
        "tests/fixtures/tracepoint_zfile.data",
        "tests/fixtures/threads_dir",
        "tests/corpus/perf_data_converter/src/testdata/single-event-multi-process.perf.data",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        check_file(files[i]);
    return failures ? 1 : 0;
}
