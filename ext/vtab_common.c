#include "vtab_common.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_cache.h"
#include "row_values.h"

/* A grouped scan holds the distinct rows of the columns read (a GROUP BY
 * that also reads a column differing on most rows, a varying period say,
 * holds nearly every row); past this it stops, with an error saying how to
 * leave the grouping to SQLite's sorter, which spills to disk. */
#define PV_GROUPED_SCAN_MAX_BYTES (256u << 20)

/* Constraints the reader tests itself, in the order of their idxNum bits
 * (see pvBestIndex). */
enum {
    PUSH_TIME_MIN, PUSH_TIME_MAX, PUSH_TIME_EQ, PUSH_PID, PUSH_TID, PUSH_CPU, PUSH_EVENT,
    PUSH_KINDS
};

typedef struct PvTab {
    sqlite3_vtab base;      /* must be first */
    const PvTableDef *def;
    PvCache *cache;
    int path_column;        /* index of the hidden path column */
    char *default_path;     /* from CREATE VIRTUAL TABLE ... USING m('path') */
    /* columns named time, pid, tid, cpu, event when pushed down, else -1 */
    int time_column, pid_column, tid_column, cpu_column, event_column;
    /* Rows are records in a scan (PvRecordRows), whose order can be
     * chosen; with time in order_time_column (-1: none, or rows without a
     * time among them) and the record's ordinal in record_column (-1: none). */
    bool ordered_rows;
    int order_time_column, record_column;
} PvTab;

/* 'a.data' or "a.data" or a.data -> a.data */
static char *unquote(const char *arg)
{
    size_t n = strlen(arg);
    if (n >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[n - 1] == arg[0]) {
        char q = arg[0];
        char *out = sqlite3_malloc64(n);
        if (!out)
            return NULL;
        size_t k = 0;
        for (size_t i = 1; i + 1 < n; i++) {
            out[k++] = arg[i];
            if (arg[i] == q && arg[i + 1] == q)
                i++;
        }
        out[k] = 0;
        return out;
    }
    return sqlite3_mprintf("%s", arg);
}

/* Index of the column called name in a declaration list, or -1. */
static int column_index(const char *columns, const char *name)
{
    size_t n = strlen(name);
    int index = 0;
    const char *p = columns;
    for (;;) {
        while (*p == ' ')
            p++;
        if (strncmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == ',' || p[n] == 0))
            return index;
        p = strchr(p, ',');
        if (!p)
            return -1;
        p++;
        index++;
    }
}

static int count_columns(const char *columns)
{
    int n = 1;
    for (const char *p = columns; *p; p++)
        n += *p == ',';
    return n;
}

static int pvConnect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                     sqlite3_vtab **out, char **errmsg)
{
    const PvTableDef *def = NULL;
    PvCache *cache = NULL;
    /* aux is a pair: the table definition and the connection's cache. */
    void **pair = aux;
    def = pair[0];
    cache = pair[1];
    if (argc > 4) {
        *errmsg = sqlite3_mprintf("%s: takes one argument, the path of a perf.data file or directory",
                                  def->name);
        return SQLITE_ERROR;
    }
    char *schema = sqlite3_mprintf("CREATE TABLE x(%s, path HIDDEN)", def->columns);
    if (!schema)
        return SQLITE_NOMEM;
    int rc = sqlite3_declare_vtab(db, schema);
    sqlite3_free(schema);
    if (rc != SQLITE_OK)
        return rc;
    /* A schema written by someone else must not read files through us. */
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    PvTab *tab = sqlite3_malloc(sizeof *tab);
    if (!tab)
        return SQLITE_NOMEM;
    memset(tab, 0, sizeof *tab);
    tab->def = def;
    tab->cache = cache;
    tab->path_column = count_columns(def->columns);
    bool by_time = def->pushdown & PV_PUSHDOWN_TIME;
    bool by_identity = def->pushdown & PV_PUSHDOWN_IDENTITY;
    tab->time_column = by_time ? column_index(def->columns, "time") : -1;
    tab->pid_column = by_identity ? column_index(def->columns, "pid") : -1;
    tab->tid_column = by_identity ? column_index(def->columns, "tid") : -1;
    tab->cpu_column = by_identity ? column_index(def->columns, "cpu") : -1;
    tab->event_column = by_identity ? column_index(def->columns, "event") : -1;
    tab->ordered_rows = def->wants || def->first == pv_record_rows_first;
    /* perf_records (no type test) has user records, whose time is NULL,
     * all through the file: SQLite sorts those */
    tab->order_time_column = tab->ordered_rows && def->wants ? column_index(def->columns, "time") : -1;
    tab->record_column = tab->ordered_rows ? column_index(def->columns, "record") : -1;
    if (argc == 4) {
        tab->default_path = unquote(argv[3]);
        if (!tab->default_path) {
            sqlite3_free(tab);
            return SQLITE_NOMEM;
        }
    }
    *out = &tab->base;
    return SQLITE_OK;
}

