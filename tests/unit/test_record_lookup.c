/*
 * Records looked up by ordinal (src/scan/record_lookup.h) against a plain
 * walk: for the committed fixtures (file, pipe mode, compressed, a
 * directory), every ordinal from 0 to a few past the last, asked in rising,
 * falling, shuffled and repeated order, and rising with rows never asked
 * for, with and without a type test, and with the stash of records walked
 * past cut to a few hundred bytes or a few entries, must give the record
 * the walk numbers so (same type, size and bytes) when it is a row, and
 * nothing otherwise; the stash never holds more entries than its limit.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "scan/record_lookup.h"
#include "stream/file_open.h"
#include "stream/record_walk.h"
#include "unit_check.h"

/* A record of the walk: what a lookup must hand out for its ordinal. */
typedef struct walked {
    uint32_t type;
    uint16_t size;
    uint8_t *bytes;
} walked;

static bool samples_only(uint32_t type)
{
    return type == PV_RECORD_SAMPLE;
}

static walked *walk_all(pv_file *f, uint64_t *n, pv_error *err)
{
    walked *all = NULL;
    uint64_t nr = 0, capacity = 0;
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    int rc;
    while ((rc = pv_walk_next(&w, &rec, err)) == 1) {
        if (nr == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            all = realloc(all, capacity * sizeof *all);
            if (!all)
                abort();
        }
        all[nr].type = rec.type;
        all[nr].size = rec.size;
        all[nr].bytes = malloc(rec.size);
        if (!all[nr].bytes)
            abort();
        memcpy(all[nr].bytes, rec.bytes, rec.size);
        nr++;
    }
    pv_walk_end(&w);
    *n = nr;
    return rc < 0 ? NULL : all;
}

/* Looks up the ordinals in order; the first mismatch in why. */
static bool lookups_match(pv_file *f, const walked *all, uint64_t n, const uint64_t *order,
                          uint64_t nr_order, pv_record_type_test wants, uint64_t stash_limit,
                          uint64_t entry_limit, char *why, size_t why_size)
{
    pv_record_lookup l;
    pv_error err;
    bool ok = true;
    if (pv_record_lookup_start(&l, f, NULL, wants, &err)) {
        snprintf(why, why_size, "start: %s", err.msg);
        pv_record_lookup_end(&l);
        return false;
    }
    if (stash_limit)
        l.stash_limit = stash_limit;
    if (entry_limit)
        l.stash_entry_limit = entry_limit;
    for (uint64_t i = 0; i < nr_order && ok; i++) {
        uint64_t k = order[i];
        pv_record rec;
        int rc = pv_record_lookup_find(&l, k, &rec, &err);
        bool row = k < n && (!wants || wants(all[k].type));
        if (rc < 0) {
            snprintf(why, why_size, "ordinal %" PRIu64 ": %s", k, err.msg);
            ok = false;
        } else if (rc != row) {
            snprintf(why, why_size, "ordinal %" PRIu64 " (ask %" PRIu64 "): found %d, want %d", k,
                     i, rc, row);
            ok = false;
        } else if (row && (rec.index != k || rec.type != all[k].type || rec.size != all[k].size ||
                           memcmp(rec.bytes, all[k].bytes, rec.size) != 0)) {
            snprintf(why, why_size, "ordinal %" PRIu64 ": got record %" PRIu64 " type %u size %u",
                     k, rec.index, rec.type, rec.size);
            ok = false;
        } else if (l.tail - l.head > l.stash_entry_limit) {
            snprintf(why, why_size, "ordinal %" PRIu64 ": %" PRIu64 " entries stashed, over %" PRIu64,
                     k, l.tail - l.head, l.stash_entry_limit);
            ok = false;
        }
    }
    pv_record_lookup_end(&l);
    return ok;
}

static void check_file(const char *path)
{
    pv_file *f;
    pv_error err;
    if (pv_file_open(path, &f, &err)) {
        check(false, path, "cannot open: %s", err.msg);
        return;
    }
    uint64_t n;
    walked *all = walk_all(f, &n, &err);
    if (!all) {
        check(false, path, "walk: %s", err.msg);
        pv_file_close(f);
        return;
    }
    uint64_t nr = n + 3;
    uint64_t *order = malloc(3 * nr * sizeof *order);
    if (!order)
        abort();
    const char *names[] = {"rising", "falling", "shuffled", "each twice, rising",
                           "rising, every third never asked"};
    for (int kind = 0; kind < 5; kind++) {
        uint64_t nr_order = nr;
        for (uint64_t i = 0; i < nr; i++)
            order[i] = kind == 1 ? nr - 1 - i : i;
        if (kind == 2) {
            uint64_t seed = 88172645463325252u;
            for (uint64_t i = nr - 1; i > 0; i--) {
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                uint64_t j = seed % (i + 1), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        if (kind == 3) {
            for (uint64_t i = 0; i < nr; i++)
                order[2 * i] = order[2 * i + 1] = i;
            nr_order = 2 * nr;
        }
        if (kind == 4) {
            nr_order = 0;
            for (uint64_t i = 0; i < nr; i++)
                if (i % 3 != 1)
                    order[nr_order++] = i;
        }
        for (int variant = 0; variant < 8; variant++) {
            pv_record_type_test wants = variant & 1 ? samples_only : NULL;
            uint64_t limit = variant & 2 ? 300 : 0;
            uint64_t entries = variant & 4 ? 5 : 0;
            char what[400], why[1200] = "";
            snprintf(what, sizeof what, "%s: %" PRIu64 " records looked up %s%s%s%s", path, n,
                     names[kind], wants ? ", samples only" : "",
                     limit ? ", stash of 300 bytes" : "", entries ? ", stash of 5 entries" : "");
            check(lookups_match(f, all, n, order, nr_order, wants, limit, entries, why, sizeof why),
                  what, "%s", why);
        }
    }
    free(order);
    for (uint64_t i = 0; i < n; i++)
        free(all[i].bytes);
    free(all);
    pv_file_close(f);
}

int main(void)
{
    const char *files[] = {
        "tests/fixtures/fp.data",
        "tests/fixtures/dwarf.data",
        "tests/fixtures/multi.data",
        "tests/fixtures/big_endian/multi.data",
        "tests/fixtures/tracepoint_pipe.data",
        "tests/fixtures/tracepoint_zfile.data",
        "tests/fixtures/tracepoint_zpipe.data",
        "tests/fixtures/threads_dir",
        "tests/fixtures/threads_zdir",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        check_file(files[i]);
    return failures ? 1 : 0;
}
