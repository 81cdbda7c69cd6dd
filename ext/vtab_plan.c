/*
 * Planning (xBestIndex) for every table: which constraints the reader
 * tests itself, which ORDER BY it consumes, whether a GROUP BY is served
 * by a grouped scan, and what the plan costs.  The plan (PvPlan,
 * vtab_tab.h) is written into SQLite's idxNum, idxStr and argument order
 * here, and read back here for xFilter (pv_plan_decode_args, above which the
 * bits are documented).
 */
#include <stdlib.h>
#include <string.h>

#include "base/hex_number.h"
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
 * a pattern or list then (see filter_rows, vtab_module.c). */
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

/* Whether the scan can give the query's ORDER BY itself, and in which
 * order (*order).  Not when the query reads values replayed in perf's
 * order: the scan must run in perf's order for them (vtab_common.h). */
static bool consumed_order(const PvTab *tab, sqlite3_index_info *info, int path_constraint,
                           pv_record_order *order)
{
    if (!tab->ordered_rows || info->nOrderBy < 1 || info->nOrderBy > 2 ||
        pv_reads_replayed(tab->def, (uint64_t)info->colUsed))
        return false;
    const struct sqlite3_index_orderby *first = &info->aOrderBy[0];
    if (first->desc)
        return false;
    if (first->iColumn >= 0 && first->iColumn == tab->order_time_column)
        *order = PV_ORDER_TIME;
    else if (first->iColumn < 0 || first->iColumn == tab->record_column)
        *order = PV_ORDER_FILE;
    else
        return false;
    if (info->nOrderBy == 2) {
        /* equal times come in file order: time, record is consumed too */
        const struct sqlite3_index_orderby *second = &info->aOrderBy[1];
        bool by_record = second->iColumn < 0 || second->iColumn == tab->record_column;
        if (*order != PV_ORDER_TIME || second->desc || !by_record)
            return false;
    }
    /* a pattern's files each come in order, not all of them together */
    return !may_be_pattern(tab, info, path_constraint);
}

/* The columns every row the query keeps has one value of: a usable
 * column = value with BINARY collation (another collation lets unequal
 * texts through), and not an IN (its values would come one after another,
 * each with its own rows). */
static uint64_t pinned_columns(sqlite3_index_info *info)
{
    uint64_t pinned = 0;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (c->usable && c->op == SQLITE_INDEX_CONSTRAINT_EQ && c->iColumn >= 0 &&
            c->iColumn < 64 && sqlite3_stricmp(sqlite3_vtab_collation(info, i), "BINARY") == 0 &&
            !sqlite3_vtab_in(info, i, -1))
            pinned |= (uint64_t)1 << c->iColumn;
    }
    return pinned;
}

/* Whether the query's ORDER BY is order o's keys from the first unpinned
 * one on: rows sorted by all the keys are sorted by those that follow keys
 * every kept row has one value of (ORDER BY stack, with event = 'X', of
 * rows sorted by event, then stack). */
static bool is_row_order(const PvRowOrder *o, sqlite3_index_info *info, uint64_t pinned)
{
    unsigned n = (unsigned)info->nOrderBy;
    for (unsigned skip = 0; skip <= o->nr_keys; skip++) {
        if (skip + n >= o->min_keys && skip + n <= o->nr_keys) {
            bool same = true;
            for (unsigned i = 0; same && i < n; i++)
                same = info->aOrderBy[i].iColumn == o->keys[skip + i].column &&
                       (info->aOrderBy[i].desc != 0) == o->keys[skip + i].desc;
            if (same)
                return true;
        }
        int col = skip < o->nr_keys ? o->keys[skip].column : -1;
        if (col < 0 || col >= 64 || !((pinned >> col) & 1))
            return false;
    }
    return false;
}

/* Which of the table's own orders (PvTableDef.row_orders) the query's
 * ORDER BY is, as 1 + its index; 0: none.  Not over a pattern's files: each
 * file's rows come sorted, not all of them together. */
