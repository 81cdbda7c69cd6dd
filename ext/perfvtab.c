/*
 * perfvtab: Linux perf.data profiles as SQLite tables.
 *
 *   .load perfvtab
 *   SELECT event, count(*), sum(period) FROM perf_samples('perf.data') GROUP BY event;
 *
 * The entry point registers one module per table (ext/<table>.c), all
 * sharing this connection's cache of opened files, and the SQL
 * aggregates perf_folded and perf_flamegraph (ext/flamegraph.c) and
 * perf_sum_by (ext/sum_by.c), and the function perf_pprof (ext/pprof.c).
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "symbol_paths.h"
#include "vtab_common.h"

extern const PvTableDef pv_samples_table;
extern const PvTableDef pv_mmaps_table;
extern const PvTableDef pv_comms_table;
extern const PvTableDef pv_records_table;
extern const PvTableDef pv_events_table;
extern const PvTableDef pv_features_table;
extern const PvTableDef pv_build_ids_table;
extern const PvTableDef pv_tasks_table;
extern const PvTableDef pv_lost_table;
extern const PvTableDef pv_switches_table;
extern const PvTableDef pv_diagnostics_table;
extern const PvTableDef pv_callchains_table;
extern const PvTableDef pv_profile_table;
extern const PvTableDef pv_stats_table;
extern const PvTableDef pv_offcpu_table;

int pv_register_flamegraph(sqlite3 *db);  /* ext/flamegraph.c: perf_folded, perf_flamegraph */
int pv_register_sum_by(sqlite3 *db);      /* ext/sum_by.c: perf_sum_by */
int pv_register_pprof(sqlite3 *db, PvCache *cache); /* ext/pprof.c: perf_pprof */

/* The one exported name: everything else is built -fvisibility=hidden. */
#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_perfvtab_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api)
{
    /* SQLITE_EXTENSION_INIT2 stores the api pointer at every load: a data
     * race when connections in several threads load the extension while
     * others run queries (ThreadSanitizer, tests/t_threads.sh).  The pointer
     * is the same each time, so store it only when it changes. */
    if (__atomic_load_n(&sqlite3_api, __ATOMIC_ACQUIRE) != api)
        __atomic_store_n(&sqlite3_api, api, __ATOMIC_RELEASE);
    (void)errmsg;
    static const PvTableDef *const tables[] = {
        &pv_samples_table, &pv_mmaps_table, &pv_comms_table, &pv_records_table,
        &pv_events_table, &pv_features_table, &pv_build_ids_table, &pv_tasks_table,
        &pv_lost_table, &pv_switches_table, &pv_stats_table, &pv_callchains_table,
        &pv_profile_table, &pv_diagnostics_table, &pv_offcpu_table,
    };
    PvCache *cache = pv_cache_new();
    if (!cache)
        return SQLITE_NOMEM;
    int rc = SQLITE_OK;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0] && rc == SQLITE_OK; i++)
        rc = pv_register_table(db, tables[i], cache);
    if (rc == SQLITE_OK)
        rc = pv_register_cache_stats(db, cache);
    if (rc == SQLITE_OK)
        rc = pv_register_pprof(db, cache);
    pv_cache_release(cache);
    if (rc == SQLITE_OK)
        rc = pv_register_symbol_path_function(db);
    if (rc == SQLITE_OK)
        rc = pv_register_flamegraph(db);
    if (rc == SQLITE_OK)
        rc = pv_register_sum_by(db);
    return rc;
}
