/*
 * Grouped scans: a query whose GROUP BY or DISTINCT only needs the rows of
 * a group together (idxNum bit 12, see pv_plan_decode_args) has every row of
 * every file read in xFilter into groups (render/row_groups.h), rows equal
 * in every column read stored once, and handed out sorted by the keys.
 */
#include <string.h>

#include "row_values.h"
#include "vtab_tab.h"

/* A grouped scan holds the distinct rows of the columns read (a GROUP BY
 * that also reads a column differing on most rows, a varying period say,
 * holds nearly every row); past this it stops, with an error saying how to
 * leave the grouping to SQLite's sorter, which spills to disk. */
#define PV_GROUPED_SCAN_MAX_BYTES (256u << 20)

void pv_grouped_free(PvCursor *cur)
{
    if (cur->groups)
        pv_row_groups_free(cur->groups);
    sqlite3_free(cur->groups);
    cur->groups = NULL;
}

/* Reads every row of every file into cur->groups (made anew): the cells
 * of columns[0..ncells).  -1 with err set (cur->groups NULL: out of
 * memory). */
static int read_groups(PvCursor *cur, const PvTab *tab, const char *path, const int *columns,
                       unsigned nkeys, unsigned ncells, const bool *desc, pv_error *err)
{
    pv_grouped_free(cur);
    cur->groups = sqlite3_malloc(sizeof *cur->groups);
    if (!cur->groups)
        return pv_error_set(err, "%s: out of memory grouping the rows", tab->def->name);
    pv_row_groups_init(cur->groups, nkeys, ncells, desc);
    if (pv_vtab_start_file(cur, path, err) || pv_vtab_next_file(cur, err))
        return -1;
    pv_value cells[PV_ROW_GROUPS_MAX_CELLS];
    while (!cur->eof) {
        for (unsigned c = 0; c < ncells; c++) {
            if (columns[c] == tab->path_column)
                cells[c] = pv_text_value(pv_file_path(cur->file));
            else if (cur->def->value(cur, columns[c], &cells[c], err))
                return -1;
        }
        if (pv_row_groups_add(cur->groups, cells, cur->rowid))
            return pv_error_set(err, "%s: out of memory grouping the rows", tab->def->name);
        if (pv_row_groups_bytes(cur->groups) > PV_GROUPED_SCAN_MAX_BYTES)
            return pv_error_set(err,
                                "%s: grouping these rows in the table would take over %u MiB "
                                "(%zu different rows of the columns read); write the grouping "
                                "as GROUP BY +column to let SQLite sort them, spilling to disk",
                                tab->def->name, PV_GROUPED_SCAN_MAX_BYTES >> 20,
                                pv_row_groups_nr_entries(cur->groups));
        if (cur->def->next(cur, err) || pv_vtab_next_file(cur, err))
            return -1;
    }
    /* the rows are all read: the file and what decoded it can go */
    pv_vtab_release_file(cur);
    return 0;
}

/* Reads every row of every file into cur->groups, the plan's keys first,
 * then the other columns read, and positions on the first entry. */
int pv_grouped_scan(PvCursor *cur, const PvTab *tab, const PvPlan *plan, const char *path)
{
    pv_error err;
    int columns[PV_ROW_GROUPS_MAX_CELLS];
    bool desc[PV_ROW_GROUPS_MAX_CELLS];
    unsigned nkeys = 0, ncells = 0;
    uint64_t taken = 0;
    memset(cur->cell_of, -1, sizeof cur->cell_of);
    for (unsigned k = 0; k < plan->nr_keys; k++) {
        int col = plan->keys[k].column;
        desc[nkeys++] = plan->keys[k].desc;
        columns[ncells] = col;
        cur->cell_of[col] = (int8_t)ncells++;
        taken |= (uint64_t)1 << col;
    }
    for (int col = 0; col < 63 && ncells < PV_ROW_GROUPS_MAX_CELLS; col++) {
        if (pv_column_used(cur, col) && !((taken >> col) & 1)) {
            columns[ncells] = col;
            cur->cell_of[col] = (int8_t)ncells++;
        }
    }
    /* The rows' order is the groups': the cheapest scan, file order.  Values
     * replayed in perf's order (PvTableDef.replayed_columns) are the same
     * in file order when the files keep perf's round rule, which the scan
     * watches; where one breaks it, the rows are read again in perf's order. */
    cur->order = PV_ORDER_FILE;
    cur->watch_rounds = pv_reads_replayed(cur->def, cur->columns_used);
    cur->rounds_broken = false;
    int rc = read_groups(cur, tab, path, columns, nkeys, ncells, desc, &err);
    if (rc == 0 && cur->rounds_broken) {
        cur->order = PV_ORDER_PERF;
        cur->watch_rounds = false;
        cur->next_path = cur->paths.nr ? 1 : 0;    /* path is paths[0] */
        rc = read_groups(cur, tab, path, columns, nkeys, ncells, desc, &err);
    }
    if (rc)
        return cur->groups ? pv_vtab_cursor_error(cur, &err) : SQLITE_NOMEM;
    if (pv_row_groups_finish(cur->groups)) {
        pv_error_set(&err, "%s: out of memory grouping the rows", tab->def->name);
        return pv_vtab_cursor_error(cur, &err);
    }
    cur->entry = 0;
    cur->eof = pv_row_groups_nr_entries(cur->groups) == 0;
    if (!cur->eof) {
        cur->repeat = pv_row_groups_count(cur->groups, 0);
        cur->rowid = pv_row_groups_id(cur->groups, 0);
    }
    return SQLITE_OK;
}

void pv_grouped_next(PvCursor *cur)
{
    /* rows equal in every column read are one entry, handed out as many
     * times as they came */
    if (--cur->repeat == 0 && ++cur->entry < pv_row_groups_nr_entries(cur->groups)) {
        cur->repeat = pv_row_groups_count(cur->groups, cur->entry);
        cur->rowid = pv_row_groups_id(cur->groups, cur->entry);
    }
    cur->eof = cur->entry >= pv_row_groups_nr_entries(cur->groups);
}

void pv_grouped_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    int cell = i >= 0 && i < 64 ? cur->cell_of[i] : -1;
    if (cell >= 0) {
        pv_value v = pv_row_groups_cell(cur->groups, cur->entry, (unsigned)cell);
        pv_result_value(ctx, &v);
    }
}
