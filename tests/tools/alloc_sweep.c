/*
 * alloc_sweep: queries with their Nth allocation failing, for every N (or a
 * spread of them), as SQLite's malloc tests run its own statements.
 *
 *   alloc_sweep [--full] [--runs K] [SETUP;] QUERY [[SETUP;] QUERY ...]
 *
 * Each QUERY first runs clean on a new connection: its rows' digest, and
 * the number of allocations it makes (the reader's and the extension's,
 * through base/pv_alloc.h, and SQLite's, through SQLITE_CONFIG_MALLOC).
 * Then, for N in 1..that number (--full), or for the first 64 and K more
 * spread evenly over the rest (default K 64), it runs again on a new
 * connection with allocation N failing: once alone, and once with every
 * allocation after it failing too.  Statements before a QUERY's last
 * (SETUP, such as perf_symbol_path) run clean.  Every run must end in the
 * clean run's rows (in their order where QUERY has an ORDER BY, else as a
 * multiset: another plan may order them otherwise), or in an error that says it ran out of memory
 * (SQLITE_NOMEM, or a message with "out of memory"): never other rows
 * without an error.  A crash or a leak (under ASan) fails the process;
 * tests/t_alloc.sh gives it a timeout for hangs.
 * Prints one "ok - ..." or "not ok - ..." line per QUERY and mode.
 */
#include <execinfo.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/pv_alloc.h"

int sqlite3_perfvtab_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

static sqlite3_mem_methods real;
static atomic_long countdown = -1;  /* allocations left before failing; -1: never */
static atomic_bool persistent, failed_one;
static atomic_long counted;

static bool fail_now(void *arg)
{
    (void)arg;
    atomic_fetch_add(&counted, 1);
    if (atomic_load(&countdown) < 0)
        return false;
    if (atomic_load(&failed_one) && atomic_load(&persistent))
        return true;
    if (atomic_fetch_sub(&countdown, 1) == 1) {
        atomic_store(&failed_one, true);
        /* ALLOC_SWEEP_TRACE=1: where each failed allocation was asked for */
        if (getenv("ALLOC_SWEEP_TRACE")) {
            void *frames[24];
            int n = backtrace(frames, 24);
            fprintf(stderr, "failed allocation:\n");
            backtrace_symbols_fd(frames, n, 2);
        }
        return true;
    }
    return false;
}

static void *sweep_malloc(int n)
{
    return fail_now(NULL) ? NULL : real.xMalloc(n);
}

static void *sweep_realloc(void *p, int n)
{
    return fail_now(NULL) ? NULL : real.xRealloc(p, n);
}

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

typedef struct Outcome {
    int rc;                 /* SQLITE_DONE, or the error */
    uint64_t digest;
    long rows;
    char message[300];
} Outcome;

/* Runs sql's statements on a new connection; the last one with allocation
 * n failing (0: none) and counted. */
