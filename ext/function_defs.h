/*
 * The SQL functions of the extension, described as data so that the entry
 * point (ext/perfvtab.c) registers them from one list and can take back
 * exactly what it registered when a later step fails.  Each ext/ file with
 * functions exports a list ending with an entry whose name is NULL.
 */
#ifndef PV_FUNCTION_DEFS_H
#define PV_FUNCTION_DEFS_H

#include <sqlite3ext.h>
#include <stdbool.h>

#include "base/pv_alloc.h"

typedef struct PvFunctionDef {
    const char *name;
    int nargs;          /* -1: any number */
    int flags;          /* SQLITE_UTF8 | SQLITE_DIRECTONLY ... */
    bool connection_data;   /* user data: the connection's state (PvCache) */
    void *data;             /* else this user data */
    void (*func)(sqlite3_context *, int, sqlite3_value **);
    void (*step)(sqlite3_context *, int, sqlite3_value **);
    void (*final)(sqlite3_context *);
} PvFunctionDef;

/* A function whose call fails when an allocation failed during it, even
 * where the work went on without the memory (base/pv_alloc.h). */
#define PV_GUARDED_FUNCTION(name, body)                                          \
    static void name(sqlite3_context *ctx, int argc, sqlite3_value **argv)      \
    {                                                                            \
        unsigned long failures = pv_alloc_failures();                            \
        body(ctx, argc, argv);                                                   \
        if (pv_alloc_failures() != failures)                                     \
            sqlite3_result_error_nomem(ctx);                                     \
    }
#define PV_GUARDED_FINAL(name, body)                                             \
    static void name(sqlite3_context *ctx)                                       \
    {                                                                            \
        unsigned long failures = pv_alloc_failures();                            \
        body(ctx);                                                               \
        if (pv_alloc_failures() != failures)                                     \
            sqlite3_result_error_nomem(ctx);                                     \
    }

extern const PvFunctionDef pv_cache_stats_functions[];   /* ext/file_cache.c */
extern const PvFunctionDef pv_pprof_functions[];         /* ext/pprof.c */
extern const PvFunctionDef pv_symbol_path_functions[];   /* ext/symbol_paths.c */
extern const PvFunctionDef pv_threads_functions[];       /* ext/threads_setting.c */
extern const PvFunctionDef pv_flamegraph_functions[];    /* ext/flamegraph.c */
extern const PvFunctionDef pv_sum_by_functions[];        /* ext/sum_by.c */

#endif
