/*
 * Makes the bench's other files from its recording, so that they hold the
 * same records:
 *
 *   make_variants inflate IN OUT K    the data section repeated K times
 *                                     (a big file from a small one; the
 *                                     features follow, offsets moved)
 *   make_variants compress IN OUT     the data section as COMPRESSED records:
 *                                     one zstd stream, flushed every ~32 KiB
 *                                     of whole records, as `perf record -z`
 *
 * Only for little-endian file-mode recordings, which is what bench makes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define HEADER_SIZE 104
#define RECORD_COMPRESSED 81
#define CHUNK (32u << 10)

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
    fclose(fp);
    free(index);
}

static uint64_t repeat_data(FILE *fp, const uint8_t *data, uint64_t n, void *arg)
{
    unsigned k = *(unsigned *)arg;
    for (unsigned i = 0; i < k; i++)
        out(fp, data, n);
    return n * k;
}

static uint64_t compress_data(FILE *fp, const uint8_t *data, uint64_t n, void *arg)
{
    (void)arg;
    ZSTD_CCtx *z = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 1);
    static uint8_t buf[65536];
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
        ZSTD_inBuffer input = {data + at, (size_t)(end - at), 0};
        ZSTD_outBuffer output = {buf + 8, sizeof buf - 16, 0};
        size_t left;
        do {
            left = ZSTD_compressStream2(z, &output, &input, ZSTD_e_flush);
            if (ZSTD_isError(left)) {
                fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(left));
                exit(1);
            }
        } while (left != 0);
        uint64_t rec = 8 + output.pos;
        uint32_t type = RECORD_COMPRESSED;
        uint16_t misc = 0, size16 = (uint16_t)rec;
        memcpy(buf, &type, 4);
        memcpy(buf + 4, &misc, 2);
        memcpy(buf + 6, &size16, 2);
        out(fp, buf, rec);
        written += rec;
        at = end;
    }
    ZSTD_freeCCtx(z);
    return written;
}

int main(int argc, char **argv)
{
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
    fprintf(stderr, "usage: make_variants inflate IN OUT K | compress IN OUT\n");
    return 2;
}
