/*
 * Records in time order (src/scan/time_order.h) on synthetic streams: the
 * header and attr of tests/bad_input/base.data (IP|TID|TIME|CALLCHAIN,
 * sample_id_all), then SAMPLE, COMM and FINISHED_ROUND records laid out as
 * perf record writes them: each round one sorted run per CPU buffer,
 * overlapping the round before; some records sent back behind a flush
 * (stragglers), some with time 0 (perf hands those out at once), COMMs
 * between them (in perf's queue, not rows of a samples-only scan).
 *
 * The expected orders come from a model written for this test, the plain
 * way: perf's queue as one list, stably sorted at each FINISHED_ROUND and
 * flushed up to the highest time queued before the round before; and for
 * PV_ORDER_TIME a stable sort of the rows by signed time.  The scan must
 * match, with and without rounds (the time index taking over past the
 * roundless limit), through its blocks and compaction, with a time window;
 * and each scan matches its twin that takes every record one by one (no
 * runs of samples queued straight from a file's window).  The streams
 * compressed (one zstd stream cut into COMPRESSED records): records pinned
 * in the blocks of decompressed bytes come out as those its twin copies
 * (PERFVTAB_UNPACK_PIN=0), on a thread and without.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "byte_builder.h"
#include "decode/sample.h"
#include "format/perf_abi.h"
#include "scan/time_order.h"
#include "stream/file_open.h"
#include "test_files.h"
#include "unit_check.h"

typedef struct model_record {
    uint64_t index;
    uint32_t type;
    uint64_t time;
} model_record;

typedef struct stream {
    uint8_t *image;
    uint64_t size;
    model_record *records;
    uint64_t nr;
} stream;

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(uint64_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state % n;
}

static void put(uint8_t **at, uint64_t v, int width)
{
    bb_store(*at, v, width, false);
    *at += width;
}

/* Appends one record to the stream's image and model. */
static void add(stream *s, uint8_t **at, uint32_t type, uint64_t time)
{
    model_record *m = &s->records[s->nr];
    m->index = s->nr++;
    m->type = type;
    m->time = time;
    if (type == PV_RECORD_SAMPLE) {            /* ip, pid/tid, time, callchain nr */
        put(at, type, 4), put(at, 0, 2), put(at, 40, 2);
        put(at, 0x1000 + m->index, 8), put(at, 7, 4), put(at, 7, 4), put(at, time, 8), put(at, 0, 8);
    } else if (type == PV_RECORD_COMM) {       /* pid, tid, comm[16], trailer tid + time */
        put(at, type, 4), put(at, 0, 2), put(at, 48, 2);
        put(at, 7, 4), put(at, 7, 4);
        memset(*at, 0, 16);
        memcpy(*at, "worker", 6);
        *at += 16;
        put(at, 7, 4), put(at, 7, 4), put(at, time, 8);
    } else {                                   /* FINISHED_ROUND */
        put(at, type, 4), put(at, 0, 2), put(at, 8, 2);
    }
}

/* A stream of about nr_rounds rounds of 2..max_cpus CPU runs; rounds
 * false: no FINISHED_ROUND.  Stragglers and time 0 records when odd is
 * set. */
static bool build(stream *s, const uint8_t *base, uint64_t base_size, int nr_rounds, bool rounds,
                  bool odd, int max_cpus)
{
    uint64_t max = (uint64_t)nr_rounds * (uint64_t)max_cpus * 64 + 16;
    s->records = calloc(max, sizeof *s->records);
    s->image = malloc(base_size + max * 48);
    if (!s->records || !s->image)
        return false;
    memcpy(s->image, base, base_size);
    uint8_t *at = s->image + base_size;
    s->nr = 0;
    uint64_t round_start = 1000000;
    for (int r = 0; r < nr_rounds; r++) {
        int cpus = 2 + (int)rng((uint64_t)max_cpus - 1);
        for (int c = 0; c < cpus; c++) {
            /* a CPU's records since the last read: a sorted run that starts
             * up to a round back */
            uint64_t t = round_start - rng(800);
            int n = 1 + (int)rng(60);
            for (int k = 0; k < n; k++) {
                t += rng(40);     /* equal times happen */
                uint64_t time = t;
                if (odd && rng(97) == 0)
                    time = round_start - 1500 - rng(3000);     /* behind a flush */
                if (odd && rng(211) == 0)
                    time = 0;
                add(s, &at, rng(9) == 0 ? PV_RECORD_COMM : PV_RECORD_SAMPLE, time);
            }
        }
        if (rounds)
            add(s, &at, PV_RECORD_FINISHED_ROUND, 0);
        round_start += 1000;
    }
    s->size = (uint64_t)(at - s->image);
    bb_store(s->image + 40, base_size, 8, false);
    bb_store(s->image + 48, s->size - base_size, 8, false);
    memset(s->image + 72, 0, 32);    /* no features */
    return true;
}

