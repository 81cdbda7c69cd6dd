/*
 * perf_symbol_path(sysroot [, symdir]): where symbol resolution looks for
 * the recorded binaries, for the queries that follow.
 *
 *   SELECT perf_symbol_path('/srv/target-rootfs', '/srv/symbols');
 *   SELECT perf_symbol_path(NULL);          -- back to the recorded paths
 *   SELECT perf_symbol_path();              -- the setting, unchanged
 *
 * sysroot prefixes every recorded path (like perf's --symfs); symdir is a
 * directory laid out like perf's build-id cache (.build-id/xx/yyyy,
 * [kernel.kallsyms]/<id>/kallsyms), searched before ~/.debug.  The setting
 * is the connection's (ext/file_cache.h), and refused from a database's
 * schema (ext/schema_guard.h).  Returns the setting as JSON.
 *
 * Also here: the per-cursor symbolizer the symbol columns share.
 */
#include <stdlib.h>
#include <string.h>

#include "function_defs.h"
#include "schema_guard.h"
#include "symbol_paths.h"

#include "base/json_writer.h"
#include "format/perf_abi.h"

/* A path argument as text: NULL for NULL or ''; false (error set on ctx)
 * for another type, or a text with a NUL inside, which a C path would cut
 * short. */
static bool path_value(sqlite3_context *ctx, sqlite3_value *v, const char **out)
{
    *out = NULL;
    if (sqlite3_value_type(v) == SQLITE_NULL)
        return true;
    const char *text = (const char *)sqlite3_value_text(v);
    if (!text) {
        sqlite3_result_error_nomem(ctx);
        return false;
    }
    if (strlen(text) != (size_t)sqlite3_value_bytes(v)) {
        sqlite3_result_error(ctx, "perf_symbol_path: a path with a NUL byte in it", -1);
        return false;
    }
    *out = *text ? text : NULL;
    return true;
}

/* perf_symbol_path() reads the setting; with arguments, it sets it. */
static void symbol_path_function_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    PvCache *cache = sqlite3_user_data(ctx);
    if (argc > 0) {
        if (pv_refused_while_writing(ctx, "perf_symbol_path"))
            return;
        const char *sysroot, *symdir = NULL;
        if (!path_value(ctx, argv[0], &sysroot) ||
            (argc > 1 && !path_value(ctx, argv[1], &symdir)))
            return;
        if (pv_cache_set_symbol_paths(cache, sysroot, symdir)) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
    }
    pv_strbuf out = {0};
    pv_json_writer w;
    pv_json_init(&w, &out);
    pv_json_object_begin(&w);
    pv_json_key(&w, "sysroot");
    pv_json_cstring(&w, pv_cache_sysroot(cache));
    pv_json_key(&w, "symdir");
    pv_json_cstring(&w, pv_cache_symdir(cache));
    pv_json_object_end(&w);
    pv_result_strbuf(ctx, &out);
    pv_strbuf_free(&out);
}

PV_GUARDED_FUNCTION(symbol_path_function, symbol_path_function_body)

const PvFunctionDef pv_symbol_path_functions[] = {
    {"perf_symbol_path", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, symbol_path_function, NULL,
     NULL},
    {"perf_symbol_path", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, symbol_path_function, NULL,
     NULL},
    {"perf_symbol_path", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, symbol_path_function, NULL,
     NULL},
    {NULL, 0, 0, false, NULL, NULL, NULL, NULL},
};

int pv_open_symbolizer(PvCache *cache, pv_file *file, pv_symbolizer **slot, pv_error *err)
{
    if (*slot)
        return 0;
    pv_symbol_paths paths = {
        .sysroot = pv_cache_sysroot(cache),
        .symdir = pv_cache_symdir(cache),
    };
    int rc = pv_symbolizer_open(file, &paths, slot, err);
    struct pv_debug_cache *debug_info = rc == 0 ? pv_cache_debug_info(cache) : NULL;
    if (debug_info)
        pv_symbolizer_share_debug_cache(*slot, debug_info);
    struct pv_stack_memo *stacks = rc == 0 ? pv_cache_stack_memo(cache, file) : NULL;
    if (stacks)
        pv_symbolizer_share_stack_memo(*slot, stacks);
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
