/*
 * Grouping rows by key in a hash table, summing a value per group: what a
 * GROUP BY computes, in one pass and in memory for the groups only.
 *
 * A SQL engine without a hash aggregate sorts every row a GROUP BY groups,
 * which over perf_callchains (ten and more frames per sample) costs several
 * times the scan.  perf_sum_by() (ext/sum_by.c) hands its rows here.
 *
 * Keys compare as GROUP BY compares them: NULLs are one group; an integer
 * and a real are equal when their values are; text and blobs by bytes.
 * Sums follow SQL's sum() as ext/sum_by.c's host computes it: NULL values are skipped, the sum is an
 * integer while every value is, and an integer sum that overflows is an
 * error; a group whose values were all NULL sums to NULL.
 */
#ifndef PV_HASH_GROUPS_H
#define PV_HASH_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { PV_VALUE_NULL, PV_VALUE_INT, PV_VALUE_REAL, PV_VALUE_TEXT, PV_VALUE_BLOB } pv_value_type;

typedef struct pv_value {
    pv_value_type type;
    int64_t i;
    double r;
    const void *bytes;      /* TEXT, BLOB */
    size_t len;
} pv_value;

typedef struct pv_group {
    uint64_t first_key;     /* its keys: hash_groups.keys[first_key .. + nkeys) */
    uint64_t rows;
    bool has_sum, real_sum;
    int64_t int_sum;
    double real_total;
} pv_group;

typedef struct pv_stored_key pv_stored_key;

typedef struct pv_hash_groups {
    unsigned nkeys;
    pv_group *groups;       /* in the order first seen */
    size_t nr_groups, cap_groups;
    pv_stored_key *keys;
    size_t cap_keys;
    char *bytes;            /* the text and blob keys, back to back */
    size_t nr_bytes, cap_bytes;
    uint32_t *slots;        /* open addressing: group index + 1, 0 empty */
    size_t nr_slots;
} pv_hash_groups;

void pv_hash_groups_init(pv_hash_groups *g, unsigned nkeys);
void pv_hash_groups_free(pv_hash_groups *g);

typedef enum { PV_GROUP_OK, PV_GROUP_NO_MEMORY, PV_GROUP_OVERFLOW } pv_group_status;

/* Counts a row of nkeys keys into its group and adds value (NULL, INT or
 * REAL) to the group's sum. */
pv_group_status pv_hash_groups_add(pv_hash_groups *g, const pv_value *keys, const pv_value *value);

/* Key k of group i. */
pv_value pv_hash_groups_key(const pv_hash_groups *g, size_t i, unsigned k);

#endif
