/*
 * Interned keys: byte strings numbered in the order first seen, each held
 * once.  A pprof profile is tables of strings, functions, mappings,
 * locations and samples, each entry referred to by number; the profile
 * builder (analysis/pprof_profile.c) keeps each table as one of these, the
 * key being the entry's whole content, so equal entries share a number.
 */
#ifndef PV_KEY_TABLE_H
#define PV_KEY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_key_table {
    char *bytes;                /* the keys back to back */
    size_t nr_bytes, cap_bytes;
    size_t *starts;             /* key i is bytes[starts[i] .. starts[i + 1]) */
    size_t nr, cap;             /* keys; starts has nr + 1 entries */
    uint32_t *slots;            /* open addressing: key index + 1, 0 empty */
    size_t nr_slots;
} pv_key_table;

/* Zeroed memory is an empty table. */
void pv_key_table_free(pv_key_table *t);

/* The number of the key of len bytes at key, added when new (*added
 * true); -1 when out of memory. */
int64_t pv_key_table_intern(pv_key_table *t, const void *key, size_t len, bool *added);

/* Key i's bytes and length; valid until the next pv_key_table_intern. */
static inline const void *pv_key_table_key(const pv_key_table *t, size_t i, size_t *len)
{
    *len = t->starts[i + 1] - t->starts[i];
    return t->bytes + t->starts[i];
}

#endif
