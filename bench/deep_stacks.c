/* deep_stacks: part of the bench's third workload (bench/run.sh, "mixed").
 *
 * Built with frame pointers, it descends through four mutually recursive
 * functions to a depth that changes with each round (some deeper than perf's
 * default 127 frames), then works in a shared library at the bottom: zlib,
 * zstd, SQLite, or libc's qsort calling back into this program.  So its
 * samples have deep user stacks that end in several DSOs, and the same
 * functions appear at many depths (inclusive profiles count each once).
 *
 *     deep_stacks MILLISECONDS    (of its own CPU time: the same work on a
 *                                  loaded machine)
 */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <zstd.h>

static unsigned char plain[1 << 16];
static unsigned char packed[1 << 17];

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static long work_in_zlib(void)
{
    uLongf out = sizeof packed;
    compress2(packed, &out, plain, sizeof plain, 6);
    return (long)out;
}

static long work_in_zstd(void)
{
    return (long)ZSTD_compress(packed, sizeof packed, plain, sizeof plain, 3);
}

static long work_in_sqlite(sqlite3 *db)
{
    sqlite3_stmt *st;
    long sum = 0;
    if (sqlite3_prepare_v2(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)"
                               " SELECT sum(i % 7), count(DISTINCT i % 1000) FROM n", -1, &st, NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        sum = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return sum;
}

static long work_in_libc(void)
{
    static int values[20000];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        values[i] = (int)((i * 2654435761u) >> 7);
    qsort(values, sizeof values / sizeof values[0], sizeof values[0], by_value);
    return values[0];
}

static long bottom(int round, sqlite3 *db)
{
    switch (round % 4) {
    case 0: return work_in_zlib();
    case 1: return work_in_zstd();
    case 2: return work_in_sqlite(db);
    default: return work_in_libc();
    }
}

/* noinline and a use of the result after the call: each level stays a
 * frame of its own */
static long level_a(int depth, int round, sqlite3 *db) __attribute__((noinline));
static long level_b(int depth, int round, sqlite3 *db) __attribute__((noinline));
static long level_c(int depth, int round, sqlite3 *db) __attribute__((noinline));
static long level_d(int depth, int round, sqlite3 *db) __attribute__((noinline));

static long level_a(int depth, int round, sqlite3 *db)
{
    return depth <= 0 ? bottom(round, db) : level_b(depth - 1, round, db) + 1;
}

static long level_b(int depth, int round, sqlite3 *db)
{
    return depth <= 0 ? bottom(round, db) : level_c(depth - 1, round, db) + 2;
}

static long level_c(int depth, int round, sqlite3 *db)
{
    if (depth <= 0)
        return bottom(round, db);
    return (depth % 3 ? level_d(depth - 1, round, db) : level_a(depth - 1, round, db)) + 3;
}

static long level_d(int depth, int round, sqlite3 *db)
{
    return depth <= 0 ? bottom(round, db) : level_a(depth - 1, round, db) + 4;
}

int main(int argc, char **argv)
{
    double until = cpu_ms() + (argc > 1 ? atof(argv[1]) : 500);
    sqlite3 *db;
    long total = 0;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        return 1;
    for (size_t i = 0; i < sizeof plain; i++)
        plain[i] = (unsigned char)((i * 31) ^ (i >> 5));
    for (int round = 0; cpu_ms() < until; round++)
        total += level_a(8 + (round * 37) % 180, round, db);
    sqlite3_close(db);
    printf("%ld\n", total);
    return 0;
}
