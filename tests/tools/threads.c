/*
 * threads: perfvtab embedded in a multi-threaded program.  Several threads,
 * each with its own connection, query one perf.data file at the same time,
 * over and over; every result must equal the one a single connection got
 * first.  Run under ThreadSanitizer (make tsan) it also proves the
 * extension shares no unsynchronized state between connections, nor with
 * the thread that decompresses a compressed file (src/stream/unpack.c), which
 * some queries leave mid-stream.
 *
 *   threads EXTENSION FILE [THREADS [ROUNDS]]
 *
 * EXTENSION is the shared object to load (build/perfvtab.so, or
 * build/tsan/perfvtab.so for the TSan build).  Prints "ok - ..." lines.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static const char *const queries[] = {
    "SELECT count(*), sum(period), sum(time), total(ip) FROM perf_samples(?1)",
    "SELECT record, event, pid, tid, cpu, callchain, raw FROM perf_samples(?1)",
    "SELECT record, type, name, size, fields, data FROM perf_records(?1)",
    "SELECT * FROM perf_features(?1)",
    "SELECT * FROM perf_events(?1)",
    "SELECT * FROM perf_mmaps(?1)",
    "SELECT * FROM perf_build_ids(?1)",
    "SELECT * FROM perf_comms(?1)",
    ("SELECT s.record, m.filename FROM perf_samples(?1) s JOIN perf_mmaps(?1) m ON s.pid = m.pid "
     "WHERE s.ip >= m.start AND s.ip - m.start < m.len"),
    /* stops early: the cursor (and any decompressing thread) ends mid-stream */
    "SELECT record, time FROM perf_samples(?1) LIMIT 5",
    /* split over threads of its own where the file allows
     * (PERFVTAB_PROFILE_PART_MIN, t_threads.sh): the children pass, then
     * the flat one (no children column) */
    "SELECT * FROM perf_profile(?1)",
    "SELECT event, name, period FROM perf_profile(?1)",
};
#define NR_QUERIES (sizeof queries / sizeof queries[0])

static const char *extension, *data_path;
static uint64_t expected[NR_QUERIES];
static int rounds = 20;

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static sqlite3 *connect(char *why, size_t why_size)
{
    sqlite3 *db = NULL;
    char *err = NULL;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
        snprintf(why, why_size, "open: %s", sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
    if (sqlite3_load_extension(db, extension, NULL, &err) != SQLITE_OK) {
        snprintf(why, why_size, "load %s: %s", extension, err ? err : "?");
        sqlite3_free(err);
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

/* A hash of every value of every row; 0 and a message in why on error. */
static uint64_t run(sqlite3 *db, const char *sql, char *why, size_t why_size)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        snprintf(why, why_size, "%s: %s", sql, sqlite3_errmsg(db));
        return 0;
    }
    sqlite3_bind_text(stmt, 1, data_path, -1, SQLITE_STATIC);
    uint64_t h = 14695981039346656037ull, rows = 0;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rows++;
        for (int i = 0; i < sqlite3_column_count(stmt); i++) {
            const void *p = sqlite3_column_blob(stmt, i);
            int type = sqlite3_column_type(stmt, i);
            h = fnv(&type, sizeof type, h);
            h = fnv(p, (size_t)sqlite3_column_bytes(stmt, i), h);
        }
    }
    if (rc != SQLITE_DONE) {
        snprintf(why, why_size, "%s: %s", sql, sqlite3_errmsg(db));
        sqlite3_finalize(stmt);
        return 0;
    }
    sqlite3_finalize(stmt);
    return fnv(&rows, sizeof rows, h) | 1;
}

typedef struct worker {
    pthread_t thread;
    int id;
    int mismatches;
    char why[1024];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    sqlite3 *db = connect(w->why, sizeof w->why);
    if (!db) {
        w->mismatches = -1;
        return NULL;
    }
    for (int r = 0; r < rounds; r++)
        for (size_t k = 0; k < NR_QUERIES; k++) {
            /* threads walk the queries in different orders */
            size_t q = (k * (size_t)(w->id + 1) + (size_t)r) % NR_QUERIES;
            char why[1024] = "";
            uint64_t got = run(db, queries[q], why, sizeof why);
            if (got != expected[q]) {
                if (!w->mismatches)
                    snprintf(w->why, sizeof w->why, "round %d, query %zu: %s", r, q,
                             why[0] ? why : "result differs from the single-threaded one");
                w->mismatches++;
            }
        }
    sqlite3_close(db);
    /* A connection closed in the middle of a query: the statement outlives
     * it (sqlite3_close_v2) until finalized, which ends the cursor. */
    db = connect(w->why, sizeof w->why);
    sqlite3_stmt *stmt = NULL;
    if (db && sqlite3_prepare_v2(db, queries[2], -1, &stmt, NULL) == SQLITE_OK) {
        sqlite3_bind_text(stmt, 1, data_path, -1, SQLITE_STATIC);
        for (int k = 0; k < 50 && sqlite3_step(stmt) == SQLITE_ROW; k++)
            ;
    }
    sqlite3_close_v2(db);
    sqlite3_finalize(stmt);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: threads EXTENSION FILE [THREADS [ROUNDS]]\n");
        return 2;
    }
    extension = argv[1];
    data_path = argv[2];
    int nr_threads = argc > 3 ? atoi(argv[3]) : 2;
    if (argc > 4)
        rounds = atoi(argv[4]);
    if (nr_threads < 1 || nr_threads > 64 || rounds < 1)
        return 2;

    char why[1024] = "";
    sqlite3 *db = connect(why, sizeof why);
    if (!db) {
        printf("not ok - threads: %s\n", why);
        return 1;
    }
    for (size_t q = 0; q < NR_QUERIES; q++) {
        expected[q] = run(db, queries[q], why, sizeof why);
        if (!expected[q]) {
            printf("not ok - threads: single-threaded query %zu: %s\n", q, why);
            return 1;
        }
    }
    sqlite3_close(db);

    worker *workers = calloc((size_t)nr_threads, sizeof *workers);
    for (int i = 0; i < nr_threads; i++) {
        workers[i].id = i;
        if (pthread_create(&workers[i].thread, NULL, work, &workers[i])) {
            printf("not ok - threads: cannot start thread %d\n", i);
            return 1;
        }
    }
    int failed = 0;
    for (int i = 0; i < nr_threads; i++) {
        pthread_join(workers[i].thread, NULL);
        if (workers[i].mismatches) {
            printf("not ok - threads: connection %d in its own thread: %s (%d bad results)\n", i,
                   workers[i].why, workers[i].mismatches);
            failed = 1;
        }
    }
    if (!failed)
        printf("ok - threads: %d connections in %d threads ran %d rounds of %zu queries over one file "
               "at once, every result equal to the single-threaded one\n",
               nr_threads, nr_threads, rounds, NR_QUERIES);
    free(workers);
    return failed;
}
