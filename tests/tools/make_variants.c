/*
 * Makes files that hold the same records as a recording, differently laid
 * out, for the bench and the tests:
 *
 *   make_variants inflate IN OUT K    the data section repeated K times
 *                                     (a big file from a small one; the
 *                                     features follow, offsets moved)
 *   make_variants compress IN OUT     the data section as COMPRESSED records:
 *                                     one zstd stream, flushed every ~32 KiB
 *                                     of whole records, as `perf record -z`
 *   make_variants twin IN REPEAT FLUSH TYPE PLAIN_OUT ZSTD_OUT
 *                                     two files for comparing the compressed
 *                                     walk with the plain one on long
 *                                     streams: IN's records up to the first
 *                                     SAMPLE (the synthesized ones perf
 *                                     writes as they are) stay uncompressed;
 *                                     the rest of its data section, repeated
 *                                     REPEAT times, follows in PLAIN_OUT as
 *                                     it is, and in ZSTD_OUT as one zstd
 *                                     stream (level 1, never ended, as
 *                                     perf's) cut into COMPRESSED (TYPE 81)
 *                                     or COMPRESSED2 (TYPE 83) records every
 *                                     FLUSH bytes whatever the record
 *                                     boundaries, so that records span
 *                                     containers
 *
 * Only for little-endian file-mode recordings.  Header, attrs and feature
 * sections are copied, feature offsets moved.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define HEADER_SIZE 104
#define RECORD_SAMPLE 9
#define RECORD_COMPRESSED 81
#define RECORD_COMPRESSED2 83
#define CHUNK (32u << 10)
#define MAX_FLUSH 60000u

static uint8_t *slurp(const char *path, uint64_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp || fseek(fp, 0, SEEK_END) != 0) {
        perror(path);
        exit(1);
    }
    long n = ftell(fp);
    rewind(fp);
    uint8_t *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        perror(path);
        exit(1);
    }
    fclose(fp);
    *size = (uint64_t)n;
    return buf;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static void out(FILE *fp, const void *p, uint64_t n)
{
    if (n && fwrite(p, 1, (size_t)n, fp) != (size_t)n) {
        perror("write");
        exit(1);
    }
}

/* Writes header + everything before the data, then data (written by
 * write_data, which returns its size), then the feature index with its
 * offsets moved and the feature sections. */
static void rewrite(const uint8_t *in, uint64_t size, const char *path,
                    uint64_t (*write_data)(FILE *, const uint8_t *, uint64_t, void *), void *arg)
{
    if (size < HEADER_SIZE || memcmp(in, "PERFILE2", 8) != 0) {
        fprintf(stderr, "not a little-endian file-mode perf.data\n");
        exit(1);
    }
    uint64_t data_offset = get64(in + 40), data_size = get64(in + 48);
    uint64_t data_end = data_offset + data_size;
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        exit(1);
    }
    out(fp, in, data_offset);
    uint64_t new_size = write_data(fp, in + data_offset, data_size, arg);
    int64_t shift = (int64_t)new_size - (int64_t)data_size;
    /* the feature index: one {offset, size} per feature bit set */
    unsigned nr = 0;
    for (int i = 0; i < 4; i++)
        nr += (unsigned)__builtin_popcountll(get64(in + 72 + 8 * i));
    uint8_t *index = malloc(16u * nr + 1);
    memcpy(index, in + data_end, 16u * nr);
    for (unsigned k = 0; k < nr; k++)
        put64(index + 16 * k, get64(index + 16 * k) + (uint64_t)shift);
    out(fp, index, 16u * nr);
    out(fp, in + data_end + 16u * nr, size - data_end - 16u * nr);
    uint8_t header[HEADER_SIZE];
    memcpy(header, in, HEADER_SIZE);
    put64(header + 48, new_size);
    if (fseek(fp, 0, SEEK_SET) != 0) {
        perror(path);
        exit(1);
    }
    out(fp, header, HEADER_SIZE);
    if (fclose(fp) != 0) {
        perror(path);
        exit(1);
    }
    free(index);
}

static uint64_t repeat_data(FILE *fp, const uint8_t *data, uint64_t n, void *arg)
{
    unsigned k = *(unsigned *)arg;
    for (unsigned i = 0; i < k; i++)
        out(fp, data, n);
    return n * k;
}

/* One container holding the zstd bytes of n raw bytes at p. */
static uint64_t write_container(FILE *fp, ZSTD_CCtx *z, const uint8_t *p, uint64_t n,
                                uint32_t type)
{
    static uint8_t packed[65536];
    uint64_t head = type == RECORD_COMPRESSED2 ? 16 : 8;
    ZSTD_inBuffer in = {p, (size_t)n, 0};
    ZSTD_outBuffer zout = {packed + head, sizeof packed - head - 8, 0};
    size_t left;
    do {
        left = ZSTD_compressStream2(z, &zout, &in, ZSTD_e_flush);
        if (ZSTD_isError(left)) {
            fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(left));
            exit(1);
        }
    } while (left != 0);
    uint64_t size = head + zout.pos;
    if (type == RECORD_COMPRESSED2) {
        put64(packed + 8, zout.pos);
        while (size % 8)
            packed[size++] = 0;
    }
    uint16_t misc = 0, size16 = (uint16_t)size;
    memcpy(packed, &type, 4);
    memcpy(packed + 4, &misc, 2);
    memcpy(packed + 6, &size16, 2);
    out(fp, packed, size);
    return size;
}

