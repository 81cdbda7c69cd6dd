/*
 * Symbol lookups remembered: (dso, offset in it) -> the symbol there (the
 * kernel's by ip: its offsets are not what its symbols depend on).
 *
 * A profile asks for the same addresses millions of times (every sample in
 * a hot loop, every frame of a common stack), and each lookup walks a tree
 * or bisects a table.  A dso's symbols never change once loaded, so the
 * answer for an address in it holds for the life of the symbolizer,
 * whatever the sample's time or process: only which dso holds an ip, and
 * at what offset, depends on those, and the symbolizer looks that up in
 * the address space every time.
 *
 * Direct-mapped: each slot keeps the last lookup that hashed to it, so the
 * memory is fixed (PV_SYMBOL_CACHE_SLOTS entries of 40 bytes, 640 KB,
 * allocated on first use) whatever the file's size.  On the 187 MB
 * reference recording (11.5 M frames, 340 K distinct ips) 2^14 slots answer
 * 96% of lookups; 2^12 to 2^16 measure the same time (a bigger table
 * misses less but leaves the CPU's L2).
 *
 * The cache relies on dso numbers never being reused and a dso's symbols
 * never changing once loaded (symbolizer.c keeps both for its life).
 */
#ifndef PV_SYMBOL_CACHE_H
#define PV_SYMBOL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef PV_SYMBOL_CACHE_BITS
#define PV_SYMBOL_CACHE_BITS 14
#endif
#define PV_SYMBOL_CACHE_SLOTS (1u << PV_SYMBOL_CACHE_BITS)
#define PV_SYMBOL_CACHE_EMPTY UINT32_MAX

typedef struct pv_symbol_cache_entry {
    uint64_t addr;              /* the dso offset (the kernel: the ip) */
    uint64_t sym_offset;
    const char *sym;            /* NULL: no symbol; status says why */
    const char *status;
    uint32_t dso;               /* PV_SYMBOL_CACHE_EMPTY: a free slot */
} pv_symbol_cache_entry;

typedef struct pv_symbol_cache {
    pv_symbol_cache_entry *slots;
    bool failed;                /* out of memory: every lookup misses */
} pv_symbol_cache;

void pv_symbol_cache_free(pv_symbol_cache *c);
/* Allocates the table (pv_symbol_cache_slot does on first use); false when
 * out of memory. */
bool pv_symbol_cache_alloc(pv_symbol_cache *c);

/* The slot for (dso, addr): it holds their answer when
 * pv_symbol_cache_holds says so, else the caller overwrites it with theirs.
 * NULL when the table cannot be allocated. */
static inline pv_symbol_cache_entry *pv_symbol_cache_slot(pv_symbol_cache *c, uint32_t dso,
                                                          uint64_t addr)
{
    if (!c->slots && !pv_symbol_cache_alloc(c))
        return NULL;
    /* Fibonacci hashing: nearby addresses (one function's) spread out */
    uint64_t h = (addr ^ ((uint64_t)dso << 40)) * 0x9e3779b97f4a7c15u;
    return &c->slots[h >> (64 - PV_SYMBOL_CACHE_BITS)];
}

static inline bool pv_symbol_cache_holds(const pv_symbol_cache_entry *e, uint32_t dso,
                                         uint64_t addr)
{
    return e->dso == dso && e->addr == addr;
}

#endif