static int pvDisconnect(sqlite3_vtab *vtab)
{
    PvTab *tab = (PvTab *)vtab;
    sqlite3_free(tab->default_path);
    sqlite3_free(tab);
    return SQLITE_OK;
}

/* Which pushed-down constraint kind c is for this table, or -1. */
static int push_kind(const PvTab *tab, const struct sqlite3_index_constraint *c)
{
    int col = c->iColumn;
    if (col < 0)
        return -1;
    switch (c->op) {
    case SQLITE_INDEX_CONSTRAINT_EQ:
        if (col == tab->time_column) return PUSH_TIME_EQ;
        if (col == tab->pid_column) return PUSH_PID;
        if (col == tab->tid_column) return PUSH_TID;
        if (col == tab->cpu_column) return PUSH_CPU;
        if (col == tab->event_column) return PUSH_EVENT;
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

/*
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
 *   bit 11 a grouped scan: the query's GROUP BY or DISTINCT only needs
 *          the rows of a group together (sqlite3_vtab_distinct() 1 or 2);
 *          xFilter reads them all into groups (render/row_groups.h) and
 *          hands them out sorted by the keys, so SQLite's sorter never
 *          sees a row.  With rows equal in every column read stored
 *          once, what is held grows with the distinct rows.
 * idxStr: hex of colUsed, so the cursor decodes only the columns read;
 * for a grouped scan, then ":" and the key columns, each in hex and
 * followed by "+" (ascending) or "-" (descending).
 */
enum { IDX_ORDER_TIME = 1 << 8, IDX_ORDER_FILE = 1 << 9, IDX_ORDER_CONSUMED = 1 << 10,
       IDX_GROUPED = 1 << 11 };

/* Whether the rows may come from several files: a path, known while
 * planning, that is a pattern.  A bound path is not known: it is taken
 * for one file, and xFilter refuses a pattern then (see pvFilter). */
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
 * or 0 (SQLite sorts). */
static int consumed_order(const PvTab *tab, sqlite3_index_info *info, int path_constraint)
{
    if (!tab->ordered_rows || info->nOrderBy < 1 || info->nOrderBy > 2)
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

static int pvBestIndex(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
    PvTab *tab = (PvTab *)vtab;
    int path_constraint = -1;
    bool unusable_path = false;
    int pushed[PUSH_KINDS];
    for (int k = 0; k < PUSH_KINDS; k++)
        pushed[k] = -1;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (c->iColumn == tab->path_column && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
            if (!c->usable)
                unusable_path = true;
            else
                path_constraint = i;
            continue;
        }
        int kind = c->usable ? push_kind(tab, c) : -1;
        if (kind >= 0 && pushed[kind] < 0)
            pushed[kind] = i;
    }
    if (path_constraint < 0 && unusable_path)
        return SQLITE_CONSTRAINT;
    info->idxNum = 0;
    int argv_index = 0;
    if (path_constraint >= 0) {
        info->aConstraintUsage[path_constraint].argvIndex = ++argv_index;
        info->aConstraintUsage[path_constraint].omit = 1;
        info->idxNum |= 1;
    }
    double cost = 1e6;
    for (int k = 0; k < PUSH_KINDS; k++) {
        if (pushed[k] < 0)
            continue;
        info->aConstraintUsage[pushed[k]].argvIndex = ++argv_index;
        info->idxNum |= 2 << k;
        cost /= k <= PUSH_TIME_EQ ? 4 : 2;
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
    } else if (info->nOrderBy > 0 && tab->ordered_rows) {
        /* SQLite sorts (or groups) the rows itself: the order they come
         * in decides nothing SQL defines, so the cheapest, file order */
        info->idxNum |= IDX_ORDER_FILE;
    }
    info->idxStr = keys ? sqlite3_mprintf("%llx:%s", (unsigned long long)info->colUsed, keys)
                        : sqlite3_mprintf("%llx", (unsigned long long)info->colUsed);
    sqlite3_free(keys);
    info->needToFreeIdxStr = 1;
    info->estimatedCost = cost;
    info->estimatedRows = path_constraint < 0 ? (sqlite3_int64)1 << 62 : (sqlite3_int64)(cost / 10);
    return SQLITE_OK;
}

static int pvOpen(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out)
{
    PvTab *tab = (PvTab *)vtab;
    PvCursor *cur = sqlite3_malloc(sizeof *cur);
    if (!cur)
        return SQLITE_NOMEM;
    memset(cur, 0, sizeof *cur);
    cur->def = tab->def;
    cur->cache = tab->cache;
    cur->eof = true;
    if (tab->def->state_size) {
        cur->state = sqlite3_malloc64(tab->def->state_size);
        if (!cur->state) {
            sqlite3_free(cur);
            return SQLITE_NOMEM;
        }
        memset(cur->state, 0, tab->def->state_size);
    }
    *out = &cur->base;
    return SQLITE_OK;
}

static void free_paths(PvCursor *cur);

/* Lets go of the current file and what the table decoded from it. */
static void cursor_release_file(PvCursor *cur)
{
    if (cur->def->reset)
        cur->def->reset(cur);
    if (cur->state)
        memset(cur->state, 0, cur->def->state_size);
    if (cur->file)
        pv_cache_release_file(cur->cache, cur->file);
    cur->file = NULL;
    cur->eof = true;
}

static void free_groups(PvCursor *cur)
{
    if (cur->groups)
        pv_row_groups_free(cur->groups);
    sqlite3_free(cur->groups);
    cur->groups = NULL;
}

static void cursor_reset(PvCursor *cur)
{
    cursor_release_file(cur);
    free_groups(cur);
    free_paths(cur);
    sqlite3_free(cur->event_name);
    cur->event_name = NULL;
    memset(&cur->wanted, 0, sizeof cur->wanted);
}
static int pvClose(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    cursor_reset(cur);
    pv_strbuf_free(&cur->text);
    sqlite3_free(cur->state);
    sqlite3_free(cur);
    return SQLITE_OK;
}

static int cursor_error(PvCursor *cur, const pv_error *err)
{
    sqlite3_free(cur->base.pVtab->zErrMsg);
    cur->base.pVtab->zErrMsg = sqlite3_mprintf("%s", err->msg);
    cur->eof = true;
    return SQLITE_ERROR;
}

/* An integer bound from a constraint's value; false when the value is not
 * a number (the reader then does not filter: SQLite still does).  A real
 * is rounded outwards, so that no row SQLite would keep is dropped. */
static bool integer_bound(sqlite3_value *v, bool lower, int64_t *out)
{
    switch (sqlite3_value_numeric_type(v)) {
    case SQLITE_INTEGER:
        *out = sqlite3_value_int64(v);
        return true;
    case SQLITE_FLOAT: {
        double d = sqlite3_value_double(v);
        if (!(d > -9.2e18 && d < 9.2e18))
            return false;
        int64_t i = (int64_t)d;
        if (lower && (double)i > d) i--;
        if (!lower && (double)i < d) i++;
        *out = i;
        return true;
    }
    default:
        return false;
    }
}

/* Reads the pushed-down constraints (idxNum bits 1..7) into cur->wanted. */
static int parse_filter(PvCursor *cur, int idxNum, int argc, sqlite3_value **argv, pv_error *err)
{
    pv_record_filter *filter = &cur->wanted;
    memset(filter, 0, sizeof *filter);
    sqlite3_free(cur->event_name);
    cur->event_name = NULL;
    int arg = idxNum & 1;
    for (int k = 0; k < PUSH_KINDS; k++) {
        if (!(idxNum & (2 << k)) || arg >= argc)
            continue;
        sqlite3_value *v = argv[arg++];
        int64_t i;
        switch (k) {
        case PUSH_TIME_MIN:
        case PUSH_TIME_EQ:
            if (integer_bound(v, true, &i) && (!filter->has_time_min || i > filter->time_min)) {
                filter->time_min = i;
                filter->has_time_min = true;
            }
            if (k == PUSH_TIME_MIN)
                break;
            /* fall through */
        case PUSH_TIME_MAX:
            if (integer_bound(v, false, &i) && (!filter->has_time_max || i < filter->time_max)) {
                filter->time_max = i;
                filter->has_time_max = true;
            }
            break;
        case PUSH_PID:
        case PUSH_TID:
            /* A pid that is not an int32 matches no row; keep SQLite's say. */
            if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER)
                break;
            i = sqlite3_value_int64(v);
            if (i < INT32_MIN || i > INT32_MAX)
                break;
            if (k == PUSH_PID) { filter->pid = (int32_t)i; filter->has_pid = true; }
            else { filter->tid = (int32_t)i; filter->has_tid = true; }
            break;
        case PUSH_CPU:
            if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER)
                break;
            i = sqlite3_value_int64(v);
            if (i < 0 || i > UINT32_MAX)
                break;
            filter->cpu = (uint32_t)i;
            filter->has_cpu = true;
            break;
        case PUSH_EVENT:
            if (sqlite3_value_type(v) == SQLITE_TEXT) {
                cur->event_name = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(v));
                if (!cur->event_name)
                    return pv_error_set(err, "out of memory");
            }
            break;
        }
    }
    filter->active = filter->has_time_min || filter->has_time_max || filter->has_pid ||
                     filter->has_tid || filter->has_cpu || cur->event_name;
    return 0;
}