static unsigned table_row_order(const PvTab *tab, sqlite3_index_info *info,
                                int path_constraint)
{
    const PvTableDef *def = tab->def;
    if (info->nOrderBy <= 0)
        return 0;
    uint64_t pinned = pinned_columns(info);
    for (unsigned k = 0; k < def->nr_row_orders && k < 7; k++)
        if (is_row_order(&def->row_orders[k], info, pinned))
            return may_be_pattern(tab, info, path_constraint) ? 0 : k + 1;
    return 0;
}

/* The keys of a grouped scan (plan->keys), when the query only needs the
 * rows grouped by columns whose values the table can give
 * (PvTableDef.value), and reads no other kind; else false. */
static bool grouped_keys(const PvTab *tab, sqlite3_index_info *info, PvPlan *plan)
{
    if (!tab->def->value || info->nOrderBy < 1)
        return false;
    /* 1: GROUP BY, the rows need only be grouped; 3: DISTINCT with the same
     * ORDER BY.  Not 2, a DISTINCT alone: SQLite 3.40 then keeps its
     * temporary b-tree all the same (where.c counts a virtual table's order
     * for a DISTINCT only with an ORDER BY), and the groups would be built
     * for nothing.  The groups come out sorted by the keys, so a 1 whose
     * GROUP BY is also the ORDER BY is served too. */
    int distinct = sqlite3_vtab_distinct(info);
    if (distinct != 1 && distinct != 3)
        return false;
    uint64_t can = tab->def->groupable;
    if (tab->path_column < 63)
        can |= (uint64_t)1 << tab->path_column;
    uint64_t used = (uint64_t)info->colUsed;
    if ((used & ~can) || (used & tab->def->row_unique))
        return false;
    uint64_t keys = 0;
    plan->nr_keys = 0;
    for (int i = 0; i < info->nOrderBy; i++) {
        int col = info->aOrderBy[i].iColumn;
        if (col < 0 || col >= 63 || !((can >> col) & 1))
            return false;
        if ((keys >> col) & 1)
            continue;
        keys |= (uint64_t)1 << col;
        if (plan->nr_keys < PV_ROW_GROUPS_MAX_CELLS)
            plan->keys[plan->nr_keys] = (PvGroupKey){ col, info->aOrderBy[i].desc != 0 };
        plan->nr_keys++;
    }
    return __builtin_popcountll(used | keys) <= PV_ROW_GROUPS_MAX_CELLS;
}

enum {
    IDX_PATH = 1,
    IDX_ORDER_TIME = 1 << 8, IDX_ORDER_FILE = 1 << 9, IDX_ORDER_CONSUMED = 1 << 10,
    IDX_ORDINAL = 1 << 11, IDX_GROUPED = 1 << 12,
    IDX_ROW_ORDER_SHIFT = 13, IDX_ROW_ORDER_MASK = 7 << IDX_ROW_ORDER_SHIFT,
};

/* The plan as SQLite keeps it: idxNum and idxStr (pv_plan_decode_args reads
 * them back).  The arguments' argvIndex are set where they are chosen. */
static int plan_encode(const PvPlan *plan, sqlite3_index_info *info)
{
    int idx = plan->has_path ? IDX_PATH : 0;
    for (int k = 0; k < PUSH_KINDS; k++)
        if ((plan->pushed >> k) & 1)
            idx |= 2 << k;
    if (plan->order == PV_ORDER_TIME)
        idx |= IDX_ORDER_TIME;
    else if (plan->order == PV_ORDER_FILE)
        idx |= IDX_ORDER_FILE;
    if (plan->order_consumed)
        idx |= IDX_ORDER_CONSUMED;
    if (plan->by_ordinal)
        idx |= IDX_ORDINAL;
    if (plan->grouped)
        idx |= IDX_GROUPED;
    idx |= (int)(plan->row_order << IDX_ROW_ORDER_SHIFT) & IDX_ROW_ORDER_MASK;
    info->idxNum = idx;
    char *str = sqlite3_mprintf("%llx", (unsigned long long)plan->columns_used);
    if (plan->grouped) {
        char *keys = str ? sqlite3_mprintf("%s:", str) : NULL;
        for (unsigned i = 0; keys && i < plan->nr_keys; i++) {
            char *more = sqlite3_mprintf("%s%x%c", keys, plan->keys[i].column,
                                         plan->keys[i].desc ? '-' : '+');
            sqlite3_free(keys);
            keys = more;
        }
        sqlite3_free(str);
        str = keys;
    }
    info->idxStr = str;
    info->needToFreeIdxStr = 1;
    /* without it xFilter would not group (nor know the columns read) where
     * the plan says the rows come grouped */
    return str ? SQLITE_OK : SQLITE_NOMEM;
}

