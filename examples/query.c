/*
 * query.c: query a perf.data file from C through perfvtab.
 *
 *   cc -o query examples/query.c -lsqlite3
 *   ./query [PERF.DATA] [EXTENSION]
 *
 * PERF.DATA defaults to tests/fixtures/example.data and EXTENSION to
 * build/perfvtab (run from the repository root); after `make install` the
 * extension loads by its bare name, "perfvtab".  A program could also link
 * the objects in and call sqlite3_perfvtab_init() itself; loading the .so
 * at run time, as here, needs only libsqlite3.
 */
#include <stdio.h>

#include <sqlite3.h>

int main(int argc, char **argv)
{
    const char *data = argc > 1 ? argv[1] : "tests/fixtures/example.data";
    const char *ext = argc > 2 ? argv[2] : "build/perfvtab";
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    char *err = NULL;
    int status = 1;

    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        fprintf(stderr, "query: %s\n", sqlite3_errmsg(db));
        goto out;
    }
    /* Enables sqlite3_load_extension() only, not SQL's load_extension(). */
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
    if (sqlite3_load_extension(db, ext, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "query: cannot load %s: %s\n", ext, err ? err : "?");
        goto out;
    }

    /* The path is a bound parameter: no quoting of file names in SQL text. */
    const char *sql =
        "SELECT event, cpumode, count(*), sum(period) FROM perf_samples(?1) "
        "GROUP BY event, cpumode ORDER BY count(*) DESC";
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        fprintf(stderr, "query: %s\n", sqlite3_errmsg(db));
        goto out;
    }
    sqlite3_bind_text(stmt, 1, data, -1, SQLITE_STATIC);
    printf("%-24s %-8s %8s %14s\n", "event", "cpumode", "samples", "period");
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const unsigned char *event = sqlite3_column_text(stmt, 0);
        const unsigned char *cpumode = sqlite3_column_text(stmt, 1);
        printf("%-24s %-8s %8lld %14lld\n", event ? (const char *)event : "",
               cpumode ? (const char *)cpumode : "", sqlite3_column_int64(stmt, 2),
               sqlite3_column_int64(stmt, 3));
    }
    if (rc != SQLITE_DONE) {
        /* e.g. a missing file or a malformed record: the message names the
         * file and, for a bad record, its byte offset */
        fprintf(stderr, "query: %s\n", sqlite3_errmsg(db));
        goto out;
    }
    status = 0;
out:
    sqlite3_free(err);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return status;
}
