/*
 * Planning (xBestIndex) for every table: which constraints the reader
 * tests itself, which ORDER BY it consumes, whether a GROUP BY is served
 * by a grouped scan, and what the plan costs.  The plan's bits are in
 * vtab_tab.h; vtab_common.c's xFilter reads them.
 */
#include <stdlib.h>
#include <string.h>

#include "render/row_groups.h"
#include "vtab_tab.h"

/* Which pushed-down constraint kind constraint i is for this table, or -1. */
static int push_kind(const PvTab *tab, sqlite3_index_info *info, int i)
{
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int col = c->iColumn;
    if (col < 0)
        return -1;
    switch (c->op) {
    case SQLITE_INDEX_CONSTRAINT_EQ:
        if (col == tab->time_column) return PUSH_TIME_EQ;
        if (col == tab->pid_column) return PUSH_PID;
        if (col == tab->tid_column) return PUSH_TID;
        if (col == tab->cpu_column) return PUSH_CPU;
        /* the reader compares names byte for byte: event = 'X' COLLATE
         * NOCASE is left to SQLite (the integer columns compare as numbers
         * whatever the collation) */
        if (col == tab->event_column &&
            sqlite3_stricmp(sqlite3_vtab_collation(info, i), "BINARY") == 0)
            return PUSH_EVENT;
        return -1;
    case SQLITE_INDEX_CONSTRAINT_GT:
    case SQLITE_INDEX_CONSTRAINT_GE:
        return col == tab->time_column ? PUSH_TIME_MIN : -1;
    case SQLITE_INDEX_CONSTRAINT_LT:
    case SQLITE_INDEX_CONSTRAINT_LE:
        return col == tab->time_column ? PUSH_TIME_MAX : -1;
    default:
        return -1;
    }
}


/* Whether the rows may come from several files: a path, known while
 * planning, that is a pattern or a JSON list (path_args.h; "[" is in both).
 * A bound path is not known: it is taken for one file, and xFilter refuses
 * a pattern or list then (see pvFilter). */
static bool may_be_pattern(const PvTab *tab, sqlite3_index_info *info, int path_constraint)
{
    const char *path = tab->default_path;
    if (path_constraint >= 0) {
        sqlite3_value *v = NULL;
        if (sqlite3_vtab_rhs_value(info, path_constraint, &v) != SQLITE_OK || !v)
            return false;
        path = (const char *)sqlite3_value_text(v);
    }
    return path && strpbrk(path, "*?[");
}

/* The idxNum bit of an order the scan gives that is the query's ORDER BY,
 * or 0 (SQLite sorts).  Not when the query reads values replayed in perf's
 * order: the scan must run in perf's order for them (vtab_common.h). */
static int consumed_order(const PvTab *tab, sqlite3_index_info *info, int path_constraint)
{
    if (!tab->ordered_rows || info->nOrderBy < 1 || info->nOrderBy > 2 ||
        pv_reads_replayed(tab->def, (uint64_t)info->colUsed))
        return 0;
    const struct sqlite3_index_orderby *first = &info->aOrderBy[0];
    int order = 0;
    if (first->desc)
        return 0;
    if (first->iColumn >= 0 && first->iColumn == tab->order_time_column)
        order = IDX_ORDER_TIME;
    else if (first->iColumn < 0 || first->iColumn == tab->record_column)
        order = IDX_ORDER_FILE;
    else
        return 0;
    if (info->nOrderBy == 2) {
        /* equal times come in file order: time, record is consumed too */
        const struct sqlite3_index_orderby *second = &info->aOrderBy[1];
        bool by_record = second->iColumn < 0 || second->iColumn == tab->record_column;
        if (order != IDX_ORDER_TIME || second->desc || !by_record)
            return 0;
    }
    /* a pattern's files each come in order, not all of them together */
    return may_be_pattern(tab, info, path_constraint) ? 0 : order | IDX_ORDER_CONSUMED;
}

/* The keys of a grouped scan as idxStr's tail, when the query only needs
 * the rows grouped by columns whose values the table can give
 * (PvTableDef.value), and reads no other kind; else NULL. */
static char *grouped_keys(const PvTab *tab, sqlite3_index_info *info)
{
    if (!tab->def->value || info->nOrderBy < 1)
        return NULL;
    /* 1: GROUP BY, the rows need only be grouped; 3: DISTINCT with the same
     * ORDER BY.  Not 2, a DISTINCT alone: SQLite 3.40 then keeps its
     * temporary b-tree all the same (where.c counts a virtual table's order
     * for a DISTINCT only with an ORDER BY), and the groups would be built
     * for nothing.  The groups come out sorted by the keys, so a 1 whose
     * GROUP BY is also the ORDER BY is served too. */
    int distinct = sqlite3_vtab_distinct(info);
    if (distinct != 1 && distinct != 3)
        return NULL;
    uint64_t can = tab->def->groupable;
    if (tab->path_column < 63)
        can |= (uint64_t)1 << tab->path_column;
    uint64_t used = (uint64_t)info->colUsed;
    if ((used & ~can) || (used & tab->def->row_unique))
        return NULL;
    uint64_t keys = 0;
    char *out = sqlite3_mprintf("");
    for (int i = 0; out && i < info->nOrderBy; i++) {
        int col = info->aOrderBy[i].iColumn;
        if (col < 0 || col >= 63 || !((can >> col) & 1)) {
            sqlite3_free(out);
            return NULL;
        }
        if ((keys >> col) & 1)
            continue;
        keys |= (uint64_t)1 << col;
        char *more = sqlite3_mprintf("%s%x%c", out, col, info->aOrderBy[i].desc ? '-' : '+');
        sqlite3_free(out);
        out = more;
    }
    if (out && __builtin_popcountll(used | keys) > PV_ROW_GROUPS_MAX_CELLS) {
        sqlite3_free(out);
        return NULL;
    }
    return out;
}

