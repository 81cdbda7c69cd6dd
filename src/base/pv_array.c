#include "base/pv_array.h"
#include "base/pv_alloc.h"

#include <stdint.h>
#include <stdlib.h>

bool pv_array_grow_to(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem)
            return false;
        n *= 2;
    }
    void *p = pv_realloc(*array, n * elem);
    if (!p)
        return false;
    *array = p;
    *cap = n;
    return true;
}

void pv_array_trim(void **array, size_t *cap, size_t nr, size_t elem)
{
    if (nr == 0 || nr >= *cap)
        return;
    void *smaller = realloc(*array, nr * elem);
    if (smaller) {
        *array = smaller;
        *cap = nr;
    }
}
