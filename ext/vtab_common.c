#include "vtab_common.h"

#include <stdlib.h>
#include <string.h>

#include "file_cache.h"
#include "base/pv_alloc.h"
#include "row_values.h"
#include "vtab_tab.h"

/* A grouped scan holds the distinct rows of the columns read (a GROUP BY
 * that also reads a column differing on most rows, a varying period say,
 * holds nearly every row); past this it stops, with an error saying how to
 * leave the grouping to SQLite's sorter, which spills to disk. */
#define PV_GROUPED_SCAN_MAX_BYTES (256u << 20)


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
/* The reads of cur's file (its scan's, its symbolizer's) stop when the
 * statement is interrupted (ext/stop_probe.h): armed when the scan starts,
 * from the thread that runs it. */
static void arm_stop(PvCursor *cur)
{
    const pv_stop *stop = pv_stop_probe_arm(&cur->stop, ((PvTab *)cur->base.pVtab)->db);
    if (cur->file)
        pv_file_set_stop(cur->file, stop);
}

/* Per row: armed again when another cursor of the connection, sharing the
 * file, took the file's stop over (or dropped it when it closed). */
static inline void keep_stop(PvCursor *cur)
{
    if (cur->file && pv_file_stop(cur->file) != &cur->stop.stop)
        pv_file_set_stop(cur->file, &cur->stop.stop);
}

static void cursor_release_file(PvCursor *cur)
{
    if (cur->def->reset)
        cur->def->reset(cur);
    if (cur->state)
        memset(cur->state, 0, state_zero_size(cur->def));
    if (cur->file) {
        pv_file_clear_stop(cur->file, &cur->stop.stop);
        pv_cache_release_file(cur->cache, cur->file);
    }
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
    cur->by_ordinal = cur->ordinal_none = false;
    sqlite3_free(cur->ordinal_path);
    cur->ordinal_path = NULL;
    sqlite3_free(cur->ordinal_idx_str);
    cur->ordinal_idx_str = NULL;
    free_groups(cur);
    free_paths(cur);
    sqlite3_free(cur->event_name);
    cur->event_name = NULL;
    memset(&cur->wanted, 0, sizeof cur->wanted);
}
static void cursor_free(PvCursor *cur)
{
    pv_stop_probe_finish(&cur->stop);
    cursor_reset(cur);
    pv_strbuf_free(&cur->text);
    sqlite3_free(cur->state);
    sqlite3_free(cur);
}

