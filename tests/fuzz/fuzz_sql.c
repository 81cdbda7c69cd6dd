/*
 * libFuzzer target: SQL over every table.  Each input is opened in a fresh
 * in-memory database with perfvtab loaded, and `SELECT *` runs over every
 * module named perf_* (pragma_module_list, so tables added later are fuzzed
 * without touching this file), reading every column of every row.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_input.h"

int sqlite3_perfvtab_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api);

static void select_all(sqlite3 *db, const char *module, const char *path)
{
    char *sql = sqlite3_mprintf("SELECT *, path FROM \"%w\"(%Q)", module, path);
    sqlite3_stmt *stmt = NULL;
    if (sql && sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK) {
        volatile size_t sink = 0;
        int columns = sqlite3_column_count(stmt);
        while (sqlite3_step(stmt) == SQLITE_ROW)
            for (int i = 0; i < columns; i++) {
                /* blob then text: both conversions run, and the bytes are read */
                const unsigned char *p = sqlite3_column_blob(stmt, i);
                int n = sqlite3_column_bytes(stmt, i);
                for (int k = 0; p && k < n; k++)
                    sink += p[k];
                sqlite3_column_text(stmt, i);
            }
        (void)sink;
    }
    sqlite3_finalize(stmt);
    sqlite3_free(sql);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_input_file(data, size, path);
    static int registered;
    if (!registered) {
        /* the extension gets the api routines the way a loaded one does */
        sqlite3_auto_extension((void (*)(void))sqlite3_perfvtab_init);
        registered = 1;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        fprintf(stderr, "cannot open a database with perfvtab\n");
        abort();
    }
    sqlite3_stmt *modules = NULL;
    if (sqlite3_prepare_v2(db,
            "SELECT name FROM pragma_module_list WHERE name LIKE 'perf\\_%' ESCAPE '\\' "
            "ORDER BY name", -1, &modules, NULL) != SQLITE_OK)
        abort();
    char names[64][64];
    int nr = 0;
    while (sqlite3_step(modules) == SQLITE_ROW && nr < 64)
        snprintf(names[nr++], sizeof names[0], "%s", sqlite3_column_text(modules, 0));
    sqlite3_finalize(modules);
    for (int i = 0; i < nr; i++)
        select_all(db, names[i], path);
    sqlite3_close(db);
    close(fd);
    return 0;
}