int pv_vtab_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
    PvTab *tab = (PvTab *)vtab;
    PvPlan plan;
    memset(&plan, 0, sizeof plan);
    plan.order = PV_ORDER_PERF;
    plan.columns_used = (uint64_t)info->colUsed;
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
    /* the arguments, in the order pv_plan_decode_args reads them */
    int argv_index = 0;
    if (path_constraint >= 0) {
        info->aConstraintUsage[path_constraint].argvIndex = ++argv_index;
        info->aConstraintUsage[path_constraint].omit = 1;
        plan.has_path = true;
    }
    /* a table of several rows per record (perf_callchains' frames) has
     * more of them: scanned, it is the inner table of a join no more */
    double cost = tab->def->rows_per_ordinal_many ? 1e7 : 1e6;
    for (int k = 0; k < PUSH_KINDS; k++) {
        if (pushed[k] < 0)
            continue;
        info->aConstraintUsage[pushed[k]].argvIndex = ++argv_index;
        plan.pushed |= 1u << k;
        cost /= k <= PUSH_TIME_EQ ? 4 : 2;
    }
    sqlite3_int64 rows = (sqlite3_int64)(cost / 10);
    if (ordinal_constraint >= 0) {
        info->aConstraintUsage[ordinal_constraint].argvIndex = ++argv_index;
        /* the lookup yields exactly the rows whose ordinal equals the
         * value, with the column's INTEGER affinity applied as SQLite
         * would (pv_vtab_read_ordinal): SQLite need not test it again per
         * row */
        info->aConstraintUsage[ordinal_constraint].omit = 1;
        plan.by_ordinal = true;
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
    pv_record_order order;
    bool consumed = consumed_order(tab, info, path_constraint, &order);
    if (!consumed && grouped_keys(tab, info, &plan)) {
        plan.grouped = true;
        info->orderByConsumed = 1;
    } else if (consumed) {
        plan.order = order;
        plan.order_consumed = true;
        info->orderByConsumed = 1;
    } else if ((plan.row_order = table_row_order(tab, info, path_constraint)) != 0) {
        info->orderByConsumed = 1;
    } else if (info->nOrderBy > 0 && tab->ordered_rows &&
               !pv_reads_replayed(tab->def, (uint64_t)info->colUsed)) {
        /* SQLite sorts (or groups) the rows itself: the order they come
         * in decides nothing SQL defines, so the cheapest, file order */
        plan.order = PV_ORDER_FILE;
    }
    int rc = plan_encode(&plan, info);
    if (rc != SQLITE_OK)
        return rc;
    info->estimatedCost = cost;
    info->estimatedRows = path_constraint < 0 ? (sqlite3_int64)1 << 62 : rows;
    return SQLITE_OK;
}