static int pvClose(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    PvTab *tab = (PvTab *)base->pVtab;
    /* even for a cursor kept on: a live statement makes sqlite3_close wait */
    pv_stop_probe_finish(&cur->stop);
    if (tab->keeper == cur) {
        if (cur->by_ordinal && file_shared(cur) && !cur->spent) {
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
    return pv_error_code(err);
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

/* The ordinal asked for (idxNum bit 11) from its argv value, compared as
 * SQLite compares it with the INTEGER column: numeric affinity applied to
 * the value (sqlite3_value_numeric_type), so '5' and 5.0 are 5.  SQLite
 * does not test the equality again (omit, see pv_vtab_best_index): a value
 * no ordinal equals (NULL, negative, fractional, text that is not a
 * number, a blob) is a lookup with no rows. */
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
        cur->by_ordinal = cur->ordinal_none = true;
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

static void free_paths(PvCursor *cur)
{
    pv_path_list_free(&cur->paths);
    cur->next_path = 0;
}

/* Opens path and positions the cursor on its first row. */
static int start_file(PvCursor *cur, const char *path, pv_error *err)
{
    if (pv_cache_acquire_file(cur->cache, path, &cur->file, err))
        return -1;
    arm_stop(cur);
    /* only tables of records are given constraints (PvTableDef.pushdown) */
    if (cur->wanted.active && pv_record_rows_filter(cur, err))
        return -1;
    cur->eof = false;
    return cur->def->first(cur, err);
}

/* At the end of one file of a pattern or list, goes on with the next that has
 * rows. */
static int next_file(PvCursor *cur, pv_error *err)
{
    while (cur->eof && cur->next_path < cur->paths.nr) {
        cursor_release_file(cur);
        if (start_file(cur, cur->paths.paths[cur->next_path++], err))
            return -1;
    }
    return 0;
}

/* The path an xFilter is given: its argument, or the table's default;
 * NULL: none. */
static const char *path_text(const PvTab *tab, int idxNum, int argc, sqlite3_value **argv)
{
    if ((idxNum & 1) && argc > 0)
        return (const char *)sqlite3_value_text(argv[0]);
    return tab->default_path;
}

/* The path an xFilter is given, as bytes (NULL: none). */
typedef struct PathArg {
    const char *bytes;
    size_t len;
} PathArg;

/* A text argument's bytes are taken as they are: sqlite3_value_text
 * copies a bound text that has no NUL after it, once per outer row of a
 * join, only to compare it with the path of the row before. */
static PathArg path_arg(const PvTab *tab, int idxNum, int argc, sqlite3_value **argv)
{
    PathArg p;
    if ((idxNum & 1) && argc > 0 && sqlite3_value_type(argv[0]) == SQLITE_TEXT) {
        const char *bytes = sqlite3_value_blob(argv[0]);
        p.len = (size_t)sqlite3_value_bytes(argv[0]);
        p.bytes = bytes ? bytes : "";
        return p;
    }
    p.bytes = path_text(tab, idxNum, argc, argv);
    p.len = p.bytes ? strlen(p.bytes) : 0;
    return p;
}

/* Whether cur's lookup serves a filter of idxNum, idxStr over path. */
static bool lookup_serves(const PvCursor *cur, int idxNum, const char *idxStr, PathArg path)
{
    return cur->file && cur->by_ordinal && cur->paths.nr == 0 && idxNum == cur->ordinal_idx_num &&
           path.bytes && cur->ordinal_path && path.len == cur->ordinal_path_len &&
           memcmp(path.bytes, cur->ordinal_path, path.len) == 0 && idxStr &&
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
static void take_lookup(PvTab *tab, PvCursor *cur, int idxNum, const char *idxStr, PathArg path)
{
    PvCursor *keeper = tab->keeper;
    if (!keeper || keeper == cur || !keeper->eof || keeper->spent ||
        !lookup_serves(keeper, idxNum, idxStr, path))
        return;
    if (tab->keeper_closed && !file_shared(keeper)) {
        cursor_free(keeper);
        tab->keeper = NULL;
        return;
    }
    PvCursor held = *keeper;
    size_t head = offsetof(PvCursor, spent);
    memcpy((char *)keeper + head, (char *)cur + head, sizeof *cur - head);
    memcpy((char *)cur + head, (char *)&held + head, sizeof *cur - head);
    if (tab->keeper_closed)
        cursor_free(keeper);
    tab->keeper = cur;
    tab->keeper_closed = false;
}

/* Reads every row of every file into cur->groups (made anew): the cells
 * of columns[0..ncells).  -1 with err set (cur->groups NULL: out of
 * memory). */
static int read_groups(PvCursor *cur, const PvTab *tab, const char *path, const int *columns,
                       unsigned nkeys, unsigned ncells, const bool *desc, pv_error *err)
{
    free_groups(cur);
    cur->groups = sqlite3_malloc(sizeof *cur->groups);
    if (!cur->groups)
        return pv_error_set(err, "%s: out of memory grouping the rows", tab->def->name);
    pv_row_groups_init(cur->groups, nkeys, ncells, desc);
    if (start_file(cur, path, err) || next_file(cur, err))
        return -1;
    pv_value cells[PV_ROW_GROUPS_MAX_CELLS];
    while (!cur->eof) {
        for (unsigned c = 0; c < ncells; c++) {
            if (columns[c] == tab->path_column)
                cells[c] = pv_text_value(cur->file->path);
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
                                cur->groups->nr_entries);
        if (cur->def->next(cur, err) || next_file(cur, err))
            return -1;
    }
    /* the rows are all read: the file and what decoded it can go */
    cursor_release_file(cur);
    return 0;
}

/* A grouped scan: reads every row of every file into cur->groups, keys
 * (idxStr's tail, see pv_vtab_best_index) first, then the other columns read,
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
        return cur->groups ? cursor_error(cur, &err) : SQLITE_NOMEM;
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

static int filter_rows(sqlite3_vtab_cursor *base, int idxNum, const char *idxStr,
                       int argc, sqlite3_value **argv)
{
    PvCursor *cur = (PvCursor *)base;
    PvTab *tab = (PvTab *)base->pVtab;
    PathArg asked = path_arg(tab, idxNum, argc, argv);
    pv_error err;
    if ((idxNum & IDX_ORDINAL) && !cur->file)
        take_lookup(tab, cur, idxNum, idxStr, asked);
    /* The next ordinal of a join or correlated subquery, of the same file:
     * the lookup goes on from where it is, and the table keeps what it
     * built (the symbolizer's maps) */
    if (lookup_serves(cur, idxNum, idxStr, asked)) {
        read_ordinal(cur, idxNum, argc, argv);
        if (cur->by_ordinal) {
            cur->eof = false;
            if (cur->def->first(cur, &err))
                return cursor_error(cur, &err);
            return SQLITE_OK;
        }
    }
    cursor_reset(cur);
    /* a C path would end at the NUL: another file than the one named */
    if (asked.bytes && memchr(asked.bytes, 0, asked.len)) {
        pv_error_set(&err, "%s: a path with a NUL byte in it", tab->def->name);
        return cursor_error(cur, &err);
    }
    const char *path = path_text(tab, idxNum, argc, argv);
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
        cur->ordinal_path_len = strlen(path);
        cur->ordinal_idx_str = idxStr ? sqlite3_mprintf("%s", idxStr) : NULL;
    }
    const pv_stop *stop = pv_stop_probe_arm(&cur->stop, tab->db);
    if (pv_path_expand(tab->db, path, stop, &cur->paths, &err))
        return cursor_error(cur, &err);
    if (cur->paths.nr > 0) {
        if ((idxNum & IDX_ORDER_CONSUMED) && cur->paths.nr > 1) {
            pv_error_set(&err, "%s: ORDER BY %s over the files of a pattern (%s) needs the "
                         "pattern written in the query, not bound: then SQLite sorts the rows "
                         "of all the files (a list of paths likewise)", tab->def->name,
                         (idxNum & IDX_ORDER_TIME) ? "time" : "record", path);
            return cursor_error(cur, &err);
        }
        path = cur->paths.paths[cur->next_path++];
    }
    if ((idxNum & IDX_GROUPED) && idxStr && strchr(idxStr, ':'))
        return group_rows(cur, tab, path, strchr(idxStr, ':') + 1);
    if (start_file(cur, path, &err) || next_file(cur, &err))
        return cursor_error(cur, &err);
    return SQLITE_OK;
}

static int next_row(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    keep_stop(cur);
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
    if (cur->def->next(cur, &err) || (cur->eof && next_file(cur, &err)))
        return cursor_error(cur, &err);
    return SQLITE_OK;
}

static int pvEof(sqlite3_vtab_cursor *base)
{
    return ((PvCursor *)base)->eof;
}

static int column_value(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int i)
{
    PvCursor *cur = (PvCursor *)base;
    keep_stop(cur);
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
 * for a later lookup (take_lookup).
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

static int pvFilter(sqlite3_vtab_cursor *base, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv)
{
    unsigned long failures = pv_alloc_failures();
    int rc = filter_rows(base, idxNum, idxStr, argc, argv);
    if (pv_alloc_failures() != failures)
        rc = out_of_memory((PvCursor *)base, rc);
    return rc;
}

static int pvNext(sqlite3_vtab_cursor *base)
{
    unsigned long failures = pv_alloc_failures();
    int rc = next_row(base);
    if (pv_alloc_failures() != failures)
        rc = out_of_memory((PvCursor *)base, rc);
    return rc;
}

static int pvColumn(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int i)
{
    unsigned long failures = pv_alloc_failures();
    int rc = column_value(base, ctx, i);
    if (pv_alloc_failures() != failures) {
        ((PvCursor *)base)->spent = true;
        sqlite3_result_error_nomem(ctx);
        rc = SQLITE_NOMEM;
    }
    return rc;
}

static int pvRowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
    unsigned long failures = pv_alloc_failures();
    int rc = rowid_value(base, rowid);
    if (pv_alloc_failures() != failures)
        rc = out_of_memory((PvCursor *)base, rc);
    return rc;
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
