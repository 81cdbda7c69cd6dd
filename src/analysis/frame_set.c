#include "analysis/frame_set.h"
#include "base/byte_hash.h"
#include "base/pv_alloc.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_key(const pv_frame_key *k)
{
    uint64_t h = (uint64_t)(uintptr_t)k->dso * 0x9e3779b97f4a7c15u;
    if (k->inlined)
        return mix(pv_fnv1a(h, k->sym, strlen(k->sym)) ^ 1);
    return mix(h ^ ((uint64_t)(uintptr_t)k->sym * 0xc2b2ae3d27d4eb4fu) ^ k->addr);
}

static bool same_key(const pv_frame_key *a, const pv_frame_key *b)
{
    if (a->inlined || b->inlined)
        return a->inlined == b->inlined && a->dso == b->dso && strcmp(a->sym, b->sym) == 0;
    return a->dso == b->dso && a->sym == b->sym && a->addr == b->addr;
}

void pv_frame_set_free(pv_frame_set *set)
{
    free(set->keys);
    free(set->slots);
    memset(set, 0, sizeof *set);
}

void pv_frame_set_clear(pv_frame_set *set)
{
    set->nr = 0;
    if (++set->generation == 0) {
        /* after 2^32 samples: slots of generation 0 would look in use */
        if (set->slots)
            memset(set->slots, 0, set->nr_slots * sizeof *set->slots);
        set->generation = 1;
    }
}

/* The slot where k is, or the free slot where it would go. */
static struct pv_frame_slot *slot_of(pv_frame_set *set, const pv_frame_key *k)
{
    size_t mask = set->nr_slots - 1;
    for (size_t i = hash_key(k) & mask;; i = (i + 1) & mask) {
        struct pv_frame_slot *slot = &set->slots[i];
        if (slot->generation != set->generation || same_key(&set->keys[slot->key], k))
            return slot;
    }
}

/* Twice as many slots, the current keys placed again. */
static bool grow_slots(pv_frame_set *set)
{
    size_t n = set->nr_slots ? set->nr_slots * 2 : 256;
    struct pv_frame_slot *slots = pv_calloc(n, sizeof *slots);
    if (!slots)
        return false;
    free(set->slots);
    set->slots = slots;
    set->nr_slots = n;
    if (set->generation == 0)
        set->generation = 1;
    for (size_t i = 0; i < set->nr; i++) {
        struct pv_frame_slot *slot = slot_of(set, &set->keys[i]);
        slot->generation = set->generation;
        slot->key = (uint32_t)i;
    }
    return true;
}

int pv_frame_set_add(pv_frame_set *set, const pv_frame_key *k)
{
    if (set->nr >= UINT32_MAX)
        return -1;
    /* at most half full, so probes stay short and always end */
    if ((set->nr + 1) * 2 > set->nr_slots && !grow_slots(set))
        return -1;
    struct pv_frame_slot *slot = slot_of(set, k);
    if (slot->generation == set->generation)
        return 0;
    if (set->nr == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 64;
        pv_frame_key *keys = pv_realloc(set->keys, cap * sizeof *keys);
        if (!keys)
            return -1;
        set->keys = keys;
        set->cap = cap;
    }
    set->keys[set->nr] = *k;
    slot->generation = set->generation;
    slot->key = (uint32_t)set->nr++;
    return 1;
}
