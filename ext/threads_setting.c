/*
 * perf_threads(n): how many threads a query's pass over a file may use,
 * for the queries that follow on the connection.
 *
 *   SELECT perf_threads(1);     -- every pass on the query's own thread
 *   SELECT perf_threads(NULL);  -- back to the machine's online cores
 *   SELECT perf_threads();      -- the setting, unchanged
 *
 * Only perf_profile splits its pass (analysis/profile_parallel.h); its rows
 * are the same whatever the setting.  A host that must start no thread
 * sets 1.  The setting is the connection's (ext/file_cache.h), refused
 * from a database's schema like perf_symbol_path (ext/schema_guard.h).
 * Returns the threads the setting gives.
 */
#include "file_cache.h"
#include "function_defs.h"
#include "schema_guard.h"
#include "vtab_common.h"

#include "analysis/profile_parallel.h"

static void threads_function_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    PvCache *cache = sqlite3_user_data(ctx);
    if (argc > 0) {
        if (pv_refused_while_writing(ctx, "perf_threads"))
            return;
        int type = sqlite3_value_type(argv[0]);
        sqlite3_int64 n = type == SQLITE_INTEGER ? sqlite3_value_int64(argv[0]) : 0;
        if (type != SQLITE_NULL && (type != SQLITE_INTEGER || n < 1 || n > PV_PROFILE_MAX_THREADS)) {
            sqlite3_result_error(ctx, "perf_threads: a number of threads from 1 to 64, or NULL",
                                 -1);
            return;
        }
        pv_cache_set_threads(cache, (unsigned)n);
    }
    sqlite3_result_int64(ctx, pv_cache_threads(cache));
}

PV_GUARDED_FUNCTION(threads_function, threads_function_body)

const PvFunctionDef pv_threads_functions[] = {
    {"perf_threads", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, threads_function, NULL, NULL},
    {"perf_threads", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, threads_function, NULL, NULL},
    {NULL, 0, 0, false, NULL, NULL, NULL, NULL},
};
