/*
 * Rows gathered so that those of one group come together: what a GROUP BY
 * or DISTINCT over a table needs from its scan, without sorting every row.
 *
 * A table scan hands each row's cells here: first the key cells (the
 * columns grouped on), then the other cells the query reads.  Text is
 * interned (names repeat: a profile has thousands of symbols, millions of
 * samples), so a cell is 8 bytes and a text compares as its id.  Rows equal
 * in every cell are stored once, with a count; memory grows with the
 * distinct rows, not with the rows: a GROUP BY sym, dso over samples of one
 * period keeps one entry per function.
 *
 * pv_row_groups_finish orders the groups by their keys as an SQL BINARY
 * ORDER BY would (NULL first, then integers, then text by bytes; each key
 * ascending or descending), so the rows are both grouped and sorted.  The
 * entries of a group keep the order their first rows came in.
 *
 * Cells are NULL, INT or TEXT (pv_value of hash_groups.h); other types are
 * refused (the caller then leaves the grouping to the SQL engine).
 */
#ifndef PV_ROW_GROUPS_H
#define PV_ROW_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/hash_groups.h"

#define PV_ROW_GROUPS_MAX_CELLS 32

typedef struct pv_row_groups {
    unsigned nkeys, ncells;
    bool desc[PV_ROW_GROUPS_MAX_CELLS];     /* per key: descending */
    /* entries: ncells cells each, their types, how many rows, the first row's id */
    int64_t *cells;
    uint8_t *types;
    uint64_t *counts;
    int64_t *first_ids;
    uint32_t *entry_group;
    size_t nr_entries, cap_entries;
    uint32_t *entry_slots;          /* open addressing: entry + 1, 0 empty */
    size_t nr_entry_slots;
    /* groups: their first entry (whose key cells are the group's) */
    uint32_t *group_entry;
    size_t nr_groups, cap_groups;
    uint32_t *group_slots;
    size_t nr_group_slots;
    /* interned text: offsets into bytes, lengths */
    char *bytes;
    size_t nr_bytes, cap_bytes;
    uint64_t *text_offsets;
    uint32_t *text_lens;
    size_t nr_texts, cap_texts;
    uint32_t *text_slots;
    size_t nr_text_slots;
    /* The text last interned from each address: a caller's names (a
     * symbolizer's) mostly stay where they are, so a text at a known
     * address costs a compare, not a hash.  Checked by bytes each time. */
    struct { const void *at; uint32_t text; } *recent;
    /* after finish: the entries in emission order */
    uint32_t *order;
    uint64_t rows;
} pv_row_groups;

/* nkeys key cells then ncells - nkeys others; desc[k] for each key. */
void pv_row_groups_init(pv_row_groups *g, unsigned nkeys, unsigned ncells, const bool *desc);
void pv_row_groups_free(pv_row_groups *g);

/* Adds a row: cells[0 .. ncells).  id is kept for the first of equal rows.
 * 0, or -1 when out of memory or a cell has a type not kept. */
int pv_row_groups_add(pv_row_groups *g, const pv_value *cells, int64_t id);

/* Orders the entries by group (see above).  0, or -1 when out of memory. */
int pv_row_groups_finish(pv_row_groups *g);

/* After finish: entry k of the emission order: its row count, first id,
 * and cell c (text points into g, valid until pv_row_groups_free). */
static inline size_t pv_row_groups_nr_entries(const pv_row_groups *g)
{
    return g->nr_entries;
}
uint64_t pv_row_groups_count(const pv_row_groups *g, size_t k);
int64_t pv_row_groups_id(const pv_row_groups *g, size_t k);
pv_value pv_row_groups_cell(const pv_row_groups *g, size_t k, unsigned c);

/* Bytes held, for the memory figures. */
size_t pv_row_groups_bytes(const pv_row_groups *g);

#endif