/* The scan's filter for the cursor's current file (see PvRecordRows). */
static int apply_filter(PvCursor *cur, pv_error *err)
{
    if (!cur->wanted.active)
        return 0;
    PvRecordRows *rows = cur->state;
    rows->filter = cur->wanted;
    rows->filter.event_matches = NULL;
    if (cur->event_name &&
        pv_record_filter_set_event(&rows->filter, cur->file, cur->event_name, err))
        return -1;
    return 0;
}

static bool has_glob_characters(const char *path)
{
    return strpbrk(path, "*?[") != NULL;
}

/* A path with wildcards that names no file itself: the files it matches. */
static int expand_glob(PvCursor *cur, const char *pattern, pv_error *err)
{
    glob_t g;
    memset(&g, 0, sizeof g);
    int rc = glob(pattern, 0, NULL, &g);
    if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
        globfree(&g);
        return pv_error_set(err, "%s: no such file, and no file matches it as a pattern", pattern);
    }
    if (rc != 0) {
        globfree(&g);
        return pv_error_set(err, "%s: cannot expand the pattern", pattern);
    }
    cur->paths = sqlite3_malloc64(g.gl_pathc * sizeof *cur->paths);
    if (!cur->paths) {
        globfree(&g);
        return pv_error_set(err, "%s: out of memory", pattern);
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        cur->paths[i] = sqlite3_mprintf("%s", g.gl_pathv[i]);
        if (!cur->paths[i]) {
            cur->nr_paths = i;
            globfree(&g);
            return pv_error_set(err, "%s: out of memory", pattern);
        }
    }
    cur->nr_paths = g.gl_pathc;
    globfree(&g);
    return 0;
}

