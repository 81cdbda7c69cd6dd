/*
 * The time seek (src/scan/time_seek.h) and the scan that starts and stops
 * by rounds (record_scan.h) on synthetic streams: the header and attr of
 * tests/bad_input/base.data (IP|TID|TIME|CALLCHAIN, sample_id_all), then
 * SAMPLE and FINISHED_ROUND records laid out as perf record writes them
 * (each round one sorted run per CPU buffer, overlapping the round before).
 *
 * - For windows at the start, middle and end, empty, the whole range and
 *   outside the recording, a scan that may start late yields exactly the
 *   records a plain walk with the same filter yields, in file order.
 * - Adversarial payloads: some samples carry, in their callchain, bytes
 *   that chain like records (a FINISHED_ROUND, then samples of plausible
 *   size, type and time, landing on the true next record).  No probe or
 *   round proof landing in them may hand out a start that is not a true
 *   record boundary just past a true FINISHED_ROUND, and the window's
 *   records are still exactly the walk's.
 * - A stream without rounds and a damaged one are not entered in the
 *   middle (the seek answers 0: read from the start); one whose runs stray
 *   back further than the round rule allows still gives the walk's records.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_builder.h"
#include "decode/sample.h"
#include "format/perf_abi.h"
#include "scan/record_scan.h"
#include "scan/time_seek.h"
#include "stream/file_open.h"
#include "test_files.h"
#include "unit_check.h"

typedef struct stream {
    uint8_t *image;
    uint64_t size, capacity;
    uint64_t data_offset;
    /* true record offsets, and whether each is a FINISHED_ROUND */
    uint64_t *offsets;
    bool *is_round;
    uint64_t nr, nr_capacity;
    uint64_t first_time, last_time;
} stream;

static uint64_t straggle = 12;   /* the largest step between a run's times */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(uint64_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state % n;
}

static uint8_t *claim(stream *s, uint64_t n)
{
    if (s->size + n > s->capacity) {
        uint64_t grown = (s->capacity + n) * 2;
        uint8_t *p = realloc(s->image, grown);
        if (!p) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        s->image = p;
        s->capacity = grown;
    }
    uint8_t *at = s->image + s->size;
    s->size += n;
    return at;
}

static void put(stream *s, uint64_t v, int width)
{
    bb_store(claim(s, (uint64_t)width), v, width, false);
}

static void note_record(stream *s, bool round)
{
    if (s->nr == s->nr_capacity) {
        s->nr_capacity = s->nr_capacity ? s->nr_capacity * 2 : 4096;
        s->offsets = realloc(s->offsets, s->nr_capacity * sizeof *s->offsets);
        s->is_round = realloc(s->is_round, s->nr_capacity * sizeof *s->is_round);
        if (!s->offsets || !s->is_round)
            exit(1);
    }
    s->offsets[s->nr] = s->size;
    s->is_round[s->nr++] = round;
}

/* A fake record inside a payload: a sample of 40 bytes. */
static void put_fake_sample(stream *s, uint64_t time)
{
    put(s, PV_RECORD_SAMPLE, 4), put(s, 0, 2), put(s, 40, 2);
    put(s, 0xdead, 8), put(s, 7, 4), put(s, 7, 4), put(s, time, 8), put(s, 0, 8);
}

/* A sample; with fakes, its callchain holds bytes that chain like records:
 * a FINISHED_ROUND and samples timed inside the window, which end exactly
 * where the sample does (the chain lands on the true next record). */
static void add_sample(stream *s, uint64_t time, int fakes)
{
    note_record(s, false);
    uint64_t words = fakes ? 1 + 5 * (uint64_t)fakes : 0;
    put(s, PV_RECORD_SAMPLE, 4), put(s, 0, 2), put(s, 40 + 8 * words, 2);
    put(s, 0x1000 + s->nr, 8), put(s, 7, 4), put(s, 7, 4), put(s, time, 8), put(s, words, 8);
    if (!fakes)
        return;
    put(s, PV_RECORD_FINISHED_ROUND, 4), put(s, 0, 2), put(s, 8, 2);
    for (int k = 0; k < fakes; k++)
        put_fake_sample(s, time + 1 + (uint64_t)k);
}

static void add_round(stream *s)
{
    note_record(s, true);
    put(s, PV_RECORD_FINISHED_ROUND, 4), put(s, 0, 2), put(s, 8, 2);
}

/* About nr_rounds rounds of 2..4 CPU runs; one sample in fake_every
 * carries fake records (0: none). */
