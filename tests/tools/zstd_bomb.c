/*
 * zstd_bomb: writes a small perf.data whose COMPRESSED records expand to a
 * huge record stream (a decompression bomb): BASE's header and attrs, no
 * features, and a data section of COMPRESSED (81) containers holding one
 * zstd stream of N copies of an 8-byte record of unknown type 100.
 *
 *   zstd_bomb BASE OUT MEGABYTES_DECOMPRESSED
 *
 * zstd compresses the repetition about 10000:1, so the file stays small
 * while a reader walks MEGABYTES of records.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#define CONTAINER_DATA 60000

static void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_u16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: zstd_bomb BASE OUT MEGABYTES_DECOMPRESSED\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in)
        return perror(argv[1]), 1;
    static uint8_t base[1 << 20];
    size_t base_size = fread(base, 1, sizeof base, in);
    fclose(in);
    uint64_t attrs_offset, attrs_size;
    memcpy(&attrs_offset, base + 24, 8);
    memcpy(&attrs_size, base + 32, 8);
    if (base_size < 104 || attrs_offset + attrs_size > base_size)
        return fprintf(stderr, "%s: not a little-endian perf.data\n", argv[1]), 1;

    /* the raw stream: 8-byte records {type 100, misc 0, size 8} */
    size_t raw_size = (size_t)strtoull(argv[3], NULL, 0) << 20;
    uint8_t *raw = malloc(raw_size);
    for (size_t i = 0; i + 8 <= raw_size; i += 8) {
        put_u32(raw + i, 100);
        put_u16(raw + i + 4, 0);
        put_u16(raw + i + 6, 8);
    }
    size_t bound = ZSTD_compressBound(raw_size);
    uint8_t *packed = malloc(bound);
    size_t packed_size = ZSTD_compress(packed, bound, raw, raw_size, 19);
    if (ZSTD_isError(packed_size))
        return fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(packed_size)), 1;

    FILE *out = fopen(argv[2], "wb");
    if (!out)
        return perror(argv[2]), 1;
    /* header and attrs as in base, data after them, no features */
    uint64_t data_offset = base_size;
    uint64_t containers = (packed_size + CONTAINER_DATA - 1) / CONTAINER_DATA;
    uint64_t data_size = packed_size + containers * 8;
    uint8_t header[104];
    memcpy(header, base, 104);
    put_u64(header + 40, data_offset);
    put_u64(header + 48, data_size);
    memset(header + 72, 0, 32);
    fwrite(header, 1, 104, out);
    fwrite(base + 104, 1, base_size - 104, out);
    for (size_t at = 0; at < packed_size; at += CONTAINER_DATA) {
        size_t n = packed_size - at < CONTAINER_DATA ? packed_size - at : CONTAINER_DATA;
        uint8_t h[8];
        put_u32(h, 81);
        put_u16(h + 4, 0);
        put_u16(h + 6, (uint16_t)(n + 8));
        fwrite(h, 1, 8, out);
        fwrite(packed + at, 1, n, out);
    }
    fclose(out);
    printf("%zu MB of records in %zu bytes of zstd\n", raw_size >> 20, packed_size);
    free(raw);
    free(packed);
    return 0;
}