static void run(const char *sql, long n, bool all_after, Outcome *out)
{
    memset(out, 0, sizeof *out);
    out->digest = 1469598103934665603ull;
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        out->rc = SQLITE_CANTOPEN;
        snprintf(out->message, sizeof out->message, "cannot open a connection");
        sqlite3_close(db);
        return;
    }
    const char *tail = sql;
    for (;;) {
        const char *rest = NULL;
        sqlite3_stmt *probe = NULL;
        /* is this the last statement? prepared clean only to find its end */
        if (sqlite3_prepare_v2(db, tail, -1, &probe, &rest) != SQLITE_OK || !probe) {
            out->rc = SQLITE_ERROR;
            snprintf(out->message, sizeof out->message, "prepare: %s", sqlite3_errmsg(db));
            sqlite3_finalize(probe);
            sqlite3_close(db);
            return;
        }
        bool last = !rest || rest[strspn(rest, " \t\n;")] == 0;
        if (!last) {
            while (sqlite3_step(probe) == SQLITE_ROW)
                ;
            sqlite3_finalize(probe);
            tail = rest;
            continue;
        }
        sqlite3_finalize(probe);
        break;
    }
    atomic_store(&failed_one, false);
    atomic_store(&persistent, all_after);
    atomic_store(&counted, 0);
    atomic_store(&countdown, n > 0 ? n : -1);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        /* rows in order where the query orders them; else as a multiset:
         * another plan may hand them over in another order */
        bool ordered = strstr(tail, "ORDER BY") != NULL;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            out->rows++;
            uint64_t row = ordered ? out->digest : 1469598103934665603ull;
            int cols = sqlite3_column_count(st);
            for (int c = 0; c < cols; c++) {
                int type = sqlite3_column_type(st, c);
                row = fnv(&type, sizeof type, row);
                const void *bytes = type == SQLITE_BLOB ? sqlite3_column_blob(st, c)
                                                        : (const void *)sqlite3_column_text(st, c);
                int len = sqlite3_column_bytes(st, c);
                if (bytes)
                    row = fnv(bytes, (size_t)len, row);
            }
            out->digest = ordered ? row : out->digest + row;
        }
    }
    atomic_store(&countdown, -1);
    out->rc = rc;
    if (rc != SQLITE_DONE)
        snprintf(out->message, sizeof out->message, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (sqlite3_close(db) != SQLITE_OK && out->rc == SQLITE_DONE) {
        out->rc = SQLITE_BUSY;
        snprintf(out->message, sizeof out->message, "sqlite3_close failed");
    }
}

static bool says_out_of_memory(const Outcome *o)
{
    return o->rc == SQLITE_NOMEM || strstr(o->message, "out of memory") != NULL;
}

int main(int argc, char **argv)
{
    bool full = false;
    long spread = 64, only = 0;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "--full") == 0)
            full = true;
        else if (strcmp(argv[first], "--runs") == 0 && first + 1 < argc)
            spread = atol(argv[++first]);
        else if (strcmp(argv[first], "--only") == 0 && first + 1 < argc)
            only = atol(argv[++first]);
    }
    sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real);
    sqlite3_mem_methods failing = real;
    failing.xMalloc = sweep_malloc;
    failing.xRealloc = sweep_realloc;
    sqlite3_config(SQLITE_CONFIG_MALLOC, &failing);
    sqlite3_initialize();
    pv_alloc_set_failure(fail_now, NULL);
    sqlite3_auto_extension((void (*)(void))sqlite3_perfvtab_init);
    int status = 0;
    for (int q = first; q < argc; q++) {
        const char *sql = argv[q];
        Outcome clean;
        run(sql, 0, false, &clean);
        long total = atomic_load(&counted);
        if (clean.rc != SQLITE_DONE) {
            printf("not ok - %.80s: fails without a failed allocation: %s\n", sql, clean.message);
            status = 1;
            continue;
        }
        for (int mode = 0; mode < 2; mode++) {
            long runs = 0, errors = 0, wrong = 0;
            char first_wrong[600] = "";
            for (long n = 1; n <= total; n++) {
                if (only ? n != only
                         : !full && n > 64 && (n - 64) % ((total - 64) / spread + 1) != 0)
                    continue;
                Outcome o;
                run(sql, n, mode == 1, &o);
                runs++;
                if (o.rc == SQLITE_DONE && o.digest == clean.digest && o.rows == clean.rows)
                    continue;
                if (o.rc != SQLITE_DONE && says_out_of_memory(&o)) {
                    errors++;
                    continue;
                }
                if (!wrong++)
                    snprintf(first_wrong, sizeof first_wrong, "allocation %ld: %s", n,
                             o.rc == SQLITE_DONE ? "other rows without an error"
                                                 : o.message);
            }
            const char *how = mode ? "from the Nth on" : "the Nth alone";
            if (wrong == 0)
                printf("ok - %.80s: %ld allocations, failing %s in %ld runs: %ld out-of-memory "
                       "errors, the rest the clean rows (%ld)\n",
                       sql, total, how, runs, errors, clean.rows);
            else {
                printf("not ok - %.80s: failing %s, %ld of %ld runs went wrong; first: %s\n", sql,
                       how, wrong, runs, first_wrong);
                status = 1;
            }
        }
    }
    return status;
}
