/*
 * libFuzzer target: SQL over every table.  Each input is opened in a fresh
 * in-memory database with perfvtab loaded, and:
 *  - `SELECT *` runs over every module named perf_* (pragma_module_list, so
 *    tables added later are fuzzed without touching this file), reading
 *    every column of every row;
 *  - a few queries whose WHERE terms the tables push down into the reader
 *    and the flame graph aggregates;
 *  - generated queries (query_gen.h), steered by the input's last bytes:
 *    aggregates, GROUP BY, ORDER BY, subqueries, joins of two tables over
 *    one file, globs and path lists, LIMIT/OFFSET, over any module and
 *    column, and two statements over one file stepped alternately.  Their
 *    values are kept past the row (query_gen.h says how), so a value that
 *    points into a cursor shows up under ASan.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_input.h"
#include "query_gen.h"

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
    "SELECT perf_flamegraph_diff(stack, n, base, 'fuzz') FROM (SELECT stack, sum(cpu % 2) AS n, "
    "sum(1 - cpu % 2) AS base FROM (SELECT perf_folded(perf_frame_name(NULL, s.comm, c.value), "
    "c.key) AS stack, s.cpu FROM perf_samples(?1) AS s, json_each(s.callchain) AS c "
    "GROUP BY s.record) GROUP BY stack)",
};

static void run_query(sqlite3 *db, const char *sql, const char *path)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        /* the harness's own SQL is wrong: fail loudly, not fuzz nothing */
        fprintf(stderr, "fuzz_sql: %s: %s\n", sql, sqlite3_errmsg(db));
        abort();
    }
    sqlite3_bind_text(stmt, 1, path, -1, SQLITE_STATIC);
    qg_read_rows(stmt);
    sqlite3_finalize(stmt);
}

static void select_all(sqlite3 *db, const char *module, const char *path)
{
    char *sql = sqlite3_mprintf("SELECT *, path FROM \"%w\"(%Q)", module, path);
    sqlite3_stmt *stmt = NULL;
    if (sql && sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK)
        qg_read_rows(stmt);
    sqlite3_finalize(stmt);
    sqlite3_free(sql);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], twin[64];
    int fd = fuzz_input_file(data, size, path);
    /* a second file for globs and path lists: the same bytes */
    int twin_fd = fuzz_input_file(data, size, twin);
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
    qg_schema schema;
    qg_schema_load(db, &schema);
    for (int i = 0; i < schema.nr_modules; i++)
        select_all(db, schema.modules[i].name, path);
    for (size_t i = 0; i < sizeof pushdown_and_aggregates / sizeof pushdown_and_aggregates[0]; i++)
        run_query(db, pushdown_and_aggregates[i], path);
    qg_choices choices = qg_choices_from_tail(data, size);
    qg_run_generated(db, &schema, &choices, path, fd, twin_fd);
    sqlite3_close(db);
    close(twin_fd);
    close(fd);
    return 0;
}
