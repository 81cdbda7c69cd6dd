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
 *    points into a cursor shows up under ASan;
 *  - the settings functions (perf_symbol_path with the input as sysroot or
 *    symbol dir, its getter, perf_cache_stats) and perf_pprof, between the
 *    tables;
 *  - a hostile schema: CHECK constraints, DEFAULTs, views, triggers and
 *    forged generated columns and indexes that call the functions and
 *    tables on the input, written to and read: whatever they do, the
 *    connection's symbol setting must stay what it was (abort otherwise).
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

/* Runs sql's statements, errors allowed (a hostile schema's are refused). */
static void run_any(sqlite3 *db, const char *sql, const char *path)
{
    const char *tail = sql;
    while (tail && *tail) {
        sqlite3_stmt *stmt = NULL;
        const char *next = NULL;
        if (sqlite3_prepare_v2(db, tail, -1, &stmt, &next) != SQLITE_OK) {
            sqlite3_finalize(stmt);
            return;
        }
        if (stmt) {
            sqlite3_bind_text(stmt, 1, path, -1, SQLITE_STATIC);
            qg_read_rows(stmt);
        }
        sqlite3_finalize(stmt);
        tail = next;
    }
}

static const char *const settings[] = {
    "SELECT perf_symbol_path(?1)",
    "SELECT perf_symbol_path(NULL, ?1)",
    "SELECT perf_symbol_path(?1, ?1), perf_cache_stats()",
    "SELECT length(perf_pprof(?1)), perf_symbol_path()",
    "SELECT perf_symbol_path(NULL)",
};

/* Objects a database's author controls, calling the extension on the
 * input; the writable_schema ones SQLite refuses to create directly. */
static const char *const hostile[] = {
    "CREATE TABLE c(x CHECK (coalesce(perf_symbol_path(NULL, 'hostile'), 1) IS NOT NULL));"
    "INSERT INTO c VALUES (1)",
    "CREATE TABLE p(x CHECK (coalesce(perf_pprof(?1), 1) IS NOT NULL)); INSERT INTO p VALUES (1)",
    "CREATE TABLE d(x DEFAULT (perf_symbol_path('hostile')), y); INSERT INTO d(y) VALUES (1)",
    "CREATE VIEW v AS SELECT count(*) FROM perf_samples(?1); SELECT * FROM v",
    "CREATE VIEW w AS SELECT perf_symbol_path('hostile'); SELECT * FROM w",
    "CREATE TABLE t(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN "
    "SELECT perf_symbol_path(NULL, 'hostile'); SELECT count(*) FROM perf_records(?1); END;"
    "INSERT INTO t VALUES (1)",
    "CREATE TABLE g(x, y AS (abs(1))); PRAGMA writable_schema = ON;"
    "UPDATE sqlite_schema SET sql = 'CREATE TABLE g(x, y AS (perf_symbol_path(''hostile'')))' "
    "WHERE name = 'g'; PRAGMA writable_schema = OFF; INSERT INTO g(x) VALUES (1); SELECT * FROM g",
    "CREATE TABLE i(x); CREATE INDEX ii ON i(abs(x)); PRAGMA writable_schema = ON;"
    "UPDATE sqlite_schema SET sql = 'CREATE INDEX ii ON i(perf_symbol_path(NULL, x))' "
    "WHERE name = 'ii'; PRAGMA writable_schema = OFF; INSERT INTO i VALUES ('hostile')",
    "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema(type, name, tbl_name, rootpage, sql) "
    "VALUES ('table', 'k', 'k', 0, 'CREATE VIRTUAL TABLE k USING perf_samples(''/etc/passwd'')');"
    "PRAGMA writable_schema = OFF; SELECT * FROM k",
};

static void hostile_schema(sqlite3 *db, const char *path, unsigned choice)
{
    run_any(db, "SELECT perf_symbol_path('/fuzz/sysroot', '/fuzz/symdir')", path);
    char before[256] = "";
    sqlite3_stmt *get = NULL;
    if (sqlite3_prepare_v2(db, "SELECT perf_symbol_path()", -1, &get, NULL) == SQLITE_OK &&
        sqlite3_step(get) == SQLITE_ROW)
        snprintf(before, sizeof before, "%s", (const char *)sqlite3_column_text(get, 0));
    sqlite3_reset(get);
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++)
        if ((choice >> (i % 8)) & 1 || i == choice % (sizeof hostile / sizeof hostile[0]))
            run_any(db, hostile[i], path);
    if (sqlite3_step(get) == SQLITE_ROW && before[0] &&
        strcmp(before, (const char *)sqlite3_column_text(get, 0)) != 0) {
        fprintf(stderr, "fuzz_sql: a hostile schema changed the setting: %s -> %s\n", before,
                (const char *)sqlite3_column_text(get, 0));
        abort();
    }
    sqlite3_finalize(get);
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
    unsigned steer = size ? data[size / 2] : 0;
    for (int i = 0; i < schema.nr_modules; i++) {
        select_all(db, schema.modules[i].name, path);
        if ((steer >> (i % 8)) & 1)
            run_any(db, settings[i % (sizeof settings / sizeof settings[0])], path);
    }
    for (size_t i = 0; i < sizeof pushdown_and_aggregates / sizeof pushdown_and_aggregates[0]; i++)
        run_query(db, pushdown_and_aggregates[i], path);
    qg_choices choices = qg_choices_from_tail(data, size);
    qg_run_generated(db, &schema, &choices, path, fd, twin_fd);
    hostile_schema(db, path, steer);
    sqlite3_close(db);
    close(twin_fd);
    close(fd);
    return 0;
}