static void build(stream *s, const uint8_t *base, uint64_t data_offset, int nr_rounds,
                  bool rounds, int fake_every)
{
    memset(s, 0, sizeof *s);
    memcpy(claim(s, data_offset), base, data_offset);
    s->data_offset = data_offset;
    uint64_t round_start = 1000000;
    s->first_time = UINT64_MAX;
    for (int r = 0; r < nr_rounds; r++) {
        int cpus = 2 + (int)rng(3);
        for (int c = 0; c < cpus; c++) {
            /* runs overlap the round before, within perf's rule: nothing
             * below the highest time of the round before that */
            uint64_t t = round_start - rng(800);
            int n = 1 + (int)rng(60);
            for (int k = 0; k < n; k++) {
                t += rng(straggle);
                int fakes = fake_every && rng((uint64_t)fake_every) == 0 ? 1 + (int)rng(12) : 0;
                add_sample(s, t, fakes);
                if (t < s->first_time)
                    s->first_time = t;
                if (t > s->last_time)
                    s->last_time = t;
            }
        }
        if (rounds)
            add_round(s);
        round_start += 1000;
    }
    bb_store(s->image + 40, data_offset, 8, false);
    bb_store(s->image + 48, s->size - data_offset, 8, false);
    memset(s->image + 72, 0, 32);    /* no features */
}

static bool true_boundary(const stream *s, uint64_t offset, bool after_round)
{
    uint64_t lo = 0, hi = s->nr;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (s->offsets[mid] < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->nr && s->offsets[lo] == offset)
        return !after_round || (lo > 0 && s->is_round[lo - 1]);
    /* the end of the stream */
    return offset == s->size && (!after_round || (s->nr && s->is_round[s->nr - 1]));
}

/* The offsets of the records a scan yields for [lo, hi]; late: whether it
 * may start late.  *started_late: whether it did. */
static uint64_t scan_offsets(pv_file *f, int64_t lo, int64_t hi, bool late, uint64_t *out,
                             bool *started_late, char *error, size_t error_size)
{
    pv_record_filter filter = {0};
    filter.active = filter.has_time_min = filter.has_time_max = true;
    filter.time_min = lo;
    filter.time_max = hi;
    filter.may_start_late = late;
    pv_record_scan scan;
    pv_error err;
    uint64_t n = 0;
    int rc = pv_record_scan_start(&scan, f, &filter, NULL, &err);
    if (rc == 0) {
        pv_record rec;
        while ((rc = pv_record_scan_next(&scan, &rec, &err)) == 1)
            out[n++] = rec.file_offset;
    }
    *started_late = scan.late_start;
    pv_record_scan_end(&scan);
    if (rc < 0)
        snprintf(error, error_size, "%s", err.msg);
    return rc < 0 ? UINT64_MAX : n;
}

/* A window's records through the late scan against a walk of the whole
 * stream; a fresh pv_file each time (no index kept from an earlier scan). */
static void compare_window(const char *what, const stream *s, int64_t lo, int64_t hi,
                           int expect_late)
{
    pv_file *f = NULL;
    pv_error err;
    char name[160], error[800] = "";
    snprintf(name, sizeof name, "%s [%lld, %lld]", what, (long long)lo, (long long)hi);
    if (pv_file_open_memory(name, s->image, s->size, &f, &err)) {
        check(false, name, "open: %s", err.msg);
        return;
    }
    uint64_t *want = malloc(s->nr * sizeof *want), *got = malloc(s->nr * sizeof *got);
    bool late_want, late_got;
    uint64_t nw = scan_offsets(f, lo, hi, false, want, &late_want, error, sizeof error);
    pv_file_close(f);
    f = NULL;
    if (pv_file_open_memory(name, s->image, s->size, &f, &err)) {
        check(false, name, "open: %s", err.msg);
        free(want);
        free(got);
        return;
    }
    uint64_t ng = scan_offsets(f, lo, hi, true, got, &late_got, error, sizeof error);
    pv_file_close(f);
    bool same = nw != UINT64_MAX && nw == ng && memcmp(want, got, nw * sizeof *want) == 0;
    check(same, name, "%llu records from a full scan, %llu from the late one %s",
          (unsigned long long)nw, (unsigned long long)ng, error);
    if (expect_late >= 0) {
        char late_what[200];
        snprintf(late_what, sizeof late_what, "%s: %s", name,
                 expect_late ? "starts in the middle" : "starts at the beginning");
        check(late_got == (expect_late == 1), late_what, "late_start %d", late_got);
    }
    free(want);
    free(got);
}

