/*
 * The functions already seen on one sample's stack.
 *
 * perf report --children counts a function once per sample however often
 * it recurs on the stack; perf_callchains' repeated column needs "was
 * this function seen before in this sample?" for every frame (perf_profile
 * marks its rows instead: analysis/profile.c).
 * Stacks run to hundreds of frames, so the answer comes from a hash set,
 * emptied in O(1) between samples, not from a scan of the frames so far.
 */
#ifndef PV_FRAME_SET_H
#define PV_FRAME_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A function as the profiles tell functions apart: the symbol (by
 * identity: the symbolizer returns one pointer per symbol) in its dso, or,
 * without one, the address.  An inlined function's name comes from the
 * debug info, one copy per frame, so inlined keys compare by text. */
typedef struct pv_frame_key {
    const char *dso, *sym;
    uint64_t addr;              /* when sym is NULL */
    bool inlined;               /* sym is a debug-info name, compared by text */
} pv_frame_key;

typedef struct pv_frame_set {
    pv_frame_key *keys;
    size_t nr, cap;
    struct pv_frame_slot {
        uint32_t generation;    /* the slot is in use when it is the set's */
        uint32_t key;           /* index in keys */
    } *slots;
    size_t nr_slots;
    uint32_t generation;
} pv_frame_set;

/* Zeroed memory is an empty set. */
void pv_frame_set_free(pv_frame_set *set);
/* Forgets every key (a new sample). */
void pv_frame_set_clear(pv_frame_set *set);
/* 1: k was not in the set and now is; 0: it was; -1: out of memory. */
int pv_frame_set_add(pv_frame_set *set, const pv_frame_key *k);

#endif
