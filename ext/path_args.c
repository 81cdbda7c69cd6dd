#include "path_args.h"

#include "path_glob.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

SQLITE_EXTENSION_INIT3

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int add_path(PvPathList *list, size_t *cap, const char *path, pv_error *err)
{
    if (list->nr == *cap) {
        size_t more = *cap ? 2 * *cap : 8;
        char **grown = sqlite3_realloc64(list->paths, more * sizeof *grown);
        if (!grown)
            return pv_error_set(err, "%s: out of memory", path);
        list->paths = grown;
        *cap = more;
    }
    list->paths[list->nr] = sqlite3_mprintf("%s", path);
    if (!list->paths[list->nr])
        return pv_error_set(err, "%s: out of memory", path);
    list->nr++;
    return 0;
}

/* Appends what one path or pattern names (path_glob.h: glob(3)'s matches,
 * bounded and stoppable). */
static int add_named(PvPathList *list, size_t *cap, const char *path, const pv_stop *stop,
                     pv_error *err)
{
    if (exists(path) || !pv_glob_is_pattern(path))
        return add_path(list, cap, path, err);
    char **matches = NULL;
    size_t count = 0;
    int rc = pv_glob_expand(path, stop, &matches, &count, err);
    for (size_t i = 0; rc == 0 && i < count; i++)
        rc = add_path(list, cap, matches[i], err);
    pv_glob_free(matches, count);
    return rc;
}

/* 1 when text is a JSON array, 0 when it is not, -1 on error. */
static int is_json_array(sqlite3 *db, const char *text, pv_error *err)
{
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p != '[')
        return 0;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT json_valid(?1) AND json_type(?1) = 'array'", -1,
                                &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    int array = rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_int(stmt, 0);
    if (rc != SQLITE_OK)
        pv_error_set(err, "%s: reading it as a JSON list: %s", text, sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    return rc != SQLITE_OK ? -1 : array;
}

/* The files of a JSON array of paths and patterns, through SQLite's
 * json_each (the same reading a query's json_each gives it). */
static int add_listed(sqlite3 *db, const char *text, PvPathList *list, size_t *cap,
                      const pv_stop *stop, pv_error *err)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT type, value FROM json_each(?1)", -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(stmt);
        return pv_error_set(err, "%s: reading it as a JSON list: %s", text, sqlite3_errmsg(db));
    }
    int failed = 0, n = 0;
    while (!failed && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(stmt, 0);
        const char *path = (const char *)sqlite3_column_text(stmt, 1);
        n++;
        if (!type || strcmp(type, "text") != 0 || !path || !*path)
            failed = pv_error_set(err, "%s: a list of paths holds strings, and its element %d "
                                  "is not one (or is empty)", text, n);
        else
            failed = add_named(list, cap, path, stop, err);
    }
    if (!failed && rc != SQLITE_DONE)
        failed = pv_error_set(err, "%s: reading it as a JSON list: %s", text, sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    if (!failed && n == 0)
        failed = pv_error_set(err, "%s: an empty list of paths", text);
    return failed ? -1 : 0;
}

int pv_path_expand(sqlite3 *db, const char *path, const pv_stop *stop, PvPathList *out,
                   pv_error *err)
{
    memset(out, 0, sizeof *out);
    if (exists(path))
        return 0;
    size_t cap = 0;
    int rc = is_json_array(db, path, err);
    if (rc > 0)
        rc = add_listed(db, path, out, &cap, stop, err);
    else if (rc == 0 && pv_glob_is_pattern(path))
        rc = add_named(out, &cap, path, stop, err);
    if (rc)
        pv_path_list_free(out);
    return rc;
}

void pv_path_list_free(PvPathList *list)
{
    for (size_t i = 0; i < list->nr; i++)
        sqlite3_free(list->paths[i]);
    sqlite3_free(list->paths);
    list->paths = NULL;
    list->nr = 0;
}
