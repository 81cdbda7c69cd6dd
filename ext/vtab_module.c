/*
 * The one SQLite module every table is (PvTableDef, vtab_common.h): it
 * works both as a table-valued function and with CREATE VIRTUAL TABLE.
 * Its methods read the plan (vtab_plan.c) and hand each concern to its
 * file (vtab_tab.h lists them).  Every method that can allocate reports
 * an allocation that failed during it (base/pv_alloc.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/pv_alloc.h"
#include "file_cache.h"
#include "vtab_tab.h"

static int pvConnect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                     sqlite3_vtab **out, char **errmsg)
{
    /* aux is a pair: the table definition and the connection's cache. */
    void **pair = aux;
    const PvTableDef *def = pair[0];
    PvCache *cache = pair[1];
    if (argc > 4) {
        *errmsg = sqlite3_mprintf("%s: takes one argument, the path of a perf.data file or directory",
                                  def->name);
        return SQLITE_ERROR;
    }
    /* A table kept in a database file with a path would read the file the
     * database's author named, for whoever opens the database. */
    if (argc == 4 && strcmp(argv[1], "temp") != 0) {
        *errmsg = sqlite3_mprintf("%s: a table that names its file is made in the temp schema "
                                  "(CREATE VIRTUAL TABLE temp.%s USING %s(...)), not in '%s': "
                                  "there it would read the file the database's author named for "
                                  "whoever opens the database",
                                  def->name, argv[2], def->name, argv[1]);
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
    tab->db = db;
    tab->def = def;
    tab->cache = cache;
    tab->path_column = pv_vtab_count_columns(def->columns);
    bool by_time = def->pushdown & PV_PUSHDOWN_TIME;
    bool by_identity = def->pushdown & PV_PUSHDOWN_IDENTITY;
    tab->time_column = by_time ? pv_vtab_column_index(def->columns, "time") : -1;
    tab->pid_column = by_identity ? pv_vtab_column_index(def->columns, "pid") : -1;
    tab->tid_column = by_identity ? pv_vtab_column_index(def->columns, "tid") : -1;
    tab->cpu_column = by_identity ? pv_vtab_column_index(def->columns, "cpu") : -1;
    bool by_event = by_identity || (def->pushdown & PV_PUSHDOWN_EVENT_NAME);
    tab->event_column = by_event ? pv_vtab_column_index(def->columns, "event") : -1;
    tab->ordered_rows = def->wants || def->first == pv_record_rows_first;
    /* perf_records (no type test) has user records, whose time is NULL,
     * all through the file: SQLite sorts those */
    tab->order_time_column =
        tab->ordered_rows && def->wants ? pv_vtab_column_index(def->columns, "time") : -1;
    tab->record_column = tab->ordered_rows ? pv_vtab_column_index(def->columns, "record") : -1;
    tab->ordinal_column =
        def->ordinal_column ? pv_vtab_column_index(def->columns, def->ordinal_column) : -1;
    if (argc == 4) {
        tab->default_path = pv_vtab_unquote(argv[3]);
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
    pv_keeper_free(tab);
    sqlite3_free(tab->default_path);
    sqlite3_free(tab);
    return SQLITE_OK;
}

static int pvOpen(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out)
{
    PvTab *tab = (PvTab *)vtab;
    pv_keeper_drop_idle(tab);
    PvCursor *cur = pv_vtab_new_cursor(tab);
    if (!cur)
        return SQLITE_NOMEM;
    *out = &cur->base;
    return SQLITE_OK;
}

static int pvClose(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    /* even for a cursor kept on: a live statement makes sqlite3_close wait */
    pv_stop_probe_finish(&cur->stop);
    if (!pv_keeper_keeps((PvTab *)base->pVtab, cur))
        pv_vtab_free_cursor(cur);
    return SQLITE_OK;
}

static int filter_rows(sqlite3_vtab_cursor *base, int idxNum, const char *idxStr,
                       int argc, sqlite3_value **argv)
{
    PvCursor *cur = (PvCursor *)base;
    PvTab *tab = (PvTab *)base->pVtab;
    cur->kept_column = -1;
    PvPlan plan;
    pv_plan_decode_args(idxNum, idxStr, argc, argv, &plan);
    PvPathArg asked = pv_vtab_path_arg(tab, &plan);
    pv_error err;
    if (plan.by_ordinal && !cur->file)
        pv_keeper_take(tab, cur, &plan, asked);
    /* The next ordinal of a join or correlated subquery, of the same file:
     * the lookup goes on from where it is, and the table keeps what it
     * built (the symbolizer's maps) */
    if (pv_keeper_serves(cur, &plan, asked)) {
        pv_vtab_read_ordinal(cur, &plan);
        if (cur->by_ordinal) {
            cur->eof = false;
            if (cur->def->first(cur, &err))
                return pv_vtab_cursor_error(cur, &err);
            return SQLITE_OK;
        }
    }
    pv_plan_decode_rest(&plan);
    pv_vtab_reset_cursor(cur);
    /* a C path would end at the NUL: another file than the one named */
    if (asked.bytes && memchr(asked.bytes, 0, asked.len)) {
        pv_error_set(&err, "%s: a path with a NUL byte in it", tab->def->name);
        return pv_vtab_cursor_error(cur, &err);
    }
    const char *path = pv_vtab_path_text(tab, &plan);
    if (!path || !*path) {
        pv_error_set(&err, "%s: needs the path of a perf.data file or directory, "
                     "e.g. SELECT * FROM %s('perf.data')", tab->def->name, tab->def->name);
        return pv_vtab_cursor_error(cur, &err);
    }
    cur->columns_used = plan.columns_used;
    cur->order = plan.order;
    cur->row_order = plan.row_order;
    if (pv_vtab_read_constraints(cur, &plan, &err))
        return pv_vtab_cursor_error(cur, &err);
    if (cur->by_ordinal)
        pv_keeper_set(tab, cur, &plan, path);
    const pv_stop *stop = pv_stop_probe_arm(&cur->stop, tab->db);
    if (pv_path_expand(tab->db, path, stop, &cur->paths, &err))
        return pv_vtab_cursor_error(cur, &err);
    if (cur->paths.nr > 0) {
        if ((plan.order_consumed || plan.row_order) && cur->paths.nr > 1) {
            pv_error_set(&err, "%s: ORDER BY %s over the files of a pattern (%s) needs the "
                         "pattern written in the query, not bound: then SQLite sorts the rows "
                         "of all the files (a list of paths likewise)", tab->def->name,
                         plan.row_order ? "its columns"
                         : plan.order == PV_ORDER_TIME ? "time" : "record", path);
            return pv_vtab_cursor_error(cur, &err);
        }
        path = cur->paths.paths[cur->next_path++];
    }
    if (plan.grouped)
        return pv_grouped_scan(cur, tab, &plan, path);
    if (pv_vtab_start_file(cur, path, &err) || pv_vtab_next_file(cur, &err))
        return pv_vtab_cursor_error(cur, &err);
    return SQLITE_OK;
}

/* next_row when the table's next failed (rc) or ended a file: apart, so
 * that a row's path in pvNext makes no call but the table's next. */
static __attribute__((noinline)) int next_row_ended(PvCursor *cur, int rc, pv_error *err)
{
    if (rc || pv_vtab_next_file(cur, err))
        return pv_vtab_cursor_error(cur, err);
    return SQLITE_OK;
}

static inline __attribute__((always_inline)) int next_row(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    pv_vtab_keep_stop(cur);
    pv_error err;
    if (cur->groups) {
        pv_grouped_next(cur);
        return SQLITE_OK;
    }
    int rc = cur->def->next(cur, &err);
    if (rc || cur->eof)
        return next_row_ended(cur, rc, &err);
    return SQLITE_OK;
}

static int pvEof(sqlite3_vtab_cursor *base)
{
    return ((PvCursor *)base)->eof;
}

/* column_value's every case but a column of the table's own rows: apart,
 * so that pvColumn's path makes no call but the table's column. */
static __attribute__((noinline)) int column_other(PvCursor *cur, sqlite3_context *ctx, int i)
{
    if (cur->groups) {
        pv_grouped_column(cur, ctx, i);
        return SQLITE_OK;
    }
    sqlite3_result_text(ctx, pv_file_path(cur->file), -1, SQLITE_TRANSIENT);
    return SQLITE_OK;
}

static inline int column_value(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int i)
{
    PvCursor *cur = (PvCursor *)base;
    pv_vtab_keep_stop(cur);
    if (cur->groups || i == ((PvTab *)base->pVtab)->path_column)
        return column_other(cur, ctx, i);
    return cur->def->column(cur, ctx, i);
}

static int rowid_value(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
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

/*
 * An allocation that failed during a call makes the call fail, even where
 * the reader went on without the memory (base/pv_alloc.h): the row, the
 * value or the file's next rows may be short of it.  An error the call
 * reported is then said to be for want of memory (a buffer it could not
 * have may look like a damaged file).  The cursor is spent: it is not kept
 * for a later lookup (vtab_keeper.c).
 */
static int out_of_memory(PvCursor *cur, int rc)
{
    cur->spent = true;
    cur->eof = true;
    char *before = cur->base.pVtab->zErrMsg;
    cur->base.pVtab->zErrMsg =
        rc == SQLITE_OK || !before
            ? sqlite3_mprintf("%s: out of memory", cur->def->name)
            : sqlite3_mprintf("%s: out of memory (%s)", cur->def->name, before);
    sqlite3_free(before);
    return SQLITE_NOMEM;
}

/* A call during which the statement was stopped fails, even where its
 * work went on: the reader may have left debug info unread after the stop
 * (unwind/debug_cache.h), and what it made without it is not handed on. */
static int stopped(PvCursor *cur, int rc)
{
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_free(cur->base.pVtab->zErrMsg);
    cur->base.pVtab->zErrMsg = sqlite3_mprintf("%s: interrupted", cur->def->name);
    cur->eof = true;
    cur->spent = true;
    return SQLITE_INTERRUPT;
}

/* rc of a cursor's call begun when failures allocations had failed, made
 * to fail when an allocation failed or the statement was stopped during
 * it. */
static __attribute__((noinline)) int call_failed(PvCursor *cur, unsigned long failures, int rc)
{
    if (pv_alloc_failures() != failures)
        rc = out_of_memory(cur, rc);
    if (cur->stop.stopped)
        rc = stopped(cur, rc);
    return rc;
}

/* Inline: the test alone is on every row's path. */
static inline int call_ended(sqlite3_vtab_cursor *base, unsigned long failures, int rc)
{
    PvCursor *cur = (PvCursor *)base;
    if (__builtin_expect(pv_alloc_failures() != failures || cur->stop.stopped, 0))
        return call_failed(cur, failures, rc);
    return rc;
}

static int pvFilter(sqlite3_vtab_cursor *base, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv)
{
    unsigned long failures = pv_alloc_failures();
    return call_ended(base, failures, filter_rows(base, idxNum, idxStr, argc, argv));
}

int pv_vtab_next_checked(PvCursor *cur)
{
    sqlite3_vtab_cursor *base = &cur->base;
    unsigned long failures = pv_alloc_failures();
    return call_ended(base, failures, next_row(base));
}

static int pvNext(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    const PvTableDef *def = cur->def;
    if (def->row_next && !cur->groups)
        return def->row_next(cur);
    return pv_vtab_next_checked(cur);
}

/* As call_failed, but the error is the value's: the statement reports it. */
static __attribute__((noinline)) int column_failed(PvCursor *cur, sqlite3_context *ctx,
                                                   unsigned long failures, int rc)
{
    if (pv_alloc_failures() != failures) {
        cur->spent = true;
        sqlite3_result_error_nomem(ctx);
        rc = SQLITE_NOMEM;
    } else if (cur->stop.stopped) {
        cur->spent = true;
        sqlite3_result_error(ctx, "interrupted", -1);
        sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
        rc = SQLITE_INTERRUPT;
    }
    return rc;
}

int pv_vtab_column_checked(PvCursor *cur, sqlite3_context *ctx, int i)
{
    unsigned long failures = pv_alloc_failures();
    int rc = column_value(&cur->base, ctx, i);
    if (__builtin_expect(pv_alloc_failures() != failures || cur->stop.stopped, 0))
        return column_failed(cur, ctx, failures, rc);
    return rc;
}

static int pvColumn(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int i)
{
    PvCursor *cur = (PvCursor *)base;
    /* a value the row gave already: no call, nothing to fail */
    if (i == cur->kept_column) {
        if (!cur->kept_null)
            sqlite3_result_int64(ctx, cur->kept_value);
        return SQLITE_OK;
    }
    const PvTableDef *def = cur->def;
    if (def->row_column && !cur->groups)
        return def->row_column(cur, ctx, i);
    return pv_vtab_column_checked(cur, ctx, i);
}

static int pvRowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
    unsigned long failures = pv_alloc_failures();
    return call_ended(base, failures, rowid_value(base, rowid));
}

static const sqlite3_module pv_module = {
    .iVersion = 0,
    .xCreate = pvConnect,
    .xConnect = pvConnect,
    .xBestIndex = pv_vtab_best_index,
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
