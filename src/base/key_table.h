/*
 * Interned keys: byte strings numbered in the order first seen, each held
 * once.  pprof's tables (strings, functions, mappings, locations,
 * samples: render/pprof_encode.h) are key tables whose keys are an
 * entry's whole content, so equal entries share a number; folded stacks'
 * names and stacks, a line table's file paths and a profile's inline
 * function names are others.
 */
#ifndef PV_KEY_TABLE_H
#define PV_KEY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_key_table {
    char *bytes;                /* the keys back to back */
    size_t nr_bytes, cap_bytes;
    /* key i is bytes[start(i) .. start(i + 1)): start(i) is starts[i] plus
     * 2^32 for each of wraps[] at or before i, the first index whose start
     * reached each further 4 GiB (none below 4 GiB of keys: half the
     * memory of size_t offsets) */
    uint32_t *starts;
    size_t nr, cap;             /* keys; starts has nr + 1 entries */
    size_t *wraps;
    size_t nr_wraps, cap_wraps;
    uint32_t *slots;            /* open addressing, at most 3/4 full: key index + 1, 0 empty */
    size_t nr_slots;
} pv_key_table;

/* Zeroed memory is an empty table. */
void pv_key_table_free(pv_key_table *t);

/* Frees the table's lookup slots: its keys stay readable, in order; an
 * intern after it rebuilds them.  For a table that is complete. */
void pv_key_table_drop_lookup(pv_key_table *t);

/* Gives back what the arrays hold beyond the keys (the lookup slots
 * stay): for a table that is complete. */
void pv_key_table_trim(pv_key_table *t);

/* The bytes the table holds. */
static inline size_t pv_key_table_bytes(const pv_key_table *t)
{
    return t->cap_bytes + t->cap * sizeof *t->starts + t->cap_wraps * sizeof *t->wraps +
           t->nr_slots * sizeof *t->slots;
}

/* The number of the key of len bytes at key, added when new (*added
 * true); -1 when out of memory. */
int64_t pv_key_table_intern(pv_key_table *t, const void *key, size_t len, bool *added);

/* Where key i starts in t->bytes (i up to t->nr: the end of the last). */
static inline size_t pv_key_table_start(const pv_key_table *t, size_t i)
{
    uint64_t high = 0;
    while (high < t->nr_wraps && t->wraps[high] <= i)
        high++;
    return (size_t)(high << 32 | t->starts[i]);
}

/* Key i's bytes and length; valid until the next pv_key_table_intern. */
static inline const void *pv_key_table_key(const pv_key_table *t, size_t i, size_t *len)
{
    size_t start = pv_key_table_start(t, i);
    *len = pv_key_table_start(t, i + 1) - start;
    return t->bytes + start;
}

#endif
