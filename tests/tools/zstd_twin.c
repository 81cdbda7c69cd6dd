/*
 * zstd_twin: writes two files holding the same records, one of them
 * compressed as `perf record -z` does, for comparing the compressed walk
 * with the plain one on streams longer than the fixtures' (many containers,
 * many blocks of decompressed bytes, records cut across containers).
 *
 *   zstd_twin IN REPEAT FLUSH TYPE PLAIN_OUT ZSTD_OUT
 *
 * IN: a little-endian file-mode perf.data.  Its records up to the first
 * SAMPLE (the synthesized ones perf writes as they are) stay uncompressed;
 * the rest of its data section, repeated REPEAT times, follows
 *   - in PLAIN_OUT as it is,
 *   - in ZSTD_OUT as one zstd stream (level 1, never ended, as perf's) cut
 *     into COMPRESSED (TYPE 81) or COMPRESSED2 (TYPE 83) records, flushed
 *     every FLUSH bytes of records whatever their boundaries, so that
 *     records span containers.
 * Header, attrs and feature sections are copied, feature offsets moved.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define HEADER_SIZE 104
#define RECORD_SAMPLE 9
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
    uint8_t *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        perror(path);
        exit(1);
    }
    fclose(fp);
    *size = (uint64_t)n;
    return buf;
}

static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void out(FILE *fp, const void *p, uint64_t n)
{
    if (n && fwrite(p, 1, (size_t)n, fp) != (size_t)n) {
        perror("write");
        exit(1);
    }
}

typedef struct twin {
    const uint8_t *prefix, *rest;
    uint64_t prefix_size, rest_size;
    unsigned repeat;
    uint64_t flush;
    uint32_t type;
} twin;

static uint64_t write_plain(FILE *fp, const twin *t)
{
    out(fp, t->prefix, t->prefix_size);
    for (unsigned i = 0; i < t->repeat; i++)
        out(fp, t->rest, t->rest_size);
    return t->prefix_size + t->rest_size * t->repeat;
}

/* One container holding the zstd bytes of n raw bytes at p. */
static uint64_t write_container(FILE *fp, ZSTD_CCtx *z, const uint8_t *p, uint64_t n,
                                uint32_t type)
{
    static uint8_t packed[65536];
    uint64_t head = type == 83 ? 16 : 8;
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
    if (type == 83) {
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

static uint64_t write_zstd(FILE *fp, const twin *t)
{
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

static void rewrite(const uint8_t *in, uint64_t size, const char *path, const twin *t,
                    uint64_t (*write_data)(FILE *, const twin *))
{
    uint64_t data_offset = get64(in + 40), data_size = get64(in + 48);
    uint64_t data_end = data_offset + data_size;
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        exit(1);
    }
    out(fp, in, data_offset);
    uint64_t new_size = write_data(fp, t);
    unsigned nr = 0;
    for (int i = 0; i < 4; i++)
        nr += (unsigned)__builtin_popcountll(get64(in + 72 + 8 * i));
    uint8_t *index = malloc(16u * nr + 1);
    memcpy(index, in + data_end, 16u * nr);
    for (unsigned k = 0; k < nr; k++)
        put64(index + 16 * k, get64(index + 16 * k) - data_size + new_size);
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

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: zstd_twin IN REPEAT FLUSH TYPE PLAIN_OUT ZSTD_OUT\n");
        return 2;
    }
    uint64_t size;
    uint8_t *in = slurp(argv[1], &size);
    twin t = {.repeat = (unsigned)atoi(argv[2]), .flush = strtoull(argv[3], NULL, 0),
              .type = (uint32_t)atoi(argv[4])};
    if (size < HEADER_SIZE || memcmp(in, "PERFILE2", 8) != 0 || t.repeat == 0 ||
        t.flush == 0 || t.flush > MAX_FLUSH || (t.type != 81 && t.type != 83)) {
        fprintf(stderr, "zstd_twin: needs a little-endian file-mode perf.data, REPEAT > 0, "
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
    rewrite(in, size, argv[5], &t, write_plain);
    rewrite(in, size, argv[6], &t, write_zstd);
    free(in);
    return 0;
}
