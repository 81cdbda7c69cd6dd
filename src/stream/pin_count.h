/*
 * The count of pinned records a buffer keeps, shared by the two kinds of
 * buffer records are pinned in: the read windows (file_walk.h) and the
 * decompressed blocks (record_walk.h).  A pinned record's place names its
 * ordinal as a 16-bit step from the buffer's first pinned one.
 */
#ifndef PV_PIN_COUNT_H
#define PV_PIN_COUNT_H

#include <stdbool.h>
#include <stdint.h>

/* Pins the record of ordinal index in a buffer holding *pins pinned
 * records from *first_index on, where *nr_pinned buffers of at most
 * max_pinned have pins; false (nothing changed) when it cannot: a new
 * buffer past max_pinned, or an ordinal its step cannot reach. */
static inline bool pv_pin_count_take(uint32_t *pins, uint64_t *first_index, uint32_t *nr_pinned,
                                     uint32_t max_pinned, uint64_t index, uint16_t *ordinal_step)
{
    if (*pins == 0) {
        if (*nr_pinned >= max_pinned)
            return false;
        *first_index = index;
    } else if (index < *first_index || index - *first_index > UINT16_MAX) {
        return false;
    }
    if ((*pins)++ == 0)
        (*nr_pinned)++;
    *ordinal_step = (uint16_t)(index - *first_index);
    return true;
}

#endif
