#include "vtab_common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CACHE_SLOTS 8

/* One opened file.  The cache keeps files open between statements so that
 * the tables of a join, and the queries of a session, map a file once; a
 * file whose identity on disk changed is opened again. */
typedef struct PvCacheEntry {
    char *path;
    pv_file *file;
    int users;
    uint64_t last_used;
} PvCacheEntry;

struct PvCache {
    int refs;
    uint64_t clock;
    PvCacheEntry slots[CACHE_SLOTS];
};

typedef struct PvTab {
    sqlite3_vtab base;      /* must be first */
    const PvTableDef *def;
    PvCache *cache;
    int path_column;        /* index of the hidden path column */
    char *default_path;     /* from CREATE VIRTUAL TABLE ... USING m('path') */
} PvTab;

PvCache *pv_cache_new(void)
{
    PvCache *cache = sqlite3_malloc(sizeof *cache);
    if (cache) {
        memset(cache, 0, sizeof *cache);
        cache->refs = 1;
    }
    return cache;
}

void pv_cache_release(PvCache *cache)
{
    if (--cache->refs > 0)
        return;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        pv_file_close(cache->slots[i].file);
        sqlite3_free(cache->slots[i].path);
    }
    sqlite3_free(cache);
}

static bool same_file_on_disk(const pv_file *f)
{
    struct stat st;
    if (stat(f->data_path, &st) != 0)
        return false;
    uint64_t mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    return (uint64_t)st.st_dev == f->dev && (uint64_t)st.st_ino == f->ino &&
           mtime == f->mtime_ns && (uint64_t)st.st_size == f->file_size;
}

static void clear_slot(PvCacheEntry *e)
{
    pv_file_close(e->file);
    sqlite3_free(e->path);
    memset(e, 0, sizeof *e);
}

/* Returns an open file for path, shared when possible. */
static int cache_acquire(PvCache *cache, const char *path, pv_file **out, pv_error *err)
{
    PvCacheEntry *victim = NULL;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        PvCacheEntry *e = &cache->slots[i];
        if (e->file && strcmp(e->path, path) == 0) {
            if (same_file_on_disk(e->file)) {
                e->users++;
                e->last_used = ++cache->clock;
                *out = e->file;
                return 0;
            }
            if (e->users == 0)
                clear_slot(e);
        }
    }
    for (int i = 0; i < CACHE_SLOTS; i++) {
        PvCacheEntry *e = &cache->slots[i];
        if (!e->file) {
            victim = e;
            break;
        }
        if (e->users == 0 && (!victim || e->last_used < victim->last_used))
            victim = e;
    }
    pv_file *f;
    if (pv_file_open(path, &f, err))
        return -1;
    if (victim) {
        char *copy = sqlite3_mprintf("%s", path);
        if (copy) {
            if (victim->file)
                clear_slot(victim);
            victim->path = copy;
            victim->file = f;
            victim->users = 1;
            victim->last_used = ++cache->clock;
        }
    }
    *out = f;
    return 0;
}

static void cache_release(PvCache *cache, pv_file *f)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache->slots[i].file == f) {
            cache->slots[i].users--;
            return;
        }
    pv_file_close(f);  /* not cached: this cursor's own */
}

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

/*
 * idxNum bit 0: the path comes from an equality constraint (argv[0]).
 * idxStr: hex of colUsed, so the cursor decodes only the columns read.
 */
static int pvBestIndex(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
    PvTab *tab = (PvTab *)vtab;
    int path_constraint = -1;
    bool unusable_path = false;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (c->iColumn != tab->path_column)
            continue;
        if (c->op != SQLITE_INDEX_CONSTRAINT_EQ)
            continue;
        if (!c->usable) {
            unusable_path = true;
            continue;
        }
        path_constraint = i;
    }
    if (path_constraint < 0 && unusable_path)
        return SQLITE_CONSTRAINT;
    info->idxNum = 0;
    if (path_constraint >= 0) {
        info->aConstraintUsage[path_constraint].argvIndex = 1;
        info->aConstraintUsage[path_constraint].omit = 1;
        info->idxNum |= 1;
    }
    info->idxStr = sqlite3_mprintf("%llx", (unsigned long long)info->colUsed);
    info->needToFreeIdxStr = 1;
    info->estimatedCost = 1e6;
    info->estimatedRows = 100000;
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

static void cursor_reset(PvCursor *cur)
{
    if (cur->def->reset)
        cur->def->reset(cur);
    if (cur->state)
        memset(cur->state, 0, cur->def->state_size);
    if (cur->file)
        cache_release(cur->cache, cur->file);
    cur->file = NULL;
    cur->eof = true;
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
    if (cache_acquire(cur->cache, path, &cur->file, &err))
        return cursor_error(cur, &err);
    cur->eof = false;
    if (tab->def->first(cur, &err))
        return cursor_error(cur, &err);
    return SQLITE_OK;
}

static int pvNext(sqlite3_vtab_cursor *base)
{
    PvCursor *cur = (PvCursor *)base;
    pv_error err;
    if (cur->def->next(cur, &err))
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
    *rowid = ((PvCursor *)base)->rowid;
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
    cache->refs++;
    return sqlite3_create_module_v2(db, def->name, &pv_module, pair, free_pair);
}

void pv_result_text_buffer(PvCursor *cur, sqlite3_context *ctx)
{
    if (cur->text.failed) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_text64(ctx, pv_strbuf_text(&cur->text), cur->text.len, SQLITE_TRANSIENT,
                          SQLITE_UTF8);
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

int pv_record_rows_next(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    for (;;) {
        int rc = pv_walk_next(&rows->walk, &rows->record, err);
        if (rc <= 0) {
            cur->eof = rc == 0;
            return rc;
        }
        if (cur->def->wants && !cur->def->wants(rows->record.type))
            continue;
        cur->rowid = (sqlite3_int64)rows->record.index;
        return cur->def->decode ? cur->def->decode(cur, err) : 0;
    }
}

int pv_record_rows_first(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    pv_walk_start(&rows->walk, cur->file);
    return pv_record_rows_next(cur, err);
}

void pv_record_rows_reset(PvCursor *cur)
{
    PvRecordRows *rows = cur->state;
    pv_walk_end(&rows->walk);
}