static void free_paths(PvCursor *cur)
{
    for (size_t i = 0; i < cur->nr_paths; i++)
        sqlite3_free(cur->paths[i]);
    sqlite3_free(cur->paths);
    cur->paths = NULL;
    cur->nr_paths = cur->next_path = 0;
}

/* Opens path and positions the cursor on its first row. */
static int start_file(PvCursor *cur, const char *path, pv_error *err)
{
    if (pv_cache_acquire_file(cur->cache, path, &cur->file, err) || apply_filter(cur, err))
        return -1;
    cur->eof = false;
    return cur->def->first(cur, err);
}

/* At the end of one file of a pattern, goes on with the next that has rows. */
static int next_file(PvCursor *cur, pv_error *err)
{
    while (cur->eof && cur->next_path < cur->nr_paths) {
        cursor_release_file(cur);
        if (start_file(cur, cur->paths[cur->next_path++], err))
            return -1;
    }
    return 0;
}

/* A grouped scan: reads every row of every file into cur->groups, keys
 * (idxStr's tail, see pvBestIndex) first, then the other columns read,
 * and positions on the first entry. */
static int group_rows(PvCursor *cur, const PvTab *tab, const char *path, const char *keys)
{
    pv_error err;
    int columns[PV_ROW_GROUPS_MAX_CELLS];
    bool desc[PV_ROW_GROUPS_MAX_CELLS];
    unsigned nkeys = 0, ncells = 0;
    uint64_t taken = 0;
    memset(cur->cell_of, -1, sizeof cur->cell_of);
    while (*keys && ncells < PV_ROW_GROUPS_MAX_CELLS) {
        char *end;
        unsigned long col = strtoul(keys, &end, 16);
        if (end == keys || col >= 63 || (*end != '+' && *end != '-'))
            break;
        desc[nkeys++] = *end == '-';
        columns[ncells] = (int)col;
        cur->cell_of[col] = (int8_t)ncells++;
        taken |= (uint64_t)1 << col;
        keys = end + 1;
    }
    for (int col = 0; col < 63 && ncells < PV_ROW_GROUPS_MAX_CELLS; col++) {
        if (pv_column_used(cur, col) && !((taken >> col) & 1)) {
            columns[ncells] = col;
            cur->cell_of[col] = (int8_t)ncells++;
        }
    }
    cur->groups = sqlite3_malloc(sizeof *cur->groups);
    if (!cur->groups)
        return SQLITE_NOMEM;
    pv_row_groups_init(cur->groups, nkeys, ncells, desc);
    /* the rows' order is the groups': the cheapest scan */
    cur->order = PV_ORDER_FILE;
    if (start_file(cur, path, &err) || next_file(cur, &err))
        return cursor_error(cur, &err);
    pv_value cells[PV_ROW_GROUPS_MAX_CELLS];
    while (!cur->eof) {
        for (unsigned c = 0; c < ncells; c++) {
            if (columns[c] == tab->path_column)
                cells[c] = pv_text_value(cur->file->path);
            else if (cur->def->value(cur, columns[c], &cells[c], &err))
                return cursor_error(cur, &err);
        }
        if (pv_row_groups_add(cur->groups, cells, cur->rowid)) {
            pv_error_set(&err, "%s: out of memory grouping the rows", tab->def->name);
            return cursor_error(cur, &err);
        }
        if (pv_row_groups_bytes(cur->groups) > PV_GROUPED_SCAN_MAX_BYTES) {
            pv_error_set(&err,
                         "%s: grouping these rows in the table would take over %u MiB (%zu "
                         "different rows of the columns read); write the grouping as "
                         "GROUP BY +column to let SQLite sort them, spilling to disk",
                         tab->def->name, PV_GROUPED_SCAN_MAX_BYTES >> 20,
                         cur->groups->nr_entries);
            return cursor_error(cur, &err);
        }
        if (cur->def->next(cur, &err) || next_file(cur, &err))
            return cursor_error(cur, &err);
    }
    /* the rows are all read: the file and what decoded it can go */
    cursor_release_file(cur);
    if (pv_row_groups_finish(cur->groups)) {
        pv_error_set(&err, "%s: out of memory grouping the rows", tab->def->name);
        return cursor_error(cur, &err);
    }
    cur->entry = 0;
    cur->eof = cur->groups->nr_entries == 0;
    if (!cur->eof) {
        cur->repeat = pv_row_groups_count(cur->groups, 0);
        cur->rowid = pv_row_groups_id(cur->groups, 0);
    }
    return SQLITE_OK;
}

