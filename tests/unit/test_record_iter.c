/*
 * The record iterator (src/scan/record_iter.h), the rows of every record
 * table, against a plain walk of the same file: a scan in file order hands
 * out every record with the walk's ordinal and bytes; a scan of samples
 * only hands out the walk's samples; a scan of samples in time order hands
 * out the same ones, each once; and looking records up one ordinal after
 * another (rising, then falling, then past the last) gives each the walk's
 * bytes, and nothing for an ordinal no record has.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "scan/record_iter.h"
#include "stream/file_open.h"
#include "stream/record_walk.h"
#include "unit_check.h"

/* A record as the walk or the iterator handed it out. */
typedef struct seen_record {
    uint64_t index;
    uint32_t type;
    uint16_t size;
    uint8_t *bytes;
} seen_record;

typedef struct seen_list {
    seen_record *items;
    uint64_t nr, capacity;
} seen_list;

static void remember(seen_list *l, const pv_record *rec)
{
    if (l->nr == l->capacity) {
        l->capacity = l->capacity ? l->capacity * 2 : 1024;
        l->items = realloc(l->items, l->capacity * sizeof *l->items);
        if (!l->items)
            abort();
    }
    seen_record *s = &l->items[l->nr++];
    s->index = rec->index;
    s->type = rec->type;
    s->size = rec->size;
    s->bytes = malloc(rec->size ? rec->size : 1);
    if (!s->bytes)
        abort();
    memcpy(s->bytes, rec->bytes, rec->size);
}