static bool samples_only(uint32_t type)
{
    return type == PV_RECORD_SAMPLE;
}

/* perf's ordered-events queue, the plain way.  Rows: samples in [lo, hi]. */
static uint64_t perf_model(const stream *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    model_record *queue = malloc((s->nr + 1) * sizeof *queue);
    uint64_t nq = 0, n = 0, max_time = 0, next_flush = 0;
#define EMIT(m) do { if ((m).type == PV_RECORD_SAMPLE && (m).time >= lo && (m).time <= hi) \
                         out[n++] = (m).index; } while (0)
    for (uint64_t i = 0; i <= s->nr; i++) {
        bool end = i == s->nr;
        if (end || s->records[i].type == PV_RECORD_FINISHED_ROUND) {
            uint64_t limit = end ? UINT64_MAX : next_flush;
            /* a stable insertion sort of the queue */
            for (uint64_t a = 1; a < nq; a++)
                for (uint64_t b = a; b > 0 && queue[b - 1].time > queue[b].time; b--) {
                    model_record t = queue[b];
                    queue[b] = queue[b - 1];
                    queue[b - 1] = t;
                }
            uint64_t k = 0;
            if (limit)
                for (; k < nq && queue[k].time <= limit; k++)
                    EMIT(queue[k]);
            memmove(queue, queue + k, (nq - k) * sizeof *queue);
            nq -= k;
            next_flush = max_time;
            continue;
        }
        model_record m = s->records[i];
        if (m.time == 0) {
            EMIT(m);
            continue;
        }
        if (nq == 0 || m.time > max_time)
            max_time = m.time;
        queue[nq++] = m;
    }
#undef EMIT
    free(queue);
    return n;
}

/* Rows sorted by time, equal times in file order. */
static uint64_t sorted_model(const stream *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < s->nr; i++)
        if (s->records[i].type == PV_RECORD_SAMPLE && s->records[i].time >= lo &&
            s->records[i].time <= hi)
            out[n++] = i;
    for (uint64_t a = 1; a < n; a++)
        for (uint64_t b = a; b > 0 && s->records[out[b - 1]].time > s->records[out[b]].time; b--) {
            uint64_t t = out[b];
            out[b] = out[b - 1];
            out[b - 1] = t;
        }
    return n;
}

/* NULL: streams are read from memory; else from a file of this name, in
 * windows read with pread, whose records the perf order keeps pinned in
 * the walk's buffers instead of copying them (record_walk.h). */
static const char *disk_path;

static int open_stream(const char *what, const stream *s, pv_file **f, pv_error *err)
{
    if (!disk_path)
        return pv_file_open_memory(what, s->image, s->size, f, err);
    FILE *out = fopen(disk_path, "wb");
    bool written = out && fwrite(s->image, 1, s->size, out) == s->size;
    if (out && fclose(out) != 0)
        written = false;
    if (!written)
        return pv_error_set(err, "%s: cannot write", disk_path);
    return pv_file_open(disk_path, f, err);
}