/* expect_late: 1 or 0 as the middle and end windows should start, -1 either */
static void windows(const char *what, const stream *s, int expect_late)
{
    int64_t a = (int64_t)s->first_time, z = (int64_t)s->last_time, span = z - a;
    compare_window(what, s, a + span / 2, a + span / 2 + span / 100, expect_late);
    compare_window(what, s, a, a + span / 100, expect_late < 0 ? -1 : 0);
    compare_window(what, s, z - span / 100, z, expect_late);
    compare_window(what, s, a + span / 3, a + span / 3, -1);
    compare_window(what, s, a, z, 0);
    compare_window(what, s, z + 10, z + 10 + span, -1);
    compare_window(what, s, 1, a - 10, 0);
    compare_window(what, s, a + span / 2, a + span / 4, -1);    /* empty: hi < lo */
}

/* Probes and round proofs landing anywhere in the samples with fakes never
 * hand out a start that is not a true boundary just past a FINISHED_ROUND. */
static void adversarial_probes(const stream *s)
{
    pv_file *f = NULL;
    pv_error err;
    if (pv_file_open_memory("adversarial", s->image, s->size, &f, &err)) {
        check(false, "adversarial: open", "%s", err.msg);
        return;
    }
    pv_walk w;
    pv_walk_start(&w, f);
    uint64_t probes = 0, bad_probes = 0, rounds = 0, bad_rounds = 0, fake_tried = 0;
    uint64_t first_bad = 0;
    uint64_t mid_time = s->first_time + (s->last_time - s->first_time) / 2;
    for (uint64_t i = 0; i + 1 < s->nr && fake_tried < 40; i++) {
        uint64_t begin = s->offsets[i], end = s->offsets[i + 1];
        if (end - begin <= 40)
            continue;              /* no fakes in it */
        fake_tried++;
        for (uint64_t at = begin + 8; at < end; at += 8) {
            pv_time_probe p;
            if (pv_time_probe_at(f, &w, at, &p, &err) == 0 && p.proven) {
                probes++;
                /* a steering probe may be fooled, but never beyond its record */
                (void)p;
            }
            pv_time_round r;
            if (pv_time_round_at(f, &w, at, mid_time, &r, &err) == 0 && r.proven) {
                rounds++;
                if (r.early && !true_boundary(s, r.start, true)) {
                    if (!bad_rounds)
                        first_bad = at;
                    bad_rounds++;
                }
            }
        }
    }
    pv_walk_end(&w);
    check(fake_tried > 0 && rounds > 0,
          "adversarial: round proofs landed inside samples that carry fake records",
          "%llu samples, %llu proofs", (unsigned long long)fake_tried, (unsigned long long)rounds);
    check(bad_rounds == 0, "adversarial: no round proof starts inside a record",
          "%llu of %llu (first from offset %llu)", (unsigned long long)bad_rounds,
          (unsigned long long)rounds, (unsigned long long)first_bad);
    (void)bad_probes;
    uint64_t start;
    int rc = pv_time_seek_start(f, mid_time, &start, &err);
    check(rc == 1 && start > s->data_offset && true_boundary(s, start, true),
          "adversarial: the seek's start is a true boundary past a FINISHED_ROUND",
          "rc %d start %llu", rc, (unsigned long long)start);
    pv_file_close(f);
}

/* A size damaged near the middle: any probe meeting it fails to prove a
 * chain; whatever the seek answers, a start it hands out is true. */
static void damaged(const stream *s)
{
    uint8_t *copy = malloc(s->size);
    memcpy(copy, s->image, s->size);
    uint64_t k = s->nr / 2;
    while (k < s->nr && s->is_round[k])
        k++;
    bb_store(copy + s->offsets[k] + 6, 12, 2, false);    /* size 12: not a multiple of 8 */
    pv_file *f = NULL;
    pv_error err;
    if (pv_file_open_memory("damaged", copy, s->size, &f, &err)) {
        check(false, "damaged: open", "%s", err.msg);
        free(copy);
        return;
    }
    pv_walk w;
    pv_walk_start(&w, f);
    pv_time_round r;
    pv_time_round_at(f, &w, s->offsets[k] - 16 * 48, s->last_time, &r, &err);
    pv_walk_end(&w);
    check(!r.proven || r.walked < 16 * 48 + 8 || r.boundary > s->offsets[k],
          "damaged: a round proof does not walk through a damaged size",
          "proven from %llu, walked %llu", (unsigned long long)r.boundary,
          (unsigned long long)r.walked);
    pv_file_close(f);
    free(copy);
}

