/*
 * Growing the arrays the reader keeps (maps, symbols, groups...): one
 * doubling rule, with the size arithmetic checked.
 */
#ifndef PV_ARRAY_H
#define PV_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *array (of *cap elements of elem bytes) hold at least need
 * elements, doubling its capacity; false when that overflows or memory
 * runs out, the array then as it was.  Inline: most calls (one per
 * element added) find the room there. */
bool pv_array_grow_to(void **array, size_t *cap, size_t need, size_t elem);
static inline bool pv_array_grow(void **array, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap || pv_array_grow_to(array, cap, need, elem);
}

/* Gives back what *array holds beyond its first nr elements (for an
 * array that is complete); kept as it is when the smaller block cannot
 * be had. */
void pv_array_trim(void **array, size_t *cap, size_t nr, size_t elem);

#endif