/*
 * The plan xFilter is given, as plan_encode wrote it.
 *
 * idxNum bit 0: the path comes from an equality constraint (argv[0]).
 * Then, each with the next argv value in bit order, constraints the reader
 * tests before a row reaches SQLite (record_filter.h); SQLite checks them
 * again (omit = 0), so the reader may let through more than asked for:
 *   bit 1  time >= or > value   (a lower bound; with a time index, only the
 *   bit 2  time <= or < value    chunks that meet the range are read)
 *   bit 3  time = value
 *   bit 4  pid = value     bit 5  tid = value     bit 6  cpu = value
 *   bit 7  event = value (an event name)
 * Then the order rows come in (time_order.h), when SQLite need not sort:
 *   bit 8  ORDER BY time (then record): strictly by time
 *   bit 9  ORDER BY record (or rowid): file order; also when SQLite
 *          sorts or groups the rows itself, so that they cost no ordering
 *   neither: perf's time order, the default
 *   bit 10 the order is SQLite's ORDER BY (orderByConsumed)
 *   bit 11 record = value (perf_callchains: sample = value), the next
 *          argv: the one record is looked up (record_lookup.h), not
 *          scanned for, and SQLite does not test the equality again
 *          (omit).  Such a plan pushes nothing else down: SQLite
 *          tests the rest on the record's rows, and a join or correlated
 *          subquery asking for one ordinal after another keeps its lookup
 *          (vtab_keeper.c).
 *   bit 12 a grouped scan: the query's GROUP BY or DISTINCT only needs
 *          the rows of a group together (sqlite3_vtab_distinct() 1 or 3);
 *          xFilter reads them all into groups (render/row_groups.h) and
 *          hands them out sorted by the keys, so SQLite's sorter never
 *          sees a row.  With rows equal in every column read stored
 *          once, what is held grows with the distinct rows.
 *   bits 13-15  1 + the index of the table's own order the ORDER BY is
 *          (PvTableDef.row_orders; consumed): first() sorts the rows so
 *          (0: none).
 * idxStr: hex of colUsed, so the cursor decodes only the columns read;
 * for a grouped scan, then ":" and the key columns, each in hex and
 * followed by "+" (ascending) or "-" (descending).
 *
 * Read in two calls: the arguments (pv_plan_decode_args), all that the
 * next lookup of a join needs, once per outer row; then the rest
 * (pv_plan_decode_rest) for a filter that starts anew.
 */
void pv_plan_decode_args(int idxNum, const char *idxStr, int argc, sqlite3_value **argv,
                         PvPlan *plan)
{
    plan->idx_num = idxNum;
    plan->idx_str = idxStr;
    int arg = 0;
    plan->has_path = (idxNum & IDX_PATH) != 0;
    plan->path = plan->has_path && argc > 0 ? argv[arg] : NULL;
    arg += plan->has_path;
    /* the kinds pushed, in bit order: none for a lookup */
    plan->pushed = ((unsigned)idxNum >> 1) & ((1u << PUSH_KINDS) - 1);
    memset(plan->pushed_value, 0, sizeof plan->pushed_value);
    for (unsigned left = plan->pushed; left; left &= left - 1) {
        if (arg < argc)
            plan->pushed_value[__builtin_ctz(left)] = argv[arg];
        arg++;
    }
    plan->by_ordinal = (idxNum & IDX_ORDINAL) != 0;
    plan->ordinal = plan->by_ordinal && arg < argc ? argv[arg] : NULL;
}

void pv_plan_decode_rest(PvPlan *plan)
{
    int idxNum = plan->idx_num;
    const char *idxStr = plan->idx_str;
    plan->order = (idxNum & IDX_ORDER_TIME) ? PV_ORDER_TIME
                : (idxNum & IDX_ORDER_FILE) ? PV_ORDER_FILE : PV_ORDER_PERF;
    plan->order_consumed = (idxNum & IDX_ORDER_CONSUMED) != 0;
    plan->row_order = (unsigned)(idxNum & IDX_ROW_ORDER_MASK) >> IDX_ROW_ORDER_SHIFT;
    const char *after;
    /* plan_encode's "%llx" and "%x": not strtoull, which costs a join on
     * the ordinal a third of its xFilter, called once per outer row */
    plan->columns_used = idxStr ? pv_hex_read(idxStr, 16, &after) : ~(uint64_t)0;
    const char *keys = idxStr ? strchr(idxStr, ':') : NULL;
    plan->grouped = (idxNum & IDX_GROUPED) && keys;
    plan->nr_keys = 0;
    memset(plan->keys, 0, sizeof plan->keys);
    if (!plan->grouped)
        return;
    keys++;
    while (*keys && plan->nr_keys < PV_ROW_GROUPS_MAX_CELLS) {
        const char *end;
        uint64_t col = pv_hex_read(keys, 16, &end);
        if (end == keys || col >= 63 || (*end != '+' && *end != '-'))
            break;
        plan->keys[plan->nr_keys++] = (PvGroupKey){ (int)col, *end == '-' };
        keys = end + 1;
    }
}
