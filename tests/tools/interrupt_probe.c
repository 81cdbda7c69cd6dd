/*
 * interrupt_probe: how much work a query does after it is told to stop.
 *
 *   interrupt_probe EXTENSION WAY BYTES SQL
 *
 * Runs SQL (its rows read and dropped) on a connection that loaded
 * EXTENSION.  A second thread watches the bytes this process has read
 * (rchar in /proc/self/io); once the query has read BYTES, it stops the
 * statement, the WAY a host would:
 *   interrupt   sqlite3_interrupt(db)
 *   progress    the progress handler (registered for every opcode) starts
 *               returning 1
 *   none        not at all (the query's whole cost, to compare with)
 * or, whatever BYTES, when SQL calls stop_by_interrupt(x) or
 * stop_by_progress(x) (each returns x): for work that reads no bytes, such
 * as a pattern expanded over directories, called in the argument that
 * starts it.  Statements before SQL's last run first, unwatched (settings).
 * Prints one line:
 *   rc=N read=R after=A message
 * N the statement's result code (9: SQLITE_INTERRUPT), R the bytes read in
 * all, A the bytes read after the stop was asked for.  Bytes, not seconds:
 * the answer does not depend on the machine's speed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

static uint64_t rchar(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    uint64_t value = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %lu", &value) == 1)
            break;
    if (f)
        fclose(f);
    return value;
}

static sqlite3 *db;
static const char *way;
static uint64_t start_bytes, trigger_bytes;
static _Atomic uint64_t stopped_at;     /* rchar when the stop was asked; 0: not yet */
static atomic_bool stop_flag, query_done;

static void stop_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    atomic_store(&stopped_at, rchar());
    if (sqlite3_user_data(ctx))
        atomic_store(&stop_flag, true);
    else
        sqlite3_interrupt(db);
    sqlite3_result_value(ctx, argv[0]);
}

static int progress(void *arg)
{
    (void)arg;
    return atomic_load(&stop_flag);
}

static void *watcher(void *arg)
{
    (void)arg;
    struct timespec nap = {0, 100000};
    while (!atomic_load(&query_done)) {
        uint64_t now = rchar();
        if (now - start_bytes >= trigger_bytes) {
            atomic_store(&stopped_at, now);
            if (strcmp(way, "interrupt") == 0)
                sqlite3_interrupt(db);
            else if (strcmp(way, "progress") == 0)
                atomic_store(&stop_flag, true);
            return NULL;
        }
        nanosleep(&nap, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: interrupt_probe EXTENSION interrupt|progress|none BYTES SQL\n");
        return 2;
    }
    way = argv[2];
    trigger_bytes = strtoull(argv[3], NULL, 10);
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        return 1;
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
    char *err = NULL;
    if (sqlite3_load_extension(db, argv[1], NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "load: %s\n", err ? err : "?");
        return 1;
    }
    static int by_progress;
    sqlite3_create_function(db, "stop_by_interrupt", 1, SQLITE_UTF8, NULL, stop_function, NULL, NULL);
    sqlite3_create_function(db, "stop_by_progress", 1, SQLITE_UTF8, &by_progress, stop_function,
                            NULL, NULL);
    sqlite3_progress_handler(db, 1, progress, NULL);
    sqlite3_stmt *st = NULL;
    const char *sql = argv[4], *tail = NULL;
    for (;;) {
        if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
            fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
            return 1;
        }
        if (!tail || !*tail || strspn(tail, " \t\n;") == strlen(tail))
            break;
        while (sqlite3_step(st) == SQLITE_ROW)
            ;
        sqlite3_finalize(st);
        sql = tail;
    }
    start_bytes = rchar();
    pthread_t t;
    pthread_create(&t, NULL, watcher, NULL);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    uint64_t end = rchar();
    atomic_store(&query_done, true);
    pthread_join(t, NULL);
    uint64_t at = atomic_load(&stopped_at);
    printf("rc=%d read=%lu after=%lu %s\n", rc == SQLITE_DONE ? 0 : sqlite3_extended_errcode(db),
           (unsigned long)(end - start_bytes), (unsigned long)(at ? end - at : 0),
           rc == SQLITE_DONE ? "done" : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return 0;
}
