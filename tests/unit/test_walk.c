/*
 * Unit test of the record walk's I/O: records read from a file in pread
 * windows must be the same bytes as from the image in memory, for files
 * bigger than one window; a file that shrinks while a walk is under way must
 * give an error naming the offset, not SIGBUS.  Compressed files: records
 * decompressed on a thread are those decompressed without, the thread runs
 * only when asked or worth it, and it is gone when the walk ends or seeks.
 *
 * Output: one line per check, "ok - what" or "not ok - what: why".
 * Runs from the repo root (tests/run.sh).  The corpus files it needs are the
 * copies in tests/corpus, but for one too big to copy, read from PV_SHARED
 * (../shared) and skipped where absent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "byte_builder.h"
#include "stream/file_open.h"
#include "format/perf_file.h"
#include "stream/record_walk.h"
#include "format/perf_abi.h"
#include "decode/sample.h"
#include "test_files.h"
#include "unit_check.h"
#include "stream/unpack.h"

/* Walks the file from disk and from memory side by side. */
/* Whether step n of two walks of the same records gave the same: false at
 * their end, or with why set where they part. */
static bool walks_agree(uint64_t n, int rca, int rcb, const pv_record *ra, const pv_record *rb,
                        const pv_error *ea, const pv_error *eb, char *why, size_t why_size)
{
    if (rca != rcb) {
        snprintf(why, why_size, "record %llu: %d vs %d", (unsigned long long)n, rca, rcb);
        return false;
    }
    if (rca <= 0) {
        if (rca < 0 && strcmp(ea->msg, eb->msg) != 0)
            snprintf(why, why_size, "different errors: %s / %s", ea->msg, eb->msg);
        return false;
    }
    if (ra->index != rb->index || ra->file_offset != rb->file_offset || ra->size != rb->size ||
        ra->compressed != rb->compressed || ra->segment != rb->segment ||
        memcmp(ra->bytes, rb->bytes, ra->size) != 0) {
        snprintf(why, why_size, "record %llu (offset 0x%llx) differs", (unsigned long long)n,
                 (unsigned long long)ra->file_offset);
        return false;
    }
    return true;
}

/* A recording opened twice: read by pread windows (disk) and as an image
 * in memory (mem, over image). */
typedef struct twin_files {
    pv_file *disk, *mem;
    uint8_t *image;
} twin_files;

/* false, the check what failed, when either opening fails. */
static bool open_twins(const char *path, const char *what, twin_files *t)
{
    *t = (twin_files){0};
    uint64_t size;
    t->image = slurp(path, &size);
    if (!t->image) {
        check(false, what, "cannot read the file");
        return false;
    }
    pv_error err;
    if (pv_file_open(path, &t->disk, &err) ||
        pv_file_open_memory(path, t->image, size, &t->mem, &err)) {
        check(false, what, "%s", err.msg);
        pv_file_close(t->disk);
        free(t->image);
        return false;
    }
    return true;
}

static void close_twins(twin_files *t)
{
    pv_file_close(t->disk);
    pv_file_close(t->mem);
    free(t->image);
}

static void same_records(const char *path)
{
    char what[512], why[2048] = "";
    snprintf(what, sizeof what, "%s: records read by pread windows equal the image in memory", path);
    twin_files t;
    if (!open_twins(path, what, &t))
        return;
    pv_walk a, b;
    pv_walk_start(&a, t.disk);
    pv_walk_start(&b, t.mem);
    uint64_t n = 0;
    for (;;) {
        pv_record ra, rb;
        pv_error ea, eb;
        int rca = pv_walk_next(&a, &ra, &ea);
        int rcb = pv_walk_next(&b, &rb, &eb);
        if (!walks_agree(n, rca, rcb, &ra, &rb, &ea, &eb, why, sizeof why))
            break;
        n++;
    }
    pv_walk_end(&a);
    pv_walk_end(&b);
    if (!why[0] && n < 50)
        snprintf(why, sizeof why, "only %llu records: not a test of windows", (unsigned long long)n);
    check(!why[0], what, "%s", why);
    close_twins(&t);
}