int pv_vtab_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
    PvTab *tab = (PvTab *)vtab;
    int path_constraint = -1;
    bool unusable_path = false;
    int pushed[PUSH_KINDS];
    for (int k = 0; k < PUSH_KINDS; k++)
        pushed[k] = -1;
    int ordinal_constraint = -1;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (c->iColumn == tab->path_column && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
            if (!c->usable)
                unusable_path = true;
            else
                path_constraint = i;
            continue;
        }
        if (c->usable && c->op == SQLITE_INDEX_CONSTRAINT_EQ && c->iColumn >= 0 &&
            c->iColumn == tab->ordinal_column && ordinal_constraint < 0)
            ordinal_constraint = i;
        int kind = c->usable ? push_kind(tab, info, i) : -1;
        if (kind >= 0 && pushed[kind] < 0)
            pushed[kind] = i;
    }
    /* one record's rows: the other constraints narrow nothing worth it */
    if (ordinal_constraint >= 0)
        for (int k = 0; k < PUSH_KINDS; k++)
            pushed[k] = -1;
    if (path_constraint < 0 && unusable_path)
        return SQLITE_CONSTRAINT;
    info->idxNum = 0;
    int argv_index = 0;
    if (path_constraint >= 0) {
        info->aConstraintUsage[path_constraint].argvIndex = ++argv_index;
        info->aConstraintUsage[path_constraint].omit = 1;
        info->idxNum |= 1;
    }
    /* a table of several rows per record (perf_callchains' frames) has
     * more of them: scanned, it is the inner table of a join no more */
    double cost = tab->def->rows_per_ordinal_many ? 1e7 : 1e6;
    for (int k = 0; k < PUSH_KINDS; k++) {
        if (pushed[k] < 0)
            continue;
        info->aConstraintUsage[pushed[k]].argvIndex = ++argv_index;
        info->idxNum |= 2 << k;
        cost /= k <= PUSH_TIME_EQ ? 4 : 2;
    }
    sqlite3_int64 rows = (sqlite3_int64)(cost / 10);
    if (ordinal_constraint >= 0) {
        info->aConstraintUsage[ordinal_constraint].argvIndex = ++argv_index;
        /* the lookup yields exactly the rows whose ordinal equals the
         * value, with the column's INTEGER affinity applied as SQLite
         * would (read_ordinal): SQLite need not test it again per row */
        info->aConstraintUsage[ordinal_constraint].omit = 1;
        info->idxNum |= IDX_ORDINAL;
        /* a few records' headers walked, or a few kept in memory; for
         * one row, less than a probe of SQLite's automatic index, so that
         * a join of a big subquery (SELECT DISTINCT sample, sym FROM
         * perf_callchains) to perf_samples looks the samples up by the
         * subquery's rising ordinals instead of indexing all its rows */
        cost = tab->def->rows_per_ordinal_many ? 20 : 1;
        rows = tab->def->rows_per_ordinal_many ? 20 : 1;
        if (!tab->def->rows_per_ordinal_many)
            info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    }
    /* No path at all: xFilter says the table needs one.  SQLite also asks
     * for such plans when it weighs the terms of an OR one at a time (the
     * function's argument is not among them); a plan that cheap would
     * displace the one that has the path, and the query would have no
     * plan ("no query solution").  Priced out, as json_each prices its. */
    if (path_constraint < 0)
        cost = 1e99;
    int order = consumed_order(tab, info, path_constraint);
    char *keys = order ? NULL : grouped_keys(tab, info);
    if (keys) {
        info->idxNum |= IDX_GROUPED;
        info->orderByConsumed = 1;
    } else if (order) {
        info->idxNum |= order;
        info->orderByConsumed = 1;
    } else if (info->nOrderBy > 0 && tab->ordered_rows &&
               !pv_reads_replayed(tab->def, (uint64_t)info->colUsed)) {
        /* SQLite sorts (or groups) the rows itself: the order they come
         * in decides nothing SQL defines, so the cheapest, file order */
        info->idxNum |= IDX_ORDER_FILE;
    }
    info->idxStr = keys ? sqlite3_mprintf("%llx:%s", (unsigned long long)info->colUsed, keys)
                        : sqlite3_mprintf("%llx", (unsigned long long)info->colUsed);
    sqlite3_free(keys);
    info->needToFreeIdxStr = 1;
    /* without it xFilter would not group (nor know the columns read) where
     * the plan says the rows come grouped */
    if (!info->idxStr)
        return SQLITE_NOMEM;
    info->estimatedCost = cost;
    info->estimatedRows = path_constraint < 0 ? (sqlite3_int64)1 << 62 : rows;
    return SQLITE_OK;
}