static void forget(seen_list *l)
{
    for (uint64_t i = 0; i < l->nr; i++)
        free(l->items[i].bytes);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static bool same_record(const seen_record *a, const seen_record *b)
{
    return a->index == b->index && a->type == b->type && a->size == b->size &&
           memcmp(a->bytes, b->bytes, a->size) == 0;
}

static bool samples_only(uint32_t type)
{
    return type == PV_RECORD_SAMPLE;
}

static int walk_all(pv_file *f, seen_list *out, pv_error *err)
{
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    int rc;
    while ((rc = pv_walk_next(&w, &rec, err)) == 1)
        remember(out, &rec);
    pv_walk_end(&w);
    return rc;
}

/* Every record a scan of the iterator hands out, in its order. */
static int scan_all(pv_file *f, pv_record_type_test wants, pv_record_order order, seen_list *out,
                    pv_error *err)
{
    pv_record_iter it;
    memset(&it, 0, sizeof it);
    pv_record_filter none;
    memset(&none, 0, sizeof none);
    int rc = pv_record_iter_filter(&it, f, &none, NULL, err);
    if (rc == 0)
        rc = pv_record_iter_scan(&it, f, wants, order, false, err);
    pv_record rec;
    while (rc == 0 && (rc = pv_record_iter_next(&it, &rec, err)) == 1) {
        remember(out, &rec);
        rc = 0;
    }
    pv_record_iter_end(&it);
    return rc < 0 ? -1 : 0;
}

static int compare_index(const void *a, const void *b)
{
    uint64_t x = ((const seen_record *)a)->index, y = ((const seen_record *)b)->index;
    return x < y ? -1 : x > y;
}

/* Looks up each ordinal of asked in turn with one iterator: the walk's
 * record where the walk has one, nothing past its last. */
static bool lookups_match(pv_file *f, const seen_list *walked, const uint64_t *asked, uint64_t n,
                          char *why, size_t why_size)
{
    pv_record_iter it;
    memset(&it, 0, sizeof it);
    pv_record_filter none;
    memset(&none, 0, sizeof none);
    pv_error err;
    bool ok = pv_record_iter_filter(&it, f, &none, NULL, &err) == 0;
    if (!ok)
        snprintf(why, why_size, "filter: %s", err.msg);
    for (uint64_t k = 0; ok && k < n; k++) {
        uint64_t ordinal = asked[k];
        pv_record rec;
        int rc = pv_record_iter_look_up(&it, f, NULL, false, ordinal, &err);
        if (rc == 0)
            rc = pv_record_iter_next(&it, &rec, &err);
        if (rc < 0) {
            snprintf(why, why_size, "ordinal %" PRIu64 ": %s", ordinal, err.msg);
            ok = false;
        } else if (ordinal >= walked->nr) {
            if (rc != 0) {
                snprintf(why, why_size, "ordinal %" PRIu64 " past the last: a record", ordinal);
                ok = false;
            }
        } else if (rc != 1) {
            snprintf(why, why_size, "ordinal %" PRIu64 ": no record", ordinal);
            ok = false;
        } else {
            seen_list one = {0};
            remember(&one, &rec);
            ok = same_record(&one.items[0], &walked->items[ordinal]);
            if (!ok)
                snprintf(why, why_size, "ordinal %" PRIu64 ": got record %" PRIu64 " type %" PRIu32,
                         ordinal, one.items[0].index, one.items[0].type);
            forget(&one);
            /* one ordinal asked, one record handed out */
            if (ok && pv_record_iter_next(&it, &rec, &err) != 0) {
                snprintf(why, why_size, "ordinal %" PRIu64 ": a second record", ordinal);
                ok = false;
            }
        }
    }
    pv_record_iter_end(&it);
    return ok;
}

static void check_file(const char *path)
{
    pv_file *f;
    pv_error err;
    char what[256], why[1024];
    if (pv_file_open(path, &f, &err)) {
        check(false, path, "cannot open: %s", err.msg);
        return;
    }
    seen_list walked = {0}, in_file = {0}, samples = {0}, in_time = {0};
    if (walk_all(f, &walked, &err) < 0 || walked.nr == 0) {
        check(false, path, "walk: %s", walked.nr ? err.msg : "no records");
        goto done;
    }

    snprintf(what, sizeof what, "%s: a scan in file order is the walk (%" PRIu64 " records)", path,
             walked.nr);
    bool same = scan_all(f, NULL, PV_ORDER_FILE, &in_file, &err) == 0 && in_file.nr == walked.nr;
    for (uint64_t i = 0; same && i < walked.nr; i++)
        same = same_record(&in_file.items[i], &walked.items[i]) && walked.items[i].index == i;
    check(same, what, "%" PRIu64 " records, or one differs", in_file.nr);

    uint64_t walked_samples = 0;
    for (uint64_t i = 0; i < walked.nr; i++)
        walked_samples += walked.items[i].type == PV_RECORD_SAMPLE;
    snprintf(what, sizeof what, "%s: a scan of samples only is the walk's %" PRIu64 " samples", path,
             walked_samples);
    same = scan_all(f, samples_only, PV_ORDER_FILE, &samples, &err) == 0 &&
           samples.nr == walked_samples;
    for (uint64_t i = 0; same && i < samples.nr; i++)
        same = samples.items[i].type == PV_RECORD_SAMPLE &&
               same_record(&samples.items[i], &walked.items[samples.items[i].index]);
    check(same, what, "%" PRIu64 " records, or one differs", samples.nr);

    /* samples, as the tables ask: no table orders every type by time
     * (perf_records leaves ORDER BY time to SQLite) */
    snprintf(what, sizeof what, "%s: a scan of samples in time order hands out each once", path);
    same = scan_all(f, samples_only, PV_ORDER_TIME, &in_time, &err) == 0 &&
           in_time.nr == samples.nr;
    if (same)
        qsort(in_time.items, in_time.nr, sizeof *in_time.items, compare_index);
    for (uint64_t i = 0; same && i < in_time.nr; i++)
        same = same_record(&in_time.items[i], &samples.items[i]);
    check(same, what, "%" PRIu64 " records, or one differs%s%s", in_time.nr,
          in_time.nr == samples.nr ? "" : ": ", in_time.nr == samples.nr ? "" : err.msg);

    /* rising, falling, then past the last: one iterator throughout */
    uint64_t n = 2 * walked.nr + 2;
    uint64_t *asked = malloc(n * sizeof *asked);
    if (!asked)
        abort();
    for (uint64_t i = 0; i < walked.nr; i++) {
        asked[i] = i;
        asked[walked.nr + i] = walked.nr - 1 - i;
    }
    asked[n - 2] = walked.nr;
    asked[n - 1] = walked.nr + 7;
    snprintf(what, sizeof what, "%s: lookups rising, falling and past the last give the walk's records",
             path);
    check(lookups_match(f, &walked, asked, n, why, sizeof why), what, "%s", why);
    free(asked);
done:
    forget(&walked);
    forget(&in_file);
    forget(&samples);
    forget(&in_time);
    pv_file_close(f);
}

int main(void)
{
    const char *files[] = {
        "tests/fixtures/example.data",
        "tests/fixtures/multi.data",
        "tests/fixtures/big_endian/multi.data",
        "tests/fixtures/tracepoint_pipe.data",
        "tests/fixtures/tracepoint_zfile.data",
        "tests/fixtures/threads_zdir",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        check_file(files[i]);
    return failures ? 1 : 0;
}
