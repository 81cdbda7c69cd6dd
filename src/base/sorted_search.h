/*
 * Bisection over an array sorted by a uint64_t member: the symbol tables,
 * the maps and thread names of an address space, inline functions' ranges,
 * the ordinal index's marks and the lookup's stash all search this way.
 *
 * PV_UPPER_BOUND(array, nr, member, key): the index of the first element
 * whose member is above key (nr when none), so that the one before it is
 * the last at or below key.  PV_LOWER_BOUND: the first at or above key.
 */
#ifndef PV_SORTED_SEARCH_H
#define PV_SORTED_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t pv_sorted_key(const void *elems, size_t i, size_t stride, size_t key_offset)
{
    uint64_t k;
    memcpy(&k, (const char *)elems + i * stride + key_offset, sizeof k);
    return k;
}

/* The first index whose key is above key (or_equal: at or above it). */
static inline size_t pv_sorted_bound(const void *elems, size_t nr, size_t stride,
                                     size_t key_offset, uint64_t key, bool or_equal)
{
    size_t lo = 0, hi = nr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = pv_sorted_key(elems, mid, stride, key_offset);
        if (or_equal ? k < key : k <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The member's offset; the array of a negative size stops the build when the
 * member is not 64 bits wide (sizeof evaluates nothing, so array may be NULL). */
#define PV_SORTED_MEMBER_OFFSET(array, member) \
    (offsetof(__typeof__((array)[0]), member) + \
     0 * sizeof(char[sizeof((array)[0].member) == sizeof(uint64_t) ? 1 : -1]))
#define PV_UPPER_BOUND(array, nr, member, key) \
    pv_sorted_bound((array), (nr), sizeof (array)[0], PV_SORTED_MEMBER_OFFSET(array, member), (key), false)
#define PV_LOWER_BOUND(array, nr, member, key) \
    pv_sorted_bound((array), (nr), sizeof (array)[0], PV_SORTED_MEMBER_OFFSET(array, member), (key), true)

#endif