static uint64_t compress_data(FILE *fp, const uint8_t *data, uint64_t n, void *arg)
{
    (void)arg;
    ZSTD_CCtx *z = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 1);
    uint64_t written = 0, at = 0;
    while (at < n) {
        /* whole records, up to CHUNK bytes */
        uint64_t end = at;
        while (end < n) {
            uint16_t rsize;
            memcpy(&rsize, data + end + 6, 2);
            if (rsize < 8 || (end > at && end - at + rsize > CHUNK))
                break;
            end += rsize;
        }
        if (end == at)
            break;
        written += write_container(fp, z, data + at, end - at, RECORD_COMPRESSED);
        at = end;
    }
    ZSTD_freeCCtx(z);
    return written;
}

typedef struct twin {
    const uint8_t *prefix, *rest;
    uint64_t prefix_size, rest_size;
    unsigned repeat;
    uint64_t flush;
    uint32_t type;
} twin;

static uint64_t write_plain(FILE *fp, const uint8_t *data, uint64_t n, void *arg)
{
    (void)data;
    (void)n;
    const twin *t = arg;
    out(fp, t->prefix, t->prefix_size);
    for (unsigned i = 0; i < t->repeat; i++)
        out(fp, t->rest, t->rest_size);
    return t->prefix_size + t->rest_size * t->repeat;
}

static uint64_t write_zstd(FILE *fp, const uint8_t *data, uint64_t n_data, void *arg)
{
    (void)data;
    (void)n_data;
    const twin *t = arg;
    out(fp, t->prefix, t->prefix_size);
    uint64_t written = t->prefix_size;
    ZSTD_CCtx *z = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 1);
    /* the repeated records as one run of bytes, cut every flush bytes */
    uint64_t total = t->rest_size * t->repeat, at = 0;
    while (at < total) {
        uint64_t n = total - at < t->flush ? total - at : t->flush;
        uint64_t in_copy = at % t->rest_size;
        static uint8_t chunk[MAX_FLUSH];
        for (uint64_t k = 0; k < n;) {
            uint64_t piece = t->rest_size - in_copy < n - k ? t->rest_size - in_copy : n - k;
            memcpy(chunk + k, t->rest + in_copy, (size_t)piece);
            k += piece;
            in_copy = 0;
        }
        written += write_container(fp, z, chunk, n, t->type);
        at += n;
    }
    ZSTD_freeCCtx(z);
    return written;
}

static int make_twin(char **argv)
{
    uint64_t size;
    uint8_t *in = slurp(argv[1], &size);
    twin t = {.repeat = (unsigned)atoi(argv[2]), .flush = strtoull(argv[3], NULL, 0),
              .type = (uint32_t)atoi(argv[4])};
    if (size < HEADER_SIZE || memcmp(in, "PERFILE2", 8) != 0 || t.repeat == 0 ||
        t.flush == 0 || t.flush > MAX_FLUSH ||
        (t.type != RECORD_COMPRESSED && t.type != RECORD_COMPRESSED2)) {
        fprintf(stderr, "make_variants twin: needs a little-endian file-mode perf.data, REPEAT > 0, "
                "0 < FLUSH <= %u, TYPE 81 or 83\n", MAX_FLUSH);
        return 2;
    }
    uint64_t data_offset = get64(in + 40), data_size = get64(in + 48);
    if (data_offset > size || size - data_offset < data_size) {
        fprintf(stderr, "%s: data section past the end\n", argv[1]);
        return 1;
    }
    const uint8_t *data = in + data_offset;
    uint64_t at = 0;
    while (at + 8 <= data_size) {
        uint32_t type;
        uint16_t rsize;
        memcpy(&type, data + at, 4);
        memcpy(&rsize, data + at + 6, 2);
        if (type == RECORD_SAMPLE || rsize < 8 || data_size - at < rsize)
            break;
        at += rsize;
    }
    t.prefix = data;
    t.prefix_size = at;
    t.rest = data + at;
    t.rest_size = data_size - at;
    if (t.rest_size == 0) {
        fprintf(stderr, "%s: no records after the synthesized ones\n", argv[1]);
        return 1;
    }
    rewrite(in, size, argv[5], write_plain, &t);
    rewrite(in, size, argv[6], write_zstd, &t);
    free(in);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 8 && strcmp(argv[1], "twin") == 0)
        return make_twin(argv + 1);
    if (argc >= 4 && strcmp(argv[1], "compress") == 0) {
        uint64_t size;
        uint8_t *in = slurp(argv[2], &size);
        rewrite(in, size, argv[3], compress_data, NULL);
        free(in);
        return 0;
    }
    if (argc >= 5 && strcmp(argv[1], "inflate") == 0) {
        uint64_t size;
        uint8_t *in = slurp(argv[2], &size);
        unsigned k = (unsigned)atoi(argv[4]);
        rewrite(in, size, argv[3], repeat_data, &k);
        free(in);
        return 0;
    }
    fprintf(stderr, "usage: make_variants inflate IN OUT K | compress IN OUT |\n"
                    "       make_variants twin IN REPEAT FLUSH TYPE PLAIN_OUT ZSTD_OUT\n");
    return 2;
}
