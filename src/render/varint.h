/*
 * Base-128 varints, protobuf's encoding of an integer: seven bits a byte,
 * low bits first, the high bit set on every byte but the last (1 to 10
 * bytes for a uint64).  The pprof profile is written in them, and its
 * builder keeps its locations and samples in them, a few bytes per number
 * where a uint64 takes eight.
 */
#ifndef PV_VARINT_H
#define PV_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define PV_VARINT_MAX 10

/* Writes v at out (room for PV_VARINT_MAX bytes); the bytes written. */
static inline size_t pv_varint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* The bytes v takes. */
static inline size_t pv_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Reads a varint from [*p, end) into *v, moving *p past it; 0 when the
 * bytes end first or it is longer than a uint64's (the caller's own keys
 * only: never file bytes). */
static inline int pv_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t c = *(*p)++;
        r |= (uint64_t)(c & 0x7f) << shift;
        if (c < 0x80) {
            *v = r;
            return 1;
        }
    }
    return 0;
}

#endif