static void compare(const char *what_in_memory, const stream *s, pv_record_order order,
                    bool window, uint64_t roundless_limit, bool expect_perf)
{
    pv_file *f = NULL;
    pv_error err;
    char what[256];
    snprintf(what, sizeof what, "%s%s", what_in_memory, disk_path ? " (from a file)" : "");
    uint64_t *want = malloc(s->nr * sizeof *want), *got = malloc(s->nr * sizeof *got);
    if (open_stream(what, s, &f, &err)) {
        check(false, what, "open: %s", err.msg);
        free(want), free(got);
        return;
    }
    uint64_t lo = 0, hi = UINT64_MAX;
    pv_record_filter filter = {0};
    if (window) {
        lo = 1000000 + 40 * 1000;
        hi = lo + 30 * 1000;
        filter.active = filter.has_time_min = filter.has_time_max = true;
        filter.time_min = (int64_t)lo;
        filter.time_max = (int64_t)hi;
    }
    uint64_t nr_want = expect_perf ? perf_model(s, lo, hi, want) : sorted_model(s, lo, hi, want);
    pv_ordered_scan o;
    uint64_t nr_got = 0, nr_spanned = 0;
    /* the second time, the twin: every record through the loop one by one
     * (no runs of samples queued straight from the window) */
    uint64_t nr_twin = 0, *twin = malloc(s->nr * sizeof *twin);
    for (int pass = 0; pass < 2; pass++) {
    uint64_t *rows = pass ? twin : got, nr_rows = 0;
    int rc = pv_ordered_scan_start(&o, f, &filter, samples_only, order, &err);
    if (rc == 0) {
        o.roundless_limit = roundless_limit;
        o.span_samples = o.span_samples && pass == 0;
        pv_record rec;
        while ((rc = pv_ordered_scan_next(&o, &rec, &err)) == 1 && nr_got < s->nr) {
            /* the bytes handed out are the record's own */
            bool timed;
            uint64_t time;
            /* and its header fields, kept beside the bytes while queued,
             * are the record's as well (a SAMPLE's ip is 0x1000 + index) */
            const model_record *m = &s->records[rec.index];
            uint64_t ip = 0;
            if (rec.type == PV_RECORD_SAMPLE && rec.size >= 16)
                memcpy(&ip, rec.bytes + 8, 8);
            bool own = rec.type == m->type && rec.size == (m->type == PV_RECORD_SAMPLE ? 40 : 48) &&
                       (rec.type != PV_RECORD_SAMPLE || ip == 0x1000 + rec.index) &&
                       !rec.compressed;
            if (!own || pv_record_time(f, &rec, &timed, &time, &err) || time != m->time) {
                rc = -1;
                snprintf(err.msg, sizeof err.msg, "record %llu's bytes are not its own",
                         (unsigned long long)rec.index);
                break;
            }
            rows[nr_rows++] = rec.index;
        }
    }
    if (pass == 0)
        nr_spanned = o.nr_spanned;
    pv_ordered_scan_end(&o);
    if (rc < 0) {
        check(false, what, "scan%s: %s", pass ? " (twin)" : "", err.msg);
        break;
    }
    *(pass ? &nr_twin : &nr_got) = nr_rows;
    }
    /* the runs of samples: taken from a file's windows by rounds, and
     * the same rows as the twin's */
    char twin_what[300];
    snprintf(twin_what, sizeof twin_what, "%s: the twin, record by record, agrees", what);
    if (disk_path && order == PV_ORDER_PERF && !window)
        check(nr_spanned > 0, twin_what, "no sample was queued straight from the window");
    check(nr_twin == nr_got && memcmp(twin, got, nr_got * sizeof *got) == 0, twin_what,
          "%llu rows, the twin's (record by record) %llu, or in another order",
          (unsigned long long)nr_got, (unsigned long long)nr_twin);
    free(twin);
    uint64_t first_diff = 0;
    while (first_diff < nr_got && first_diff < nr_want && got[first_diff] == want[first_diff])
        first_diff++;
    check(nr_got == nr_want && first_diff == nr_got, what,
              "%llu rows, want %llu; first difference at row %llu",
              (unsigned long long)nr_got, (unsigned long long)nr_want,
              (unsigned long long)first_diff);
    pv_file_close(f);
    free(want), free(got);
}

/* s with its data section (at data_at) as one zstd stream cut every cut
 * bytes into COMPRESSED records: records span containers, and a block of
 * decompressed bytes holds pieces of many. */
static uint8_t *compressed_image(const stream *s, uint64_t data_at, size_t cut, uint64_t *size)
{
    size_t raw = (size_t)(s->size - data_at), bound = ZSTD_compressBound(raw);
    uint8_t *packed = malloc(bound), *image = malloc(data_at + bound + bound / cut * 8 + 16);
    size_t packed_size = packed ? ZSTD_compress(packed, bound, s->image + data_at, raw, 1) : 0;
    if (!packed || !image || ZSTD_isError(packed_size)) {
        free(packed), free(image);
        return NULL;
    }
    memcpy(image, s->image, (size_t)data_at);
    uint64_t out = data_at;
    for (size_t k = 0; k < packed_size; k += cut) {
        size_t n = packed_size - k < cut ? packed_size - k : cut;
        bb_store(image + out, PV_RECORD_COMPRESSED, 4, false);
        bb_store(image + out + 4, 0, 2, false);
        bb_store(image + out + 6, (uint16_t)(n + 8), 2, false);
        memcpy(image + out + 8, packed + k, n);
        out += 8 + n;
    }
    bb_store(image + 48, out - data_at, 8, false);
    free(packed);
    *size = out;
    return image;
}