static int pvFilter(sqlite3_vtab_cursor *base, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv)
{
    PvCursor *cur = (PvCursor *)base;
    PvTab *tab = (PvTab *)base->pVtab;
    cursor_reset(cur);
    const char *path = tab->default_path;
    if ((idxNum & 1) && argc > 0)
        path = (const char *)sqlite3_value_text(argv[0]);
    pv_error err;
    if (!path || !*path) {
        pv_error_set(&err, "%s: needs the path of a perf.data file or directory, "
                     "e.g. SELECT * FROM %s('perf.data')", tab->def->name, tab->def->name);
        return cursor_error(cur, &err);
    }
    cur->columns_used = idxStr ? strtoull(idxStr, NULL, 16) : ~(uint64_t)0;
    cur->order = (idxNum & IDX_ORDER_TIME) ? PV_ORDER_TIME
               : (idxNum & IDX_ORDER_FILE) ? PV_ORDER_FILE : PV_ORDER_PERF;
    if (parse_filter(cur, idxNum, argc, argv, &err))
        return cursor_error(cur, &err);
    struct stat st;
    if (has_glob_characters(path) && stat(path, &st) != 0) {
        if (expand_glob(cur, path, &err))
            return cursor_error(cur, &err);
        if ((idxNum & IDX_ORDER_CONSUMED) && cur->nr_paths > 1) {
            pv_error_set(&err, "%s: ORDER BY %s over the files of a pattern (%s) needs the "
                         "pattern written in the query, not bound: then SQLite sorts the rows "
                         "of all the files", tab->def->name,
                         (idxNum & IDX_ORDER_TIME) ? "time" : "record", path);
            return cursor_error(cur, &err);
        }
        path = cur->paths[cur->next_path++];
    }
    if ((idxNum & IDX_GROUPED) && idxStr && strchr(idxStr, ':'))
        return group_rows(cur, tab, path, strchr(idxStr, ':') + 1);
    if (start_file(cur, path, &err) || next_file(cur, &err))
        return cursor_error(cur, &err);
    return SQLITE_OK;
}

