#include "vtab_common.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_cache.h"

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
    /* The column whose equality is a lookup by ordinal (-1: none). */
    int ordinal_column;
    /* The cursor that looked up an ordinal last (see take_lookup), kept
     * after its close while another cursor still reads its file. */
    struct PvCursor *keeper;
    bool keeper_closed;
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
    tab->ordinal_column = def->ordinal_column ? column_index(def->columns, def->ordinal_column) : -1;
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

static void cursor_free(PvCursor *cur);

static int pvDisconnect(sqlite3_vtab *vtab)
{
    PvTab *tab = (PvTab *)vtab;
    if (tab->keeper && tab->keeper_closed)
        cursor_free(tab->keeper);
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
 *   bit 11 record = value (perf_callchains: sample = value), the next
 *          argv: the one record is looked up (record_lookup.h), not
 *          scanned for.  Such a plan pushes nothing else down: SQLite
 *          tests the rest on the record's rows, and a join or correlated
 *          subquery asking for one ordinal after another keeps its lookup
 *          (see pvFilter).
 * idxStr: hex of colUsed, so the cursor decodes only the columns read.
 */
enum {
    IDX_ORDER_TIME = 1 << 8, IDX_ORDER_FILE = 1 << 9, IDX_ORDER_CONSUMED = 1 << 10,
    IDX_ORDINAL = 1 << 11,
};

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

static int pvBestIndex(sqlite3_vtab *vtab, sqlite3_index_info *info)
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
        int kind = c->usable ? push_kind(tab, c) : -1;
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
        info->idxNum |= IDX_ORDINAL;
        /* a few records' headers walked, or a few kept in memory */
        cost = 20;
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
    if (order) {
        info->idxNum |= order;
        info->orderByConsumed = 1;
    } else if (info->nOrderBy > 0 && tab->ordered_rows) {
        /* SQLite sorts (or groups) the rows itself: the order they come
         * in decides nothing SQL defines, so the cheapest, file order */
        info->idxNum |= IDX_ORDER_FILE;
    }
    info->idxStr = sqlite3_mprintf("%llx", (unsigned long long)info->colUsed);
    info->needToFreeIdxStr = 1;
    info->estimatedCost = cost;
    info->estimatedRows = path_constraint < 0 ? (sqlite3_int64)1 << 62 : rows;
    return SQLITE_OK;
}

static void cursor_reset(PvCursor *cur);

static size_t state_zero_size(const PvTableDef *def)
{
    return def->state_zeroed ? def->state_zeroed : def->state_size;
}

/* Whether another cursor than cur holds cur's file: the outer query of a
 * correlated subquery is still reading it. */
static bool file_shared(const PvCursor *cur)
{
    return cur->file && pv_cache_file_users(cur->cache, cur->file) >= 2;
}

static int pvOpen(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out)
{
    PvTab *tab = (PvTab *)vtab;
    /* a kept cursor whose file nobody reads any more: its statement ended */
    if (tab->keeper && tab->keeper_closed && !file_shared(tab->keeper)) {
        cursor_free(tab->keeper);
        tab->keeper = NULL;
    }
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
        memset(cur->state, 0, state_zero_size(tab->def));
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
        memset(cur->state, 0, state_zero_size(cur->def));
    if (cur->file)
        pv_cache_release_file(cur->cache, cur->file);
    cur->file = NULL;
    cur->eof = true;
}

static void cursor_reset(PvCursor *cur)
{
    cursor_release_file(cur);
    cur->by_ordinal = cur->ordinal_none = false;
    sqlite3_free(cur->ordinal_path);
    cur->ordinal_path = NULL;
    sqlite3_free(cur->ordinal_idx_str);
    cur->ordinal_idx_str = NULL;
    free_paths(cur);
    sqlite3_free(cur->event_name);
    cur->event_name = NULL;
    memset(&cur->wanted, 0, sizeof cur->wanted);
}
static void cursor_free(PvCursor *cur)
{
    cursor_reset(cur);
    pv_strbuf_free(&cur->text);
    sqlite3_free(cur->state);
    sqlite3_free(cur);
}

