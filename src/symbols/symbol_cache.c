#include "symbols/symbol_cache.h"
#include "base/pv_alloc.h"

#include <stdlib.h>

bool pv_symbol_cache_alloc(pv_symbol_cache *c)
{
    if (c->failed)
        return false;
    c->slots = pv_malloc(PV_SYMBOL_CACHE_SLOTS * sizeof *c->slots);
    if (!c->slots) {
        c->failed = true;
        return false;
    }
    for (uint32_t i = 0; i < PV_SYMBOL_CACHE_SLOTS; i++)
        c->slots[i].dso = PV_SYMBOL_CACHE_EMPTY;
    return true;
}

void pv_symbol_cache_free(pv_symbol_cache *c)
{
    free(c->slots);
    c->slots = NULL;
    c->failed = false;
}