/* pv_sample_decode_fixed must agree with the full decode on its fields. */
static void fixed_matches_full(const char *path)
{
    char what[512], why[1024] = "";
    snprintf(what, sizeof what, "%s: fixed-field sample decoding equals the full decode", path);
    pv_file *f = NULL;
    pv_error err;
    if (pv_file_open(path, &f, &err)) {
        check(false, what, "%s", err.msg);
        return;
    }
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    uint64_t n = 0;
    while (!why[0] && pv_walk_next(&w, &rec, &err) == 1) {
        if (rec.type != PV_RECORD_SAMPLE)
            continue;
        pv_sample full, fixed;
        memset(&fixed, 0xa5, sizeof fixed);
        int a = pv_sample_decode(f, &rec, &full, &err);
        int b = pv_sample_decode_fixed(f, &rec, &fixed, &err);
        if (a != 0 || b != 0)
            continue;  /* damaged samples are other tests' business */
        n++;
        if (fixed.attr_index != full.attr_index || (full.attr_index >= 0 &&
            (fixed.sample_type != full.sample_type || fixed.identifier != full.identifier ||
             fixed.ip != full.ip || fixed.pid != full.pid || fixed.tid != full.tid ||
             fixed.time != full.time || fixed.addr != full.addr || fixed.id != full.id ||
             fixed.stream_id != full.stream_id || fixed.cpu != full.cpu ||
             fixed.period != full.period)))
            snprintf(why, sizeof why, "sample at offset 0x%llx differs",
                     (unsigned long long)rec.file_offset);
    }
    pv_walk_end(&w);
    if (!why[0] && n == 0)
        snprintf(why, sizeof why, "no samples");
    check(!why[0], what, "%s", why);
    pv_file_close(f);
}

/* The file loses its tail while a walk is half-way through it. */
static void shrinks_under_walk(const char *path)
{
    const char *what = "a file truncated during a walk gives an error naming the offset";
    char tmp[] = "/tmp/pv_shrinkXXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0 || !copy_file(path, tmp)) {
        check(false, what, "cannot make a copy");
        return;
    }
    close(fd);
    pv_file *f = NULL;
    pv_error err;
    if (pv_file_open(tmp, &f, &err)) {
        check(false, what, "%s", err.msg);
        unlink(tmp);
        return;
    }
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    int rc = pv_walk_next(&w, &rec, &err);
    uint64_t cut = f->data_section.offset + f->data_section.size / 2;
    bool truncated = rc == 1 && truncate(tmp, (off_t)cut) == 0;
    uint64_t seen = 1;
    while (rc == 1) {
        rc = pv_walk_next(&w, &rec, &err);
        seen++;
    }
    pv_walk_end(&w);
    char why[2048];
    snprintf(why, sizeof why, "truncated=%d rc=%d after %llu records: %s", truncated, rc,
             (unsigned long long)seen, rc < 0 ? err.msg : "(no error)");
    check(truncated && rc < 0 && strstr(err.msg, tmp) && strstr(err.msg, "offset 0x") &&
              strstr(err.msg, "shrank"), what, "%s", why);

    /* A feature section now past the end reads as an error too; but
     * EVENT_DESC (12), which the opening read for the event names before
     * the cut, is kept as it was read. */
    bool any = false, all_errors = true;
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++) {
        const uint8_t *bytes;
        uint64_t size, offset;
        if (!pv_file_has_feature(f, id) || id == 12)
            continue;
        any = true;
        if (pv_file_feature_bytes(f, id, &bytes, &size, &offset, &err) == 0)
            all_errors = false;
    }
    check(any && all_errors, "feature sections past the new end of a truncated file are errors",
          any ? "a feature section still read" : "the file has no features");
    pv_file_close(f);
    unlink(tmp);
}

/* Threads of this process. */
static int nr_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Threads of this process once those that ended are gone, waiting up to 5 s
 * for the count to come down to want: pthread_join returns when the kernel
 * clears the thread's tid, a moment before the task leaves /proc/self/task. */
