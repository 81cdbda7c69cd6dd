#include "base/byte_hash.h"

#include <string.h>

/* Eight bytes a step: a function name hashed a byte at a time costs more
 * than the rest of a row. */
uint64_t pv_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    const uint64_t k = 0x9e3779b97f4a7c15u;
    for (; n >= 8; b += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t tail = n;
    for (size_t i = 0; i < n; i++)
        tail = (tail << 8) | b[i];
    h = (h ^ tail) * k;
    return h ^ (h >> 32);
}
