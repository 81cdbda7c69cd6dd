/*
 * The unit tests' byte builder: perf.data bytes laid out in memory, in
 * either byte order, for the reader to decode.  A builder holds one record
 * or one feature section at a time:
 *
 *     byte_builder b;
 *     bb_record_begin(&b, PV_RECORD_COMM, 0, big_endian);
 *     bb_u32(&b, pid);
 *     ...
 *     pv_record r = bb_record_end(&b);     (the header's size is patched)
 *
 * A builder that fills up aborts the test: a check must never read past
 * what was built.
 */
#ifndef PV_BYTE_BUILDER_H
#define PV_BYTE_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/byte_reader.h"
#include "stream/record_walk.h"

/* Where every built record claims to sit in its file (messages name it). */
#define BB_RECORD_OFFSET 0x1a38
#define BB_RECORD_HEADER_SIZE 8

typedef struct byte_builder {
    uint8_t bytes[8192];
    size_t n;           /* bytes written so far */
    bool big_endian;    /* write big-endian (the host is little-endian in CI) */
} byte_builder;

/* Stores the low width bytes of v at p, in the given byte order. */
static inline void bb_store(uint8_t *p, uint64_t v, int width, bool big_endian)
{
    for (int i = 0; i < width; i++) {
        int shift = big_endian ? 8 * (width - 1 - i) : 8 * i;
        p[i] = (uint8_t)(v >> shift);
    }
}

/* The next n bytes of b, which are written by the caller. */
static inline uint8_t *bb_claim(byte_builder *b, size_t n)
{
    if (n > sizeof b->bytes - b->n) {
        fprintf(stderr, "byte_builder: %zu more bytes do not fit after %zu\n", n, b->n);
        abort();
    }
    uint8_t *at = b->bytes + b->n;
    b->n += n;
    return at;
}

/* Empties b; what follows is written in the given byte order. */
static inline void bb_reset(byte_builder *b, bool big_endian)
{
    memset(b, 0, sizeof *b);
    b->big_endian = big_endian;
}

static inline void bb_uint(byte_builder *b, uint64_t v, int width)
{
    bb_store(bb_claim(b, (size_t)width), v, width, b->big_endian);
}

static inline void bb_u8(byte_builder *b, uint64_t v) { bb_uint(b, v, 1); }
static inline void bb_u16(byte_builder *b, uint64_t v) { bb_uint(b, v, 2); }
static inline void bb_u32(byte_builder *b, uint64_t v) { bb_uint(b, v, 4); }
static inline void bb_u64(byte_builder *b, uint64_t v) { bb_uint(b, v, 8); }

static inline void bb_bytes(byte_builder *b, const void *p, size_t n)
{
    memcpy(bb_claim(b, n), p, n);
}

static inline void bb_zeros(byte_builder *b, size_t n)
{
    memset(bb_claim(b, n), 0, n);
}

/* s cut or NUL-padded to exactly n bytes (a record's char array). */
static inline void bb_padded_string(byte_builder *b, const char *s, size_t n)
{
    size_t len = strlen(s);
    uint8_t *at = bb_claim(b, n);
    memset(at, 0, n);
    memcpy(at, s, len < n ? len : n);
}

/* A perf_header_string of the feature sections: u32 len, then s with its
 * NUL padded to a multiple of 8 (perf pads to 64; any padding must do). */
static inline void bb_header_string(byte_builder *b, const char *s)
{
    size_t len = strlen(s);
    size_t padded = (len + 1 + 7) / 8 * 8;
    bb_u32(b, (uint32_t)padded);
    bb_bytes(b, s, len);
    bb_zeros(b, padded - len);
}

/* ---- records: an 8-byte header (u32 type, u16 misc, u16 size), then the body ---- */

/* Starts a record whose header is written by bb_record_finish. */
static inline void bb_record_start(byte_builder *b, bool big_endian)
{
    bb_reset(b, big_endian);
    bb_zeros(b, BB_RECORD_HEADER_SIZE);
}

/* Starts a record of that type and misc; bb_record_end writes its size. */
static inline void bb_record_begin(byte_builder *b, uint32_t type, uint16_t misc, bool big_endian)
{
    bb_reset(b, big_endian);
    bb_u32(b, type);
    bb_u16(b, misc);
    bb_u16(b, 0);
}

/* Writes the header, with size the bytes built so far, or size_override
 * when not 0, and returns the record as the walker would hand it out.
 * Finishing again re-types the same body. */
static inline pv_record bb_record_finish(byte_builder *b, uint32_t type, uint16_t misc,
                                         uint16_t size_override)
{
    uint16_t size = size_override ? size_override : (uint16_t)b->n;
    bb_store(b->bytes, type, 4, b->big_endian);
    bb_store(b->bytes + 4, misc, 2, b->big_endian);
    bb_store(b->bytes + 6, size, 2, b->big_endian);
    pv_record r = {
        .index = 0, .file_offset = BB_RECORD_OFFSET, .type = type, .misc = misc,
        .size = size, .bytes = b->bytes,
    };
    return r;
}

/* bb_record_finish with the type and misc bb_record_begin wrote. */
static inline pv_record bb_record_end(byte_builder *b)
{
    return bb_record_finish(b, pv_load_u32(b->bytes, b->big_endian),
                            pv_load_u16(b->bytes + 4, b->big_endian), 0);
}

#endif