static int nr_threads_settled(int want)
{
    int n = nr_threads();
    for (int k = 0; n > want && k < 500; k++) {
        usleep(10000);
        n = nr_threads();
    }
    return n;
}

static bool walk_threaded(const pv_walk *w)
{
    return w->unpacked.source && pv_unpacker_threaded(w->unpacked.source);
}

/* tests/bad_input/base.data (header and attrs) with a data section of
 * COMPRESSED records holding records {type 100, size 8 + 8 * (i % 7)},
 * raw bytes in all, the zstd stream cut every 1000 bytes: many blocks of
 * decompressed bytes, which keep a thread busy until the walk takes them. */
static uint8_t *big_compressed_image(uint64_t raw, uint64_t *size)
{
    uint64_t base_size;
    uint8_t *base = slurp("tests/bad_input/base.data", &base_size);
    uint8_t *records = malloc(raw + 64);
    size_t bound = ZSTD_compressBound(raw);
    uint8_t *packed = malloc(bound);
    uint8_t *image = malloc(base_size + bound + bound / 1000 * 8 + 64);
    if (!base || !records || !packed || !image || base_size < 104) {
        free(base), free(records), free(packed), free(image);
        return NULL;
    }
    uint64_t at = 0;
    for (uint32_t i = 0; at < raw; i++) {
        uint16_t n = (uint16_t)(8 + 8 * (i % 7));
        memset(records + at, (int)i, n);
        bb_store(records + at, 100, 4, false);
        bb_store(records + at + 4, 0, 2, false);
        bb_store(records + at + 6, n, 2, false);
        at += n;
    }
    size_t packed_size = ZSTD_compress(packed, bound, records, (size_t)at, 1);
    memcpy(image, base, (size_t)base_size);
    uint64_t out = base_size;
    for (size_t k = 0; !ZSTD_isError(packed_size) && k < packed_size; k += 1000) {
        size_t n = packed_size - k < 1000 ? packed_size - k : 1000;
        bb_store(image + out, 81, 4, false);
        bb_store(image + out + 4, 0, 2, false);
        bb_store(image + out + 6, (uint16_t)(n + 8), 2, false);
        memcpy(image + out + 8, packed + k, n);
        out += 8 + n;
    }
    bb_store(image + 40, base_size, 8, false);
    bb_store(image + 48, out - base_size, 8, false);
    memset(image + 72, 0, 32);
    free(base), free(records), free(packed);
    *size = out;
    return image;
}

/* big_compressed_image's 8 MB of records opened from memory; NULL, the
 * check what failed, when it cannot be.  *image: freed after the file is
 * closed. */
static pv_file *open_big_compressed(const char *what, uint8_t **image)
{
    uint64_t size;
    pv_file *f = NULL;
    pv_error err;
    *image = big_compressed_image(8u << 20, &size);
    if (!*image || pv_file_open_memory("big_compressed", *image, size, &f, &err)) {
        check(false, what, "%s", *image ? err.msg : "cannot make the image");
        free(*image);
        return NULL;
    }
    return f;
}

/* Whether rec is the nth record big_compressed_image wrote. */
static bool record_as_written(const pv_record *rec, uint64_t n)
{
    uint16_t want = (uint16_t)(8 + 8 * (n % 7));
    return rec->type == 100 && rec->size == want &&
           (want == 8 || rec->bytes[rec->size - 1] == (uint8_t)n);
}

