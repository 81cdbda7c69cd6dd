/*
 * Hashes of byte strings, for the reader's hash tables.
 */
#ifndef PV_BYTE_HASH_H
#define PV_BYTE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A hash of the n bytes at p, going on from h (0 to start): eight bytes
 * a step, for keys hashed often (names, stacks). */
uint64_t pv_hash_bytes(uint64_t h, const void *p, size_t n);

/* Where FNV-1a starts. */
#define PV_FNV1A_START 0xcbf29ce484222325u

/* FNV-1a (64-bit) of the n bytes at p, going on from h (PV_FNV1A_START to
 * start): a byte a step, for hashes whose values are kept or shown (a
 * flame graph's colours) and must not change. */
static inline uint64_t pv_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3u;
    return h;
}

#endif