static int pvNext(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    pv_error err;
    if (cur->groups) {
        /* rows equal in every column read are one entry, handed out
         * as many times as they came */
        if (--cur->repeat == 0 && ++cur->entry < cur->groups->nr_entries) {
            cur->repeat = pv_row_groups_count(cur->groups, cur->entry);
            cur->rowid = pv_row_groups_id(cur->groups, cur->entry);
        }
        cur->eof = cur->entry >= cur->groups->nr_entries;
        return SQLITE_OK;
    }
    if (cur->def->next(cur, &err) || next_file(cur, &err))
        return cursor_error(cur, &err);
    return SQLITE_OK;
}

static int pvEof(sqlite3_vtab_cursor *base)
{
    return ((PvCursor *)base)->eof;
}

static int pvColumn(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int i)
{
    PvCursor *cur = (PvCursor *)base;
    PvTab *tab = (PvTab *)base->pVtab;
    if (cur->groups) {
        int cell = i >= 0 && i < 64 ? cur->cell_of[i] : -1;
        if (cell >= 0) {
            pv_value v = pv_row_groups_cell(cur->groups, cur->entry, (unsigned)cell);
            pv_result_value(ctx, &v);
        }
        return SQLITE_OK;
    }
    if (i == tab->path_column) {
        sqlite3_result_text(ctx, cur->file->path, -1, SQLITE_TRANSIENT);
        return SQLITE_OK;
    }
    return cur->def->column(cur, ctx, i);
}

static int pvRowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
    PvCursor *cur = (PvCursor *)base;
    /* Rows equal in every column read are one entry of a grouped scan, so
     * it has no rowid of each; SQLite does not say beforehand whether a
     * query reads the rowid, so the query fails rather than be wrong. */
    if (cur->groups) {
        sqlite3_free(base->pVtab->zErrMsg);
        base->pVtab->zErrMsg = sqlite3_mprintf(
            "%s: the rowid cannot be read where the table groups the rows itself "
            "(GROUP BY or DISTINCT over its columns); read the record column instead",
            cur->def->name);
        return SQLITE_ERROR;
    }
    *rowid = cur->rowid;
    return SQLITE_OK;
}

