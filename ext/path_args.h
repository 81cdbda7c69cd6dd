/*
 * What a path argument names, the same for every table (vtab_module.c)
 * and for perf_pprof (pprof.c):
 *   - a file or directory that exists, or a path without wildcards: that
 *     path itself (opening it says what is wrong with it);
 *   - else a path with wildcards (* ? [): the files glob(3) would match,
 *     sorted, found within bounds and stopped when stop says so
 *     (path_glob.h); none is an error;
 *   - else a JSON array of strings, '["a.data","run*.data"]': each
 *     element as above, in order; an empty array is an error.
 */
#ifndef PV_PATH_ARGS_H
#define PV_PATH_ARGS_H

#include <stddef.h>
#include <sqlite3ext.h>

#include "base/pv_error.h"
#include "base/pv_stop.h"

typedef struct PvPathList {
    char **paths;       /* sqlite3_malloc'd */
    size_t nr;
} PvPathList;

/* The files path names into *out: nr 0 when it names itself.  db parses a
 * JSON list (SQLite's json_each).  0, or -1 with err set. */
int pv_path_expand(sqlite3 *db, const char *path, const pv_stop *stop, PvPathList *out,
                   pv_error *err);
void pv_path_list_free(PvPathList *list);

#endif