static int pvClose(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    PvTab *tab = (PvTab *)base->pVtab;
    if (tab->keeper == cur) {
        if (cur->by_ordinal && file_shared(cur)) {
            tab->keeper_closed = true;
            return SQLITE_OK;
        }
        tab->keeper = NULL;
    }
    cursor_free(cur);
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

/* The ordinal asked for (idxNum bit 11) from its argv value.  Not an
 * equality the lookup answers (text that is not a number, a blob): a scan,
 * and SQLite keeps the rows that are equal. */
static void read_ordinal(PvCursor *cur, int idxNum, int argc, sqlite3_value **argv)
{
    cur->by_ordinal = false;
    cur->ordinal_none = false;
    int arg = idxNum & 1;
    for (int k = 0; k < PUSH_KINDS; k++)
        arg += (idxNum & (2 << k)) != 0;
    if (!(idxNum & IDX_ORDINAL) || arg >= argc)
        return;
    sqlite3_value *v = argv[arg];
    switch (sqlite3_value_numeric_type(v)) {
    case SQLITE_NULL:
        /* NULL equals nothing */
        cur->by_ordinal = cur->ordinal_none = true;
        return;
    case SQLITE_INTEGER: {
        sqlite3_int64 i = sqlite3_value_int64(v);
        cur->by_ordinal = true;
        cur->ordinal_none = i < 0;
        cur->ordinal = (uint64_t)i;
        return;
    }
    case SQLITE_FLOAT: {
        /* 5.0 = 5; an ordinal is below 2^63 */
        double d = sqlite3_value_double(v);
        cur->by_ordinal = true;
        cur->ordinal_none = !(d >= 0 && d < 9.2e18) || (double)(uint64_t)d != d;
        cur->ordinal = cur->ordinal_none ? 0 : (uint64_t)d;
        return;
    }
    default:
        return;
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
    read_ordinal(cur, idxNum, argc, argv);
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
    /* ORDER BY time is released by the file's index, by ordinals */
    const PvTab *tab = (const PvTab *)cur->base.pVtab;
    uint64_t local = cur->def->record_local_columns;
    if (tab->path_column < 63)
        local |= (uint64_t)1 << tab->path_column;    /* the file's name */
    rows->filter.may_start_late = cur->order != PV_ORDER_TIME &&
                                  (cur->columns_used & ~local) == 0;
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

/* Whether cur's lookup serves a filter of idxNum, idxStr over path. */
static bool lookup_serves(const PvCursor *cur, int idxNum, const char *idxStr, const char *path)
{
    return cur->file && cur->by_ordinal && cur->nr_paths == 0 && idxNum == cur->ordinal_idx_num &&
           path && cur->ordinal_path && strcmp(path, cur->ordinal_path) == 0 && idxStr &&
           cur->ordinal_idx_str && strcmp(idxStr, cur->ordinal_idx_str) == 0;
}

/*
 * SQLite opens a correlated subquery's cursor anew for each outer row (and
 * closes the last one after opening the next).  A new cursor takes over
 * the lookup, walk and symbolizer of the one that looked up an ordinal
 * last, when that one is done (at its end: a cursor in the middle of its
 * rows is some query's, still read) and its file is still read by another
 * cursor if it is closed (then its statement most likely still runs; else
 * the file may have changed since).  The two swap what they hold.
 */
static void take_lookup(PvTab *tab, PvCursor *cur, int idxNum, const char *idxStr,
                        const char *path)
{
    PvCursor *keeper = tab->keeper;
    if (!keeper || keeper == cur || !keeper->eof || !lookup_serves(keeper, idxNum, idxStr, path))
        return;
    if (tab->keeper_closed && !file_shared(keeper)) {
        cursor_free(keeper);
        tab->keeper = NULL;
        return;
    }
    PvCursor held = *keeper;
    size_t head = sizeof keeper->base;
    memcpy((char *)keeper + head, (char *)cur + head, sizeof *cur - head);
    memcpy((char *)cur + head, (char *)&held + head, sizeof *cur - head);
    if (tab->keeper_closed)
        cursor_free(keeper);
    tab->keeper = cur;
    tab->keeper_closed = false;
}

static int pvFilter(sqlite3_vtab_cursor *base, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv)
{
    PvCursor *cur = (PvCursor *)base;
    PvTab *tab = (PvTab *)base->pVtab;
    const char *path = tab->default_path;
    if ((idxNum & 1) && argc > 0)
        path = (const char *)sqlite3_value_text(argv[0]);
    pv_error err;
    if ((idxNum & IDX_ORDINAL) && !cur->file)
        take_lookup(tab, cur, idxNum, idxStr, path);
    /* The next ordinal of a join or correlated subquery, of the same file:
     * the lookup goes on from where it is, and the table keeps what it
     * built (the symbolizer's maps) */
    if (lookup_serves(cur, idxNum, idxStr, path)) {
        read_ordinal(cur, idxNum, argc, argv);
        if (cur->by_ordinal) {
            cur->eof = false;
            if (cur->def->first(cur, &err))
                return cursor_error(cur, &err);
            return SQLITE_OK;
        }
    }
    cursor_reset(cur);
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
    if (cur->by_ordinal) {
        if (tab->keeper && tab->keeper != cur && tab->keeper_closed)
            cursor_free(tab->keeper);
        tab->keeper = cur;
        tab->keeper_closed = false;
        cur->ordinal_idx_num = idxNum;
        /* NULL: no going on */
        cur->ordinal_path = sqlite3_mprintf("%s", path);
        cur->ordinal_idx_str = idxStr ? sqlite3_mprintf("%s", idxStr) : NULL;
    }
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
    if (start_file(cur, path, &err) || next_file(cur, &err))
        return cursor_error(cur, &err);
    return SQLITE_OK;
}

static int pvNext(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    pv_error err;
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
    if (i == tab->path_column) {
        sqlite3_result_text(ctx, cur->file->path, -1, SQLITE_TRANSIENT);
        return SQLITE_OK;
    }
    return cur->def->column(cur, ctx, i);
}

static int pvRowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
    PvCursor *cur = (PvCursor *)base;
    if (cur->rowid_relative) {
        uint64_t ordinal;
        pv_error err;
        if (pv_record_rows_ordinal(cur, &ordinal, &err))
            return cursor_error(cur, &err);
        *rowid = (sqlite3_int64)ordinal;
        return SQLITE_OK;
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

int pv_record_rows_start(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    if (cur->by_ordinal) {
        if (!rows->lookup_started) {
            rows->lookup_started = true;
            if (pv_record_lookup_start(&rows->lookup, cur->file, &rows->filter, cur->def->wants,
                                       err))
                return -1;
        }
        rows->ordinal_pending = !cur->ordinal_none;
        return 0;
    }
    return pv_ordered_scan_start(&rows->scan, cur->file, &rows->filter, cur->def->wants,
                                 cur->order, err);
}

int pv_record_rows_next(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    int rc;
    if (cur->by_ordinal) {
        /* the one record asked for, then the end */
        rc = 0;
        if (rows->ordinal_pending) {
            rows->ordinal_pending = false;
            rc = pv_record_lookup_find(&rows->lookup, cur->ordinal, &rows->record, err);
        }
    } else {
        rc = pv_ordered_scan_next(&rows->scan, &rows->record, err);
    }
    if (rc <= 0) {
        cur->eof = rc == 0;
        return rc;
    }
    cur->rowid = (sqlite3_int64)rows->record.index;
    cur->rowid_relative = rows->scan.scan.late_start;
    return cur->def->decode ? cur->def->decode(cur, err) : 0;
}

int pv_record_rows_first(PvCursor *cur, pv_error *err)
{
    if (pv_record_rows_start(cur, err))
        return -1;
    return pv_record_rows_next(cur, err);
}

int pv_record_rows_ordinal(PvCursor *cur, uint64_t *ordinal, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    uint64_t base;
    if (pv_record_scan_ordinal_base(&rows->scan.scan, &base, err))
        return -1;
    *ordinal = base + rows->record.index;
    return 0;
}

void pv_record_rows_reset(PvCursor *cur)
{
    PvRecordRows *rows = cur->state;
    pv_ordered_scan_end(&rows->scan);
    if (rows->lookup_started)
        pv_record_lookup_end(&rows->lookup);
    rows->lookup_started = false;
    pv_record_filter_free(&rows->filter);
}