static const sqlite3_module pv_module = {
    .iVersion = 0,
    .xCreate = pvConnect,
    .xConnect = pvConnect,
    .xBestIndex = pvBestIndex,
    .xDisconnect = pvDisconnect,
    .xDestroy = pvDisconnect,
    .xOpen = pvOpen,
    .xClose = pvClose,
    .xFilter = pvFilter,
    .xNext = pvNext,
    .xEof = pvEof,
    .xColumn = pvColumn,
    .xRowid = pvRowid,
};

static void free_pair(void *p)
{
    void **pair = p;
    pv_cache_release(pair[1]);
    sqlite3_free(pair);
}

int pv_register_table(sqlite3 *db, const PvTableDef *def, PvCache *cache)
{
    void **pair = sqlite3_malloc(2 * sizeof *pair);
    if (!pair)
        return SQLITE_NOMEM;
    pair[0] = (void *)def;
    pair[1] = cache;
    pv_cache_retain(cache);
    return sqlite3_create_module_v2(db, def->name, &pv_module, pair, free_pair);
}

void pv_result_strbuf(sqlite3_context *ctx, pv_strbuf *b)
{
    if (b->failed) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_text64(ctx, pv_strbuf_text(b), b->len, SQLITE_TRANSIENT, SQLITE_UTF8);
}

void pv_result_value(sqlite3_context *ctx, const pv_value *v)
{
    if (v->type == PV_VALUE_INT)
        sqlite3_result_int64(ctx, v->i);
    else if (v->type == PV_VALUE_TEXT)
        /* -1: the copy ends in a NUL, so reading it as text copies no more */
        sqlite3_result_text(ctx, v->bytes, -1, SQLITE_TRANSIENT);
}

pv_value pv_text_value(const char *s)
{
    if (!s)
        return pv_null_value();
    return (pv_value){ PV_VALUE_TEXT, 0, 0, s, strlen(s) };
}

void pv_result_text_buffer(PvCursor *cur, sqlite3_context *ctx)
{
    pv_result_strbuf(ctx, &cur->text);
}

void pv_result_static_name(sqlite3_context *ctx, const char *literal)
{
    /* Static storage outlives every statement: see vtab_common.h. */
    sqlite3_result_text(ctx, literal, -1, SQLITE_STATIC);
}

/* Copied: the record's bytes live in the walk's window, which moves on at
 * the next row, while SQLite may keep a value longer (min(), a sorter). */
void pv_result_file_text(sqlite3_context *ctx, const char *s, uint64_t n)
{
    sqlite3_result_text64(ctx, s, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

void pv_result_file_blob(sqlite3_context *ctx, const void *p, uint64_t n)
{
    sqlite3_result_blob64(ctx, p ? p : "", n, SQLITE_TRANSIENT);
}

int pv_result_error(sqlite3_context *ctx, const pv_error *err)
{
    sqlite3_result_error(ctx, err->msg, -1);
    return SQLITE_ERROR;
}

int pv_record_rows_start(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    return pv_ordered_scan_start(&rows->scan, cur->file, &rows->filter, cur->def->wants,
                                 cur->order, err);
}

int pv_record_rows_next(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    int rc = pv_ordered_scan_next(&rows->scan, &rows->record, err);
    if (rc <= 0) {
        cur->eof = rc == 0;
        return rc;
    }
    cur->rowid = (sqlite3_int64)rows->record.index;
    return cur->def->decode ? cur->def->decode(cur, err) : 0;
}

int pv_record_rows_first(PvCursor *cur, pv_error *err)
{
    if (pv_record_rows_start(cur, err))
        return -1;
    return pv_record_rows_next(cur, err);
}

void pv_record_rows_reset(PvCursor *cur)
{
    PvRecordRows *rows = cur->state;
    pv_ordered_scan_end(&rows->scan);
    pv_record_filter_free(&rows->filter);
}
