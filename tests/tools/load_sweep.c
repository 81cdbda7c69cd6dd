/*
 * load_sweep: the extension's load under every allocation failure SQLite
 * can report, as SQLite's malloc tests fail its own allocations.
 *
 *   load_sweep EXTENSION FILE COUNT [--statement]
 *
 * For n = 1, 2, ...: SQLite is started again with an allocator
 * (SQLITE_CONFIG_MALLOC) that fails its nth allocation counted from the
 * start of the load (once, and in a second pass from the nth on), a
 * connection loads EXTENSION (sqlite3_load_extension, or with --statement
 * `SELECT load_extension(...)`, where SQLite refuses to drop a function
 * while the statement runs), and then, with allocations succeeding again:
 *   - a load that succeeded answers `SELECT count(*) FROM perf_samples(FILE)`
 *     with COUNT;
 *   - a load that failed left no perf_ module or function registered, or
 *     left them with the library mapped for them (SQLite keeps a library
 *     whose init succeeded even when its own allocation after it fails; the
 *     extension keeps itself mapped when SQLite refuses to drop a function
 *     during a statement), and then the tables count COUNT rows or fail;
 *   - sqlite3_close succeeds, and the process is still alive: a module's
 *     destructor left registered by a failed load would run in the unloaded
 *     library's unmapped code.
 * The sweep ends at the first n at which the load made fewer than n
 * allocations.  Prints one "ok - ..." or "not ok - ..." line per pass.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static sqlite3_mem_methods real;
static long countdown = -1;     /* allocations left before failing; -1: never */
static bool persistent;         /* fail every allocation after the first failure */
static bool failed_one;
static long allocations;

static bool fail_now(void)
{
    if (countdown < 0)
        return false;
    allocations++;
    if (failed_one && persistent)
        return true;
    if (countdown > 0 && --countdown == 0) {
        failed_one = true;
        return true;
    }
    return false;
}

static void *failing_malloc(int n)
{
    return fail_now() ? NULL : real.xMalloc(n);
}

static void *failing_realloc(void *p, int n)
{
    return fail_now() ? NULL : real.xRealloc(p, n);
}

static int count_rows(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* One load with the nth allocation failing; "" or what went wrong in why. */
static void one_load(const char *extension, const char *file, int count, bool by_statement,
                     long n, bool *load_ok, bool *made_fewer, char *why, size_t why_size)
{
    why[0] = 0;
    sqlite3_shutdown();
    sqlite3_mem_methods failing = real;
    failing.xMalloc = failing_malloc;
    failing.xRealloc = failing_realloc;
    sqlite3_config(SQLITE_CONFIG_MALLOC, &failing);
    sqlite3_initialize();
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        snprintf(why, why_size, "open failed");
        sqlite3_close(db);
        return;
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
    sqlite3_enable_load_extension(db, 1);
    sqlite3_stmt *load = NULL;
    if (by_statement &&
        sqlite3_prepare_v2(db, "SELECT load_extension(?1)", -1, &load, NULL) != SQLITE_OK) {
        snprintf(why, why_size, "prepare failed");
        sqlite3_close(db);
        return;
    }
    if (load)
        sqlite3_bind_text(load, 1, extension, -1, SQLITE_STATIC);
    failed_one = false;
    allocations = 0;
    countdown = n;
    int rc;
    if (load) {
        rc = sqlite3_step(load);
        rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
    } else {
        rc = sqlite3_load_extension(db, extension, NULL, NULL);
    }
    countdown = -1;
    sqlite3_finalize(load);
    *made_fewer = !failed_one;
    *load_ok = rc == SQLITE_OK;
    if (*load_ok) {
        char *sql = sqlite3_mprintf("SELECT count(*) FROM perf_samples(%Q)", file);
        int got = count_rows(db, sql);
        sqlite3_free(sql);
        if (got != count)
            snprintf(why, why_size, "loaded, but perf_samples counts %d rows, not %d", got, count);
    } else {
        int modules = count_rows(db, "SELECT count(*) FROM pragma_module_list WHERE name GLOB 'perf_*'");
        int functions = count_rows(db, "SELECT count(*) FROM pragma_function_list WHERE name GLOB 'perf_*'");
        /* Left registered is safe only while the library stays mapped:
         * when SQLite refuses to drop a function while a statement runs
         * (the extension then keeps itself loaded), or when SQLite's own
         * allocation after a successful init fails (it then keeps the
         * library and reports the failure). */
        void *self = dlopen(extension, RTLD_NOW | RTLD_NOLOAD);
        bool mapped = self != NULL;
        if (self)
            dlclose(self);
        if ((modules != 0 || functions != 0) && !mapped)
            snprintf(why, why_size, "the failed load left %d modules and %d functions registered, "
                     "and the library is unloaded", modules, functions);
        if (modules != 0 && mapped) {
            char *sql = sqlite3_mprintf("SELECT count(*) FROM perf_samples(%Q)", file);
            sqlite3_stmt *st = NULL;
            int step = SQLITE_ERROR;
            if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
                step = sqlite3_step(st);
            if (step == SQLITE_ROW && sqlite3_column_int(st, 0) != count)
                snprintf(why, why_size, "the failed load left the tables, which count %d rows, "
                         "not %d", sqlite3_column_int(st, 0), count);
            sqlite3_finalize(st);
            sqlite3_free(sql);
        }
    }
    if (sqlite3_close(db) != SQLITE_OK && !why[0])
        snprintf(why, why_size, "sqlite3_close failed");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: load_sweep EXTENSION FILE COUNT [--statement]\n");
        return 2;
    }
    const char *extension = argv[1], *file = argv[2];
    int count = atoi(argv[3]);
    bool by_statement = argc > 4 && strcmp(argv[4], "--statement") == 0;
    sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real);
    int status = 0;
    for (int pass = 0; pass < 2; pass++) {
        persistent = pass == 1;
        long n = 1, failed_loads = 0, problems = 0;
        char why[512], first[600] = "";
        for (;; n++) {
            bool load_ok = false, made_fewer = false;
            one_load(extension, file, count, by_statement, n, &load_ok, &made_fewer, why, sizeof why);
            failed_loads += !load_ok;
            if (why[0]) {
                if (!problems++)
                    snprintf(first, sizeof first, "allocation %ld: %s", n, why);
            }
            if (made_fewer)
                break;
        }
        const char *how = by_statement ? "SELECT load_extension()" : "sqlite3_load_extension()";
        const char *mode = persistent ? "from the nth on" : "the nth alone";
        if (problems == 0 && failed_loads > 0)
            printf("ok - %s, failing %s for n = 1..%ld: %ld loads failed cleanly (each left "
                   "nothing registered, or the library mapped for what it left; the connection "
                   "closed), the others query as a clean load\n",
                   how, mode, n - 1, failed_loads);
        else {
            printf("not ok - %s, failing %s: %ld of %ld loads went wrong (%ld failed); first: %s\n",
                   how, mode, problems, n, failed_loads, first[0] ? first : "no load failed");
            status = 1;
        }
    }
    return status;
}
