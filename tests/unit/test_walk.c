/*
 * Unit test of the record walk's I/O: records read from a file in pread
 * windows must be the same bytes as from the image in memory, for files
 * bigger than one window; a file that shrinks while a walk is under way must
 * give an error naming the offset, not SIGBUS.
 *
 * Output: one line per check, "ok - what" or "not ok - what: why".
 * Runs from the repo root (tests/run.sh); PV_SHARED names ../shared.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_file.h"
#include "record_walk.h"
#include "perf_abi.h"
#include "sample.h"
#include "unit_check.h"

static uint8_t *slurp(const char *path, uint64_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    struct stat st;
    if (fstat(fileno(fp), &st) != 0) {
        fclose(fp);
        return NULL;
    }
    uint8_t *buf = malloc((size_t)st.st_size + 1);
    *size = (uint64_t)st.st_size;
    if (buf && fread(buf, 1, (size_t)st.st_size, fp) != (size_t)st.st_size) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    return buf;
}

/* Walks the file from disk and from memory side by side. */
static void same_records(const char *path)
{
    char what[512], why[2048] = "";
    snprintf(what, sizeof what, "%s: records read by pread windows equal the image in memory", path);
    uint64_t size;
    uint8_t *image = slurp(path, &size);
    if (!image) {
        check(false, what, "cannot read the file");
        return;
    }
    pv_file *disk = NULL, *mem = NULL;
    pv_error err;
    if (pv_file_open(path, &disk, &err) || pv_file_open_memory(path, image, size, &mem, &err)) {
        check(false, what, "%s", err.msg);
        pv_file_close(disk);
        free(image);
        return;
    }
    pv_walk a, b;
    pv_walk_start(&a, disk);
    pv_walk_start(&b, mem);
    uint64_t n = 0;
    for (;;) {
        pv_record ra, rb;
        pv_error ea, eb;
        int rca = pv_walk_next(&a, &ra, &ea);
        int rcb = pv_walk_next(&b, &rb, &eb);
        if (rca != rcb) {
            snprintf(why, sizeof why, "record %llu: %d vs %d", (unsigned long long)n, rca, rcb);
            break;
        }
        if (rca <= 0) {
            if (rca < 0 && strcmp(ea.msg, eb.msg) != 0)
                snprintf(why, sizeof why, "different errors: %s / %s", ea.msg, eb.msg);
            break;
        }
        if (ra.index != rb.index || ra.file_offset != rb.file_offset || ra.size != rb.size ||
            memcmp(ra.bytes, rb.bytes, ra.size) != 0) {
            snprintf(why, sizeof why, "record %llu at offset 0x%llx differs",
                     (unsigned long long)n, (unsigned long long)ra.file_offset);
            break;
        }
        n++;
    }
    pv_walk_end(&a);
    pv_walk_end(&b);
    if (!why[0] && n < 50)
        snprintf(why, sizeof why, "only %llu records: not a test of windows", (unsigned long long)n);
    check(!why[0], what, "%s", why);
    pv_file_close(disk);
    pv_file_close(mem);
    free(image);
}

static bool copy_file(const char *from, const char *to)
{
    uint64_t size;
    uint8_t *image = slurp(from, &size);
    if (!image)
        return false;
    FILE *fp = fopen(to, "wb");
    bool ok = fp && fwrite(image, 1, (size_t)size, fp) == (size_t)size;
    if (fp)
        ok = fclose(fp) == 0 && ok;
    free(image);
    return ok;
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
              strstr(err.msg, "shrank"), what, why);

    /* A feature section now past the end reads as an error too. */
    bool any = false, all_errors = true;
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++) {
        const uint8_t *bytes;
        uint64_t size, offset;
        if (!pv_file_has_feature(f, id))
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

int main(void)
{
    const char *shared = getenv("PV_SHARED");
    char big[1024];
    snprintf(big, sizeof big, "%s/corpus/perf_data_converter/src/testdata/single-event-multi-process.perf.data",
             shared ? shared : "../shared");
    const char *files[] = {
        big,
        "tests/fixtures/dwarf.data",
        "tests/fixtures/multi.data",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        same_records(files[i]);
    char other[1024];
    snprintf(other, sizeof other, "%s/corpus/simpleperf/simpleperf/testdata/generated_by_linux_perf.data",
             shared ? shared : "../shared");
    same_records(other);
    shrinks_under_walk(big);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        fixed_matches_full(files[i]);
    fixed_matches_full("tests/fixtures/datasrc.data");
    fixed_matches_full(other);
    return failures ? 1 : 0;
}