typedef struct scanned_row {
    uint64_t index, file_offset, model_index;
    uint32_t segment, size;
    bool compressed;
} scanned_row;

static bool rows_equal(const scanned_row *a, const scanned_row *b)
{
    return a->index == b->index && a->file_offset == b->file_offset &&
           a->model_index == b->model_index && a->segment == b->segment && a->size == b->size &&
           a->compressed == b->compressed;
}

/* The rows of a scan of f in perf's order; false with why on an error. */
static bool scan_rows(pv_file *f, scanned_row *rows, uint64_t max, uint64_t *nr,
                      uint64_t *nr_spanned, char *why, size_t why_size)
{
    pv_ordered_scan o;
    pv_error err;
    pv_record rec;
    int rc = pv_ordered_scan_start(&o, f, NULL, samples_only, PV_ORDER_PERF, &err) ? -1 : 1;
    *nr = 0;
    while (rc == 1 && (rc = pv_ordered_scan_next(&o, &rec, &err)) == 1 && *nr < max) {
        scanned_row *r = &rows[(*nr)++];
        uint64_t ip = 0;
        if (rec.size >= 16)
            memcpy(&ip, rec.bytes + 8, 8);
        *r = (scanned_row){rec.index, rec.file_offset, ip - 0x1000, rec.segment, rec.size,
                           rec.compressed};
    }
    *nr_spanned = o.nr_spanned;
    pv_ordered_scan_end(&o);
    if (rc < 0)
        snprintf(why, why_size, "%s", err.msg);
    return rc == 0;
}

/* The compressed stream's rows, records pinned (and runs of samples taken
 * from the blocks) against the twin that copies every record, on a thread
 * and without; with_model: in the model's order too. */
static void compare_compressed(const char *what, const stream *s, uint64_t data_at, size_t cut,
                               bool with_model, const char *path)
{
    char name[256], why[1024] = "";
    uint64_t size;
    uint8_t *image = compressed_image(s, data_at, cut, &size);
    FILE *out = image ? fopen(path, "wb") : NULL;
    bool written = out && fwrite(image, 1, size, out) == size;
    if (out && fclose(out) != 0)
        written = false;
    free(image);
    uint64_t *want = malloc(s->nr * sizeof *want);
    uint64_t nr_want = with_model && want ? perf_model(s, 0, UINT64_MAX, want) : 0;
    scanned_row *rows[2] = {malloc(s->nr * sizeof **rows), malloc(s->nr * sizeof **rows)};
    for (int threaded = 0; threaded < 2; threaded++) {
        snprintf(name, sizeof name, "compressed, %s: pinned records equal the copied twin's (%s)",
                 what, threaded ? "on a thread" : "without a thread");
        pv_file *f = NULL;
        pv_error err;
        if (!written || !want || !rows[0] || !rows[1] || pv_file_open(path, &f, &err)) {
            check(false, name, "%s", written ? err.msg : "cannot write the file");
            break;
        }
        setenv("PERFVTAB_UNPACK_THREAD_MIN", threaded ? "0" : "18446744073709551615", 1);
        uint64_t nr[2], spanned[2];
        bool ok = true;
        for (int copy = 0; copy < 2 && ok; copy++) {
            setenv("PERFVTAB_UNPACK_PIN", copy ? "0" : "1", 1);
            ok = scan_rows(f, rows[copy], s->nr, &nr[copy], &spanned[copy], why, sizeof why);
        }
        unsetenv("PERFVTAB_UNPACK_PIN");
        unsetenv("PERFVTAB_UNPACK_THREAD_MIN");
        pv_file_close(f);
        uint64_t k = 0;
        while (ok && k < nr[0] && k < nr[1] && rows_equal(&rows[0][k], &rows[1][k]))
            k++;
        if (ok && (nr[0] != nr[1] || k < nr[0]))
            snprintf(why, sizeof why, "%llu rows, the twin's %llu, first difference at row %llu",
                     (unsigned long long)nr[0], (unsigned long long)nr[1], (unsigned long long)k);
        else if (ok && (spanned[0] == 0 || spanned[1] != 0))
            snprintf(why, sizeof why, "samples taken in runs from the blocks: %llu, by the twin %llu",
                     (unsigned long long)spanned[0], (unsigned long long)spanned[1]);
        for (k = 0; ok && !why[0] && k < nr[0]; k++)
            if (!rows[0][k].compressed || rows[0][k].size != 40 ||
                (with_model && (k >= nr_want || rows[0][k].model_index != want[k])))
                snprintf(why, sizeof why, "row %llu is not the model's", (unsigned long long)k);
        if (!why[0] && with_model && nr[0] != nr_want)
            snprintf(why, sizeof why, "%llu rows, the model %llu", (unsigned long long)nr[0],
                     (unsigned long long)nr_want);
        check(!why[0], name, "%s", why);
        why[0] = 0;
    }
    free(want), free(rows[0]), free(rows[1]);
}