/* A walk that stops while the thread waits for room: the thread ends too. */
static void stops_busy_thread(void)
{
    const char *what = "a walk ended while its thread has blocks to fill stops the thread";
    uint8_t *image;
    pv_file *f = open_big_compressed(what, &image);
    if (!f)
        return;
    pv_error err;
    setenv("PERFVTAB_UNPACK_THREAD_MIN", "0", 1);
    int before = nr_threads();
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    int rc = 1;
    for (int k = 0; rc == 1 && k < 1000; k++)
        rc = pv_walk_next(&w, &rec, &err);
    bool threaded = walk_threaded(&w);
    usleep(20000);  /* the thread fills every block it may */
    int during = nr_threads();
    pv_walk_end(&w);
    int after = nr_threads_settled(before);
    char why[1024];
    snprintf(why, sizeof why, "rc %d, threaded %d, threads %d before, %d during, %d after",
             rc, threaded, before, during, after);
    check(rc == 1 && threaded && during == before + 1 && after == before, what, "%s", why);

    /* and to the end: the records as they were written, once each */
    what = "8 MB of records decompressed on a thread come out whole and in order";
    pv_walk_start(&w, f);
    uint64_t n = 0, bad = 0, bytes = 0;
    while ((rc = pv_walk_next(&w, &rec, &err)) == 1) {
        if (!rec.compressed)
            continue;
        bad += !record_as_written(&rec, n);
        bytes += rec.size;
        n++;
    }
    snprintf(why, sizeof why, "rc %d, %llu records, %llu bytes, %llu wrong: %s", rc,
             (unsigned long long)n, (unsigned long long)bytes, (unsigned long long)bad,
             rc < 0 ? err.msg : "");
    check(rc == 0 && bad == 0 && bytes >= (8u << 20) && walk_threaded(&w), what, "%s", why);
    pv_walk_end(&w);
    unsetenv("PERFVTAB_UNPACK_THREAD_MIN");
    pv_file_close(f);
    free(image);
}

/* A walk that pauses now and then, so that the thread fills every block
 * and sleeps until half of them are free again (unpack.c, REFILL_AT): it
 * is woken before the walk runs out, and every record comes, in order. */
static void pausing_walk_wakes_thread(void)
{
    const char *what = "a walk pausing while its thread waits for free blocks gets every record, in order";
    uint8_t *image;
    pv_file *f = open_big_compressed(what, &image);
    if (!f)
        return;
    pv_error err;
    setenv("PERFVTAB_UNPACK_THREAD_MIN", "0", 1);
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    int rc;
    uint64_t n = 0, bad = 0, bytes = 0, pauses = 0;
    while ((rc = pv_walk_next(&w, &rec, &err)) == 1) {
        if (!rec.compressed)
            continue;
        bad += !record_as_written(&rec, n);
        bytes += rec.size;
        n++;
        /* about every 700 KB, 12 times: the thread fills the ring meanwhile */
        if (n % 20000 == 0 && pauses < 12) {
            usleep(10000);
            pauses++;
        }
    }
    char why[1024];
    snprintf(why, sizeof why, "rc %d, %llu records, %llu bytes, %llu wrong, %llu pauses: %s", rc,
             (unsigned long long)n, (unsigned long long)bytes, (unsigned long long)bad,
             (unsigned long long)pauses, rc < 0 ? err.msg : "");
    check(rc == 0 && bad == 0 && bytes >= (8u << 20) && pauses == 12 && walk_threaded(&w),
          what, "%s", why);
    pv_walk_end(&w);
    unsetenv("PERFVTAB_UNPACK_THREAD_MIN");
    pv_file_close(f);
    free(image);
}

/* A compressed file walked from disk without a thread and from memory with
 * one (PERFVTAB_UNPACK_THREAD_MIN): the same records, byte for byte; the
 * thread ends with the walk, however far it got. */
