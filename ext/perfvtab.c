/*
 * perfvtab: Linux perf.data profiles as SQLite tables.
 *
 *   .load perfvtab
 *   SELECT event, count(*), sum(period) FROM perf_samples('perf.data') GROUP BY event;
 *
 * The entry point registers, for one connection, one module per table
 * (ext/<table>.c, each made a module by ext/vtab_module.c), all sharing
 * the connection's state (ext/file_cache.c: its open files, caches and
 * perf_symbol_path and perf_threads settings), and the nine SQL functions of the lists in
 * ext/function_defs.h:
 *   perf_pprof            ext/pprof.c
 *   perf_symbol_path      ext/symbol_paths.c
 *   perf_threads          ext/threads_setting.c
 *   perf_cache_stats      ext/file_cache.c
 *   perf_frame_name       ext/flamegraph.c
 *   perf_folded, perf_flamegraph, perf_flamegraph_diff (aggregates)
 *                         ext/flamegraph.c
 *   perf_sum_by (aggregate)  ext/sum_by.c
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <dlfcn.h>
#include <stdbool.h>

#include "file_cache.h"
#include "function_defs.h"
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
extern const PvTableDef pv_folded_stacks_table;

/* Everything the load registers: the tables, then the functions of each
 * list (ext/function_defs.h). */
/* The oldest SQLite whose routines the extension calls all exist. */
enum { MIN_SQLITE_VERSION = 3038000 };

static const PvTableDef *const tables[] = {
    &pv_samples_table, &pv_mmaps_table, &pv_comms_table, &pv_records_table,
    &pv_events_table, &pv_features_table, &pv_build_ids_table, &pv_tasks_table,
    &pv_lost_table, &pv_switches_table, &pv_stats_table, &pv_callchains_table,
    &pv_profile_table, &pv_diagnostics_table, &pv_offcpu_table, &pv_folded_stacks_table,
};
#define NR_TABLES (sizeof tables / sizeof tables[0])
static const PvFunctionDef *const function_lists[] = {
    pv_cache_stats_functions, pv_pprof_functions, pv_symbol_path_functions,
    pv_flamegraph_functions, pv_sum_by_functions, pv_threads_functions,
};
#define NR_FUNCTION_LISTS (sizeof function_lists / sizeof function_lists[0])

static void release_connection_state(void *p)
{
    pv_cache_release(p);
}

static int register_function(sqlite3 *db, const PvFunctionDef *f, PvCache *cache)
{
    void *data = f->data;
    void (*destroy)(void *) = NULL;
    if (f->connection_data) {
        pv_cache_retain(cache);
        data = cache;
        destroy = release_connection_state;
    }
    /* create_function_v2 calls the destructor itself when it fails */
    return sqlite3_create_function_v2(db, f->name, f->nargs, f->flags, data, f->func, f->step,
                                      f->final, destroy);
}

/*
 * A load that fails after registering something must leave no pointer into
 * this library behind: SQLite unloads it at once, and a module destructor
 * or function left registered would run in unmapped code (a module's at
 * the latest when the connection closes).  What was registered is taken
 * back; where something cannot be (SQLite refuses to drop a function while
 * a statement runs, as in SELECT load_extension(...)), the library is kept
 * mapped for the rest of the process instead.
 */
static void undo_registrations(sqlite3 *db, size_t tables_done, size_t lists_done,
                               size_t functions_done)
{
    bool all_undone = true;
    for (size_t i = 0; i < tables_done; i++)
        if (sqlite3_create_module_v2(db, tables[i]->name, NULL, NULL, NULL) != SQLITE_OK)
            all_undone = false;
    for (size_t l = 0; l <= lists_done && l < NR_FUNCTION_LISTS; l++) {
        for (size_t i = 0; function_lists[l][i].name; i++) {
            if (l == lists_done && i >= functions_done)
                break;
            const PvFunctionDef *f = &function_lists[l][i];
            if (sqlite3_create_function_v2(db, f->name, f->nargs, f->flags, NULL, NULL, NULL, NULL,
                                           NULL) != SQLITE_OK)
                all_undone = false;
        }
    }
    if (all_undone)
        return;
    Dl_info self;
    if (dladdr((void *)undo_registrations, &self) && self.dli_fname)
        dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

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
    /* An older host's api table ends before the routines the planner calls
     * (sqlite3_vtab_in, _rhs_value, _distinct: 3.38): calling past its end
     * would crash the host, so the load is refused. */
    if (sqlite3_libversion_number() < MIN_SQLITE_VERSION) {
        if (errmsg)
            *errmsg = sqlite3_mprintf("perfvtab needs SQLite 3.38 or later; this host's is %d.%d.%d",
                                      sqlite3_libversion_number() / 1000000,
                                      sqlite3_libversion_number() / 1000 % 1000,
                                      sqlite3_libversion_number() % 1000);
        return SQLITE_ERROR;
    }
    /* the connection's state: its open files, caches and settings */
    PvCache *cache = pv_cache_new();
    if (!cache)
        return SQLITE_NOMEM;
    int rc = SQLITE_OK;
    size_t tables_done = 0, lists_done = 0, functions_done = 0;
    for (; tables_done < NR_TABLES; tables_done++)
        if ((rc = pv_register_table(db, tables[tables_done], cache)) != SQLITE_OK)
            break;
    for (; rc == SQLITE_OK && lists_done < NR_FUNCTION_LISTS; lists_done++) {
        const PvFunctionDef *list = function_lists[lists_done];
        for (functions_done = 0; list[functions_done].name; functions_done++)
            if ((rc = register_function(db, &list[functions_done], cache)) != SQLITE_OK)
                break;
        if (rc != SQLITE_OK)
            break;
    }
    pv_cache_release(cache);
    if (rc != SQLITE_OK)
        undo_registrations(db, tables_done, lists_done, functions_done);
    return rc;
}