int main(void)
{
    uint64_t base_size;
    uint8_t *base = slurp("tests/bad_input/base.data", &base_size);
    if (!base) {
        printf("ok - time order # SKIP tests/bad_input/base.data is absent\n");
        return 0;
    }
    /* the data section starts after the header and attrs: its offset */
    uint64_t header_and_attrs = 0;
    for (int i = 7; i >= 0; i--)
        header_and_attrs = header_and_attrs << 8 | base[40 + i];
    /* many: rounds of up to 16 CPU runs, more than a release merges in one
     * pass (time_order.c, MERGE_WAYS): sorted whole, run by run */
    stream plain = {0}, odd = {0}, roundless = {0}, many = {0};
    if (!build(&plain, base, header_and_attrs, 400, true, false, 4) ||
        !build(&odd, base, header_and_attrs, 400, true, true, 4) ||
        !build(&roundless, base, header_and_attrs, 400, false, false, 4) ||
        !build(&many, base, header_and_attrs, 200, true, true, 16)) {
        check(false, "time order: streams built", "out of memory");
        return 1;
    }
    /* the streams must tell the orders apart for the checks to mean anything */
    uint64_t *a = malloc(odd.nr * sizeof *a), *b = malloc(odd.nr * sizeof *b);
    uint64_t na = perf_model(&odd, 0, UINT64_MAX, a), nb = sorted_model(&odd, 0, UINT64_MAX, b);
    check(na == nb && memcmp(a, b, na * sizeof *a) != 0, "the odd stream's perf order is not sorted",
          "it is");
    uint64_t in_order = 1;
    nb = sorted_model(&plain, 0, UINT64_MAX, b);
    for (uint64_t i = 1; i < nb; i++)
        in_order += b[i] > b[i - 1];
    check(in_order < nb, "the plain stream's samples are not in time order in the file", "they are");
    free(a), free(b);
    uint64_t never = UINT64_MAX;
    char tmp[] = "/tmp/pv_time_order_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) {
        check(false, "time order: a temporary file", "mkstemp failed");
        return 1;
    }
    close(fd);
    for (int pass = 0; pass < 2; pass++) {
    disk_path = pass ? tmp : NULL;
    compare("perf order by rounds, equal times in file order", &plain, PV_ORDER_PERF, false,
            never, true);
    compare("perf order is the sorted order when no record strays", &plain, PV_ORDER_PERF, false,
            never, false);
    compare("perf order with stragglers and time 0, as perf's queue", &odd, PV_ORDER_PERF,
            false, never, true);
    compare("perf order in a time window", &odd, PV_ORDER_PERF, true, never, true);
    compare("ORDER BY time order: sorted, stragglers in place", &odd, PV_ORDER_TIME, false,
            never, false);
    compare("ORDER BY time order in a time window", &odd, PV_ORDER_TIME, true, never, false);
    compare("no rounds: the whole stream sorted, as perf does", &roundless, PV_ORDER_PERF,
            false, never, true);
    compare("no rounds past the limit: the time index releases, same order", &roundless,
            PV_ORDER_PERF, false, 4096, true);
    compare("perf order of rounds of many CPU runs, stragglers and time 0", &many, PV_ORDER_PERF,
            false, never, true);
    }
    compare_compressed("by rounds, stragglers and time 0", &odd, header_and_attrs, 701, true, tmp);
    compare_compressed("rounds of many CPU runs", &many, header_and_attrs, 5000, true, tmp);
    /* held whole: more blocks than may be pinned at once (the rest copied) */
    stream big = {0};
    if (build(&big, base, header_and_attrs, 2500, false, true, 4))
        compare_compressed("no rounds, 7 MB held", &big, header_and_attrs, 3000, false, tmp);
    else
        check(false, "compressed, no rounds: stream built", "out of memory");
    free(big.image), free(big.records);
    unlink(tmp);
    free(plain.image), free(plain.records);
    free(odd.image), free(odd.records);
    free(roundless.image), free(roundless.records);
    free(many.image), free(many.records);
    free(base);
    return failures ? 1 : 0;
}
