/*
 * libFuzzer target: SQL over every table.  Each input is opened in a fresh
 * in-memory database with perfvtab loaded, and `SELECT *` runs over every
 * module named perf_* (pragma_module_list, so tables added later are fuzzed
 * without touching this file), reading every column of every row.  Then a
 * few queries whose WHERE terms the tables push down into the reader (time,
 * pid, tid, cpu, event; values taken from the file itself) and the flame
 * graph aggregates over stacks and names from the file.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_input.h"

int sqlite3_perfvtab_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api);

static const char *const pushdown_and_aggregates[] = {
    "SELECT count(*), sum(period) FROM perf_samples(?1) WHERE time BETWEEN "
    "(SELECT min(time) FROM perf_samples(?1)) + 1 AND (SELECT max(time) FROM perf_samples(?1)) - 1",
    "SELECT record, ip FROM perf_samples(?1) WHERE pid = (SELECT pid FROM perf_samples(?1) LIMIT 1 "
    "OFFSET 2) AND cpu = (SELECT cpu FROM perf_samples(?1) LIMIT 1 OFFSET 1)",
    "SELECT record, type FROM perf_records(?1) WHERE tid = (SELECT tid FROM perf_records(?1) "
    "WHERE tid IS NOT NULL LIMIT 1 OFFSET 3) AND time >= (SELECT time FROM perf_records(?1) "
    "WHERE time IS NOT NULL LIMIT 1 OFFSET 5)",
    "SELECT count(*) FROM perf_samples(?1) WHERE event = (SELECT name FROM perf_events(?1) "
    "ORDER BY idx DESC LIMIT 1)",
    "SELECT * FROM perf_mmaps(?1) WHERE time < (SELECT max(time) FROM perf_samples(?1)) AND pid > 0",
    "SELECT perf_flamegraph(stack, 1, 'fuzz') FROM (SELECT perf_folded(printf('0x%x', c.value), "
    "c.key) AS stack FROM perf_samples(?1) AS s, json_each(s.callchain) AS c GROUP BY s.record)",
    "SELECT perf_flamegraph(stack, n, comm, comm) FROM (SELECT perf_folded(comm, record % 5) AS stack, "
    "count(*) AS n, comm FROM perf_comms(?1) GROUP BY pid)",
    "SELECT perf_flamegraph(stack) FROM (SELECT perf_folded(filename, record % 3) AS stack "
    "FROM perf_mmaps(?1) GROUP BY pid)",
};

/* Steps stmt to the end, reading every column of every row. */
static void read_rows(sqlite3_stmt *stmt)
{
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

static void run_query(sqlite3 *db, const char *sql, const char *path)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        /* the harness's own SQL is wrong: fail loudly, not fuzz nothing */
        fprintf(stderr, "fuzz_sql: %s: %s\n", sql, sqlite3_errmsg(db));
        abort();
    }
    sqlite3_bind_text(stmt, 1, path, -1, SQLITE_STATIC);
    read_rows(stmt);
    sqlite3_finalize(stmt);
}

static void select_all(sqlite3 *db, const char *module, const char *path)
{
    char *sql = sqlite3_mprintf("SELECT *, path FROM \"%w\"(%Q)", module, path);
    sqlite3_stmt *stmt = NULL;
    if (sql && sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK)
        read_rows(stmt);
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
    for (size_t i = 0; i < sizeof pushdown_and_aggregates / sizeof pushdown_and_aggregates[0]; i++)
        run_query(db, pushdown_and_aggregates[i], path);
    sqlite3_close(db);
    close(fd);
    return 0;
}
