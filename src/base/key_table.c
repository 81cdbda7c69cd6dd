#include "base/key_table.h"

#include <stdlib.h>
#include <string.h>

#include "base/byte_hash.h"
#include "base/pv_alloc.h"
#include "base/pv_array.h"

void pv_key_table_free(pv_key_table *t)
{
    free(t->bytes);
    free(t->starts);
    free(t->wraps);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

void pv_key_table_drop_lookup(pv_key_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->nr_slots = 0;
}

void pv_key_table_trim(pv_key_table *t)
{
    if (t->nr == 0)
        return;
    /* one byte more: bytes is never NULL, even when every key is empty */
    pv_array_trim((void **)&t->bytes, &t->cap_bytes, t->nr_bytes + 1, 1);
    pv_array_trim((void **)&t->starts, &t->cap, t->nr + 1, sizeof *t->starts);
    pv_array_trim((void **)&t->wraps, &t->cap_wraps, t->nr_wraps, sizeof *t->wraps);
}

static bool grow_slots(pv_key_table *t)
{
    size_t n = t->nr_slots ? t->nr_slots * 2 : 256;
    while ((t->nr + 1) * 4 > n * 3)     /* after pv_key_table_drop_lookup */
        n *= 2;
    uint32_t *slots = pv_calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < t->nr; i++) {
        size_t len;
        const void *key = pv_key_table_key(t, i, &len);
        size_t j = pv_hash_bytes(0, key, len) & (n - 1);
        while (slots[j])
            j = (j + 1) & (n - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->nr_slots = n;
    return true;
}

int64_t pv_key_table_intern(pv_key_table *t, const void *key, size_t len, bool *added)
{
    *added = false;
    /* numbers are stored as uint32 + 1 in the slots */
    if (t->nr >= UINT32_MAX - 1)
        return -1;
    if ((t->nr + 1) * 4 > t->nr_slots * 3 && !grow_slots(t))
        return -1;
    size_t j = pv_hash_bytes(0, key, len) & (t->nr_slots - 1);
    for (; t->slots[j]; j = (j + 1) & (t->nr_slots - 1)) {
        size_t i = t->slots[j] - 1, have;
        const void *other = pv_key_table_key(t, i, &have);
        if (have == len && memcmp(other, key, len) == 0)
            return (int64_t)i;
    }
    if (!pv_array_grow((void **)&t->starts, &t->cap, t->nr + 2, sizeof *t->starts))
        return -1;
    if (len > SIZE_MAX - 1 - t->nr_bytes ||
        !pv_array_grow((void **)&t->bytes, &t->cap_bytes, t->nr_bytes + len + 1, 1))
        return -1;
    /* + 1 above: bytes is never NULL, even when every key is empty */
    if (t->nr == 0)
        t->starts[0] = 0;
    if (len)
        memcpy(t->bytes + t->nr_bytes, key, len);
    /* the end of this key is start(nr + 1): each 4 GiB it passes is a wrap there */
    uint64_t end = (uint64_t)t->nr_bytes + len;
    size_t wraps = (size_t)(end >> 32);
    if (wraps > t->nr_wraps &&
        !pv_array_grow((void **)&t->wraps, &t->cap_wraps, wraps, sizeof *t->wraps))
        return -1;
    while (t->nr_wraps < wraps)
        t->wraps[t->nr_wraps++] = t->nr + 1;
    t->nr_bytes += len;
    t->starts[t->nr + 1] = (uint32_t)end;
    t->slots[j] = (uint32_t)(t->nr + 1);
    *added = true;
    return (int64_t)t->nr++;
}