/* tests/fixtures/synth_start/synth_start.data: a system-wide recording
 * whose first 190 KiB are records perf synthesized (id 0, time 0).  A
 * probe landing among them proves a boundary, and the
 * seek for a window at the start answers "from the beginning, stopping by
 * rounds" (1), not "no proof" (0, a full pass). */
static void synthesized_start(void)
{
    uint64_t size;
    uint8_t *bytes = slurp("tests/fixtures/synth_start/synth_start.data", &size);
    if (!bytes) {
        printf("skip - time seek, synthesized records: the fixture is absent\n");
        return;
    }
    pv_file *f = NULL;
    pv_error err;
    if (pv_file_open_memory("synth_start", bytes, size, &f, &err)) {
        check(false, "synthesized records: open", "%s", err.msg);
        free(bytes);
        return;
    }
    uint64_t begin = f->data_section.offset;
    pv_walk w;
    pv_walk_start(&w, f);
    uint64_t proven = 0, tried = 0, first_time = 0;
    for (uint64_t at = begin + 8; at < begin + (128u << 10); at += 4096 + 8) {
        pv_time_probe p;
        tried++;
        if (pv_time_probe_at(f, &w, at, &p, &err) == 0 && p.proven && !p.timed)
            proven++;
    }
    /* the first sample's time: the window's start */
    pv_walk_seek(&w, 0, begin, 0);
    pv_record rec;
    while (!first_time && pv_walk_next(&w, &rec, &err) == 1) {
        pv_sample s;
        if (rec.type == PV_RECORD_SAMPLE && pv_sample_decode(f, &rec, &s, &err) == 0)
            first_time = s.time;
    }
    pv_walk_end(&w);
    check(tried > 0 && proven == tried,
          "synthesized records: probes landing among them prove a boundary, untimed",
          "%llu of %llu", (unsigned long long)proven, (unsigned long long)tried);
    uint64_t start = 1;
    int rc = first_time ? pv_time_seek_start(f, first_time, &start, &err) : -2;
    check(rc == 1 && start == begin,
          "synthesized records: a window at the first sample starts at the beginning by rounds",
          "rc %d start %llu", rc, (unsigned long long)start);
    pv_file_close(f);
    free(bytes);
}

int main(void)
{
    uint64_t base_size;
    uint8_t *base = slurp("tests/bad_input/base.data", &base_size);
    if (!base) {
        printf("skip - time seek: tests/bad_input/base.data is absent\n");
        return 0;
    }
    uint64_t data_offset = 0;
    for (int i = 7; i >= 0; i--)
        data_offset = data_offset << 8 | base[40 + i];
    stream plain, fakes, roundless, straggly;
    build(&plain, base, data_offset, 3000, true, 0);
    /* runs that stray further back than the rule allows */
    straggle = 40;
    build(&straggly, base, data_offset, 3000, true, 0);
    straggle = 12;
    build(&fakes, base, data_offset, 3000, true, 7);
    build(&roundless, base, data_offset, 600, false, 0);
    windows("rounds", &plain, 1);
    windows("rounds, fake records in payloads", &fakes, 1);
    windows("no rounds", &roundless, 0);
    /* where a walk meets the breach it starts at the beginning; either way
     * the records are the walk's when they stray back less than two rounds */
    windows("rounds against the rule", &straggly, -1);
    adversarial_probes(&fakes);
    damaged(&plain);
    synthesized_start();

    pv_file *f = NULL;
    pv_error err;
    uint64_t start;
    if (pv_file_open_memory("no rounds", roundless.image, roundless.size, &f, &err) == 0) {
        uint64_t middle = roundless.first_time + (roundless.last_time - roundless.first_time) / 2;
        int rc = pv_time_seek_start(f, middle, &start, &err);
        check(rc == 0, "no rounds: the seek proves nothing (read from the start)", "rc %d", rc);
        pv_file_close(f);
    }
    free(plain.image), free(plain.offsets), free(plain.is_round);
    free(fakes.image), free(fakes.offsets), free(fakes.is_round);
    free(roundless.image), free(roundless.offsets), free(roundless.is_round);
    free(straggly.image), free(straggly.offsets), free(straggly.is_round);
    free(base);
    return failures != 0;
}