static void threaded_same_as_inline(const char *path)
{
    char what[512], why[2048] = "";
    snprintf(what, sizeof what, "%s: records decompressed on a thread equal those without", path);
    twin_files t;
    if (!open_twins(path, what, &t))
        return;
    pv_file *disk = t.disk, *mem = t.mem;
    pv_error err;
    int threads_before = nr_threads();
    pv_walk a, b;
    pv_walk_start(&a, disk);
    pv_walk_start(&b, mem);
    uint64_t n = 0;
    bool a_threaded = false, b_threaded = false;
    int threads_during = 0;
    for (;;) {
        pv_record ra, rb;
        pv_error ea, eb;
        /* read when the walk meets its first container */
        setenv("PERFVTAB_UNPACK_THREAD_MIN", "18446744073709551615", 1);
        int rca = pv_walk_next(&a, &ra, &ea);
        setenv("PERFVTAB_UNPACK_THREAD_MIN", "0", 1);
        int rcb = pv_walk_next(&b, &rb, &eb);
        a_threaded |= walk_threaded(&a);
        if (walk_threaded(&b) && !b_threaded)
            threads_during = nr_threads();
        b_threaded |= walk_threaded(&b);
        if (!walks_agree(n, rca, rcb, &ra, &rb, &ea, &eb, why, sizeof why))
            break;
        n++;
    }
    pv_walk_end(&a);
    pv_walk_end(&b);
    if (!why[0] && (a_threaded || !b_threaded))
        snprintf(why, sizeof why, "threaded without %d, with %d", a_threaded, b_threaded);
    check(!why[0], what, "%s", why);
    /* The thread may finish its small input and exit before it is counted,
     * so "during" is at most one more; that none is left after the walk is
     * what holds whatever the timing. */
    snprintf(what, sizeof what, "%s: the decompressing thread runs during the walk only", path);
    int threads_after = nr_threads_settled(threads_before);
    snprintf(why, sizeof why, "%d threads before, %d during, %d after", threads_before,
             threads_during, threads_after);
    check(threads_during <= threads_before + 1 && threads_after == threads_before, what, "%s", why);

    /* ended, or moved by a seek, a few records into the first container */
    for (int how = 0; how < 2; how++) {
        pv_walk w;
        pv_walk_start(&w, mem);
        pv_record rec;
        int rc;
        while ((rc = pv_walk_next(&w, &rec, &err)) == 1 && !rec.compressed)
            ;
        for (int k = 0; rc == 1 && k < 3; k++)
            rc = pv_walk_next(&w, &rec, &err);
        bool was = walk_threaded(&w);
        int after;
        if (how == 1) {
            pv_walk_seek(&w, 0, mem->data_section.offset, 0);
            after = nr_threads_settled(threads_before);
            pv_walk_end(&w);
        } else {
            pv_walk_end(&w);
            after = nr_threads_settled(threads_before);
        }
        snprintf(what, sizeof what, "%s: a walk %s inside compressed data stops its thread", path,
                 how ? "moved by a seek" : "ended");
        snprintf(why, sizeof why, "rc %d, threaded %d, %d threads after", rc, was, after);
        check(rc == 1 && was && after == threads_before, what, "%s", why);
    }
    unsetenv("PERFVTAB_UNPACK_THREAD_MIN");

    /* By default, a small file is not worth a thread. */
    pv_walk w;
    pv_walk_start(&w, disk);
    pv_record rec;
    bool any = false;
    while (pv_walk_next(&w, &rec, &err) == 1)
        any |= w.unpacked.source != NULL && !walk_threaded(&w);
    pv_walk_end(&w);
    snprintf(what, sizeof what, "%s: %llu bytes of data decompressed without a thread", path,
             (unsigned long long)disk->data_section.size);
    check(any && disk->data_section.size < PV_UNPACK_THREAD_MIN, what, "threaded");
    close_twins(&t);
}

/* tests/bad_input/base.data with a data section of the n bytes given. */
static uint8_t *image_with_data(const uint8_t *data, uint64_t n, uint64_t *size)
{
    uint64_t base_size;
    uint8_t *base = slurp("tests/bad_input/base.data", &base_size);
    uint8_t *image = base ? malloc(base_size + n) : NULL;
    if (!image || base_size < 104) {
        free(base), free(image);
        return NULL;
    }
    memcpy(image, base, (size_t)base_size);
    memcpy(image + base_size, data, (size_t)n);
    bb_store(image + 40, base_size, 8, false);
    bb_store(image + 48, n, 8, false);
    memset(image + 72, 0, 32);
    free(base);
    *size = base_size + n;
    return image;
}

