/*
 * load_cycles: the extension's settings belong to the connection that made
 * them, and loading and unloading it leaves nothing behind.
 *
 *   load_cycles EXTENSION FILE SYMDIR CYCLES
 *
 * Each cycle opens two connections that load EXTENSION; the first sets
 * perf_symbol_path(NULL, SYMDIR), and then the first names FILE's workload
 * samples from SYMDIR while the second, which set nothing, does not; a
 * connection opened after the first closed does not either.  Both close,
 * and SQLite unloads the library.  Built with ASan, the process's exit
 * reports any allocation a cycle left behind.
 * Prints one "ok - ..." or "not ok - ..." line.
 */
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

static sqlite3 *connect(const char *extension)
{
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
    if (sqlite3_load_extension(db, extension, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

/* The first column of the first row of sql as an integer; -1 on error. */
static long long number(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: load_cycles EXTENSION FILE SYMDIR CYCLES\n");
        return 2;
    }
    const char *extension = argv[1];
    int cycles = atoi(argv[4]);
    char *named = sqlite3_mprintf("SELECT count(sym) FROM perf_samples(%Q) WHERE dso GLOB '*/workload'",
                                  argv[2]);
    char *set = sqlite3_mprintf("SELECT perf_symbol_path(NULL, %Q) IS NOT NULL", argv[3]);
    long long with = -1, without = -1, later = -1;
    int cycle = 0;
    for (; cycle < cycles; cycle++) {
        sqlite3 *a = connect(extension), *b = connect(extension);
        if (!a || !b) {
            printf("not ok - cycle %d: a connection cannot load %s\n", cycle, extension);
            return 1;
        }
        if (number(a, set) != 1) {
            printf("not ok - cycle %d: perf_symbol_path failed\n", cycle);
            return 1;
        }
        with = number(a, named);
        without = number(b, named);
        sqlite3_close(a);
        sqlite3 *c = connect(extension);
        later = c ? number(c, named) : -1;
        sqlite3_close(c);
        sqlite3_close(b);
        if (with <= 0 || without != 0 || later != 0)
            break;
    }
    sqlite3_free(named);
    sqlite3_free(set);
    if (cycle < cycles) {
        printf("not ok - cycle %d: workload samples named: %lld by the connection that set "
               "perf_symbol_path, %lld by another open beside it, %lld by one opened after it "
               "closed (want > 0, 0, 0)\n", cycle, with, without, later);
        return 1;
    }
    printf("ok - %d cycles of load, perf_symbol_path on one connection, unload: only that "
           "connection names the %lld workload samples from the symbol dir\n", cycles, with);
    return 0;
}
