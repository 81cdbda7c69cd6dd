/*
 * perf_symbol_path(sysroot [, symdir]): where symbol resolution looks for
 * the recorded binaries, for the queries that follow.
 *
 *   SELECT perf_symbol_path('/srv/target-rootfs', '/srv/symbols');
 *   SELECT perf_symbol_path(NULL);          -- back to the recorded paths
 *
 * sysroot prefixes every recorded path (like perf's --symfs); symdir is a
 * directory laid out like perf's build-id cache (.build-id/xx/yyyy),
 * searched before ~/.debug.  The setting is process-wide: the tables'
 * cursors do not know their connection.  Returns the setting as JSON.
 *
 * Also here: the per-cursor symbolizer the symbol columns share.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "symbol_paths.h"

#include "base/json_writer.h"
#include "format/perf_abi.h"

static pthread_mutex_t paths_lock = PTHREAD_MUTEX_INITIALIZER;
static char *current_sysroot;
static char *current_symdir;

static char *copy_value(sqlite3_value *v)
{
    const char *s = (const char *)sqlite3_value_text(v);
    return s && *s ? strdup(s) : NULL;
}

static void symbol_path_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    char *sysroot = copy_value(argv[0]);
    char *symdir = argc > 1 ? copy_value(argv[1]) : NULL;
    pthread_mutex_lock(&paths_lock);
    free(current_sysroot);
    free(current_symdir);
    current_sysroot = sysroot;
    current_symdir = symdir;
    pthread_mutex_unlock(&paths_lock);
    pv_strbuf out = {0};
    pv_json_writer w;
    pv_json_init(&w, &out);
    pv_json_object_begin(&w);
    pv_json_key(&w, "sysroot");
    pv_json_cstring(&w, sysroot);
    pv_json_key(&w, "symdir");
    pv_json_cstring(&w, symdir);
    pv_json_object_end(&w);
    pv_result_strbuf(ctx, &out);
    pv_strbuf_free(&out);
}

int pv_register_symbol_path_function(sqlite3 *db)
{
    int rc = sqlite3_create_function(db, "perf_symbol_path", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                     NULL, symbol_path_function, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function(db, "perf_symbol_path", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                     NULL, symbol_path_function, NULL, NULL);
    return rc;
}

int pv_open_symbolizer(PvCache *cache, pv_file *file, pv_symbolizer **slot, pv_error *err)
{
    if (*slot)
        return 0;
    pthread_mutex_lock(&paths_lock);
    pv_symbol_paths paths = {
        .sysroot = current_sysroot ? strdup(current_sysroot) : NULL,
        .symdir = current_symdir ? strdup(current_symdir) : NULL,
    };
    pthread_mutex_unlock(&paths_lock);
    int rc = pv_symbolizer_open(file, &paths, slot, err);
    struct pv_debug_cache *debug_info = rc == 0 ? pv_cache_debug_info(cache) : NULL;
    if (debug_info)
        pv_symbolizer_share_debug_cache(*slot, debug_info);
    struct pv_stack_memo *stacks = rc == 0 ? pv_cache_stack_memo(cache, file) : NULL;
    if (stacks)
        pv_symbolizer_share_stack_memo(*slot, stacks);
    free((char *)paths.sysroot);
    free((char *)paths.symdir);
    return rc;
}

int pv_vtab_symbolizer(PvCursor *cur, pv_symbolizer **slot, pv_error *err)
{
    return pv_open_symbolizer(cur->cache, cur->file, slot, err);
}

int pv_vtab_sample_symbolizer(PvCursor *cur, pv_symbolizer **slot, const pv_record *r,
                              const pv_sample *s, bool *keyed, uint64_t *key, pv_error *err)
{
    if (pv_vtab_symbolizer(cur, slot, err))
        return -1;
    if (!*keyed && pv_symbolizer_at(*slot, r->index, (s->sample_type & PV_SAMPLE_TIME) != 0,
                                    s->time, key, err))
        return -1;
    *keyed = true;
    return 0;
}