/* Walks the image to its end: the types and sizes met, and the walk's end. */
static void walk_image(const char *what, const uint8_t *data, uint64_t n, const char *want,
                       const char *want_error)
{
    uint64_t size;
    uint8_t *image = image_with_data(data, n, &size);
    pv_file *f = NULL;
    pv_error err;
    if (!image || pv_file_open_memory("compressed2", image, size, &f, &err)) {
        check(false, what, "%s", image ? err.msg : "cannot make the image");
        free(image);
        return;
    }
    char got[512] = "";
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    int rc;
    while ((rc = pv_walk_next(&w, &rec, &err)) == 1 && strlen(got) < sizeof got - 32)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%u/%u", *got ? " " : "",
                 rec.type, rec.size);
    pv_walk_end(&w);
    bool error_ok = want_error ? rc < 0 && strstr(err.msg, want_error) : rc == 0;
    check(strcmp(got, want) == 0 && error_ok, what, "got '%s' (rc %d%s%s), want '%s'%s%s", got,
          rc, rc < 0 ? ": " : "", rc < 0 ? err.msg : "", want, want_error ? ", error " : "",
          want_error ? want_error : "");
    pv_file_close(f);
    free(image);
}

/* COMPRESSED2 records whose header.size and data_size disagree (perf 6.16's
 * writer; file_walk.c): sized by what follows them, or, when nothing
 * proves a size, an error as before. */
static void compressed2_sizes(void)
{
    uint8_t record[16] = {0}, frame[64], data[256];
    bb_store(record, 100, 4, false);
    bb_store(record + 6, 16, 2, false);
    size_t z = ZSTD_compress(frame, sizeof frame, record, sizeof record, 1);
    if (ZSTD_isError(z)) {
        check(false, "COMPRESSED2 sizes", "zstd cannot compress");
        return;
    }
    /* header.size 0 (65536 cut to 16 bits), data_size right, no padding,
     * then a FINISHED_ROUND */
    memset(data, 0, sizeof data);
    bb_store(data, 83, 4, false);
    bb_store(data + 8, z, 8, false);
    memcpy(data + 16, frame, z);
    bb_store(data + 16 + z, 68, 4, false);
    bb_store(data + 16 + z + 6, 8, 2, false);
    char want[64];
    snprintf(want, sizeof want, "83/%zu 100/16 68/8", 16 + z);
    walk_image("COMPRESSED2 of header.size 0: sized by data_size, the next record there",
               data, 16 + z + 8, want, NULL);
    /* data_size past the end: nothing proves a size */
    bb_store(data + 8, (uint64_t)1 << 62, 8, false);
    walk_image("COMPRESSED2 of header.size 0 and data_size past the end: an error", data,
               16 + z + 8, "", "has size 0 (< 8)");
    /* data_size where no record starts (inside the FINISHED_ROUND) */
    bb_store(data + 8, z + 4, 8, false);
    walk_image("COMPRESSED2 of header.size 0 and data_size ending where no record starts: "
               "an error", data, 16 + z + 8, "", "has size 0 (< 8)");
}

static void skip_absent(const char *path, const char *what)
{
    printf("ok - %s: %s # SKIP input absent: %s\n", path, what, path);
}

int main(void)
{
    const char *big =
        "tests/corpus/perf_data_converter/src/testdata/single-event-multi-process.perf.data";
    const char *files[] = {
        big,
        "tests/fixtures/dwarf.data",
        "tests/fixtures/multi.data",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        same_records(files[i]);
    const char *shared = getenv("PV_SHARED");
    char other[1024];
    snprintf(other, sizeof other, "%s/corpus/simpleperf/simpleperf/testdata/generated_by_linux_perf.data",
             shared ? shared : "../shared");
    bool have_other = access(other, R_OK) == 0;
    if (have_other)
        same_records(other);
    else
        skip_absent(other, "records read by pread windows equal the image in memory");
    shrinks_under_walk(big);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        fixed_matches_full(files[i]);
    fixed_matches_full("tests/fixtures/datasrc.data");
    if (have_other)
        fixed_matches_full(other);
    else
        skip_absent(other, "fixed-field sample decoding equals the full decode");
    threaded_same_as_inline("tests/corpus/linux-perf-data/tests/fixtures/sleep.compressed.data");
    threaded_same_as_inline("tests/fixtures/tracepoint_zfile.data");
    stops_busy_thread();
    pausing_walk_wakes_thread();
    compressed2_sizes();
    return failures ? 1 : 0;
}
