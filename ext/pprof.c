/*
 * perf_pprof(path [, event]): the samples of one event of a recording as a
 * gzip-compressed pprof profile (profile.proto), the BLOB that go tool
 * pprof, Pyroscope, Parca and Grafana read.
 *
 *   SELECT writefile('cpu.pb.gz', perf_pprof('perf.data'));
 *   SELECT writefile('faults.pb.gz', perf_pprof('perf.data', 'page-faults'));
 *
 * event is a name as perf_events.name gives it; without it, the file's
 * first event that is not perf's "dummy".  The other events' samples are
 * left out (pprof's sample types are per profile; perf report, too, shows
 * each event apart).  What the profile holds: src/analysis/pprof_profile.h;
 * the encoding (protobuf-c, zlib): src/render/pprof_encode.c.
 *
 * Registered SQLITE_DIRECTONLY: it reads files, so a schema (a view, a
 * trigger) must not be able to call it; and refused in a statement that
 * writes, where SQLite 3.40 would let a CHECK constraint call it
 * (ext/schema_guard.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/pprof_profile.h"
#include "format/event_names.h"
#include "file_cache.h"
#include "function_defs.h"
#include "schema_guard.h"
#include "stop_probe.h"
#include "symbol_paths.h"
#include "vtab_common.h"

/* "cpu-clock, page-faults, dummy": the events a bad name could have been */
static void list_events(pv_file *f, pv_strbuf *out)
{
    for (size_t i = 0; i < f->nr_attrs; i++) {
        const char *name = pv_file_event_name(f, i);
        pv_strbuf_printf(out, "%s%s", i ? ", " : "", name ? name : "?");
    }
}

static void pprof_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    PvCache *cache = sqlite3_user_data(ctx);
    if (pv_refused_while_writing(ctx, "perf_pprof"))
        return;
    const char *path = (const char *)sqlite3_value_text(argv[0]);
    if (!path || !*path) {
        sqlite3_result_error(ctx, "perf_pprof: the first argument is the perf.data path", -1);
        return;
    }
    if (strlen(path) != (size_t)sqlite3_value_bytes(argv[0])) {
        sqlite3_result_error(ctx, "perf_pprof: a path with a NUL byte in it", -1);
        return;
    }
    const char *event = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
    pv_error err = {0};
    pv_file *file = NULL;
    if (pv_cache_acquire_file(cache, path, &file, &err)) {
        pv_result_error(ctx, &err);
        return;
    }
    /* the profile is built with the statement's interrupt and progress
     * handler watching (ext/stop_probe.h) */
    PvStopProbe stop = {0};
    pv_file_set_stop(file, pv_stop_probe_arm(&stop, sqlite3_context_db_handle(ctx)));
    int attr_index = event ? pv_pprof_find_event(file, event) : pv_pprof_default_event(file);
    if (attr_index < 0) {
        pv_strbuf msg = {0};
        if (event)
            pv_strbuf_printf(&msg, "perf_pprof: %s has no event '%s' (its events: ", path, event);
        else
            pv_strbuf_printf(&msg, "perf_pprof: %s has no event with samples (its events: ",
                              path);
        list_events(file, &msg);
        pv_strbuf_printf(&msg, ")");
        sqlite3_result_error(ctx, pv_strbuf_text(&msg), -1);
        pv_strbuf_free(&msg);
        pv_file_clear_stop(file, &stop.stop);
        pv_stop_probe_finish(&stop);
        pv_cache_release_file(cache, file);
        return;
    }
    pv_symbolizer *sym = NULL;
    pv_pprof_tables tables;
    memset(&tables, 0, sizeof tables);
    if (pv_open_symbolizer(cache, file, &sym, &err) ||
        pv_pprof_build(file, sym, (size_t)attr_index, &tables, &err)) {
        pv_result_error(ctx, &err);
    } else {
        uint8_t *blob = NULL;
        size_t len = 0;
        const char *why = NULL;
        if (pv_pprof_encode(&tables, &blob, &len, &why) == 0) {
            /* malloc'd: SQLite takes it over and frees it */
            sqlite3_result_blob64(ctx, blob, len, free);
        } else {
            char *msg = sqlite3_mprintf("perf_pprof: %s: %s", path, why);
            sqlite3_result_error(ctx, msg ? msg : why, -1);
            sqlite3_free(msg);
        }
    }
    pv_pprof_tables_free(&tables);
    pv_symbolizer_free(sym);
    pv_file_clear_stop(file, &stop.stop);
    pv_stop_probe_finish(&stop);
    pv_cache_release_file(cache, file);
}

const PvFunctionDef pv_pprof_functions[] = {
    {"perf_pprof", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, pprof_function, NULL, NULL},
    {"perf_pprof", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, pprof_function, NULL, NULL},
    {NULL, 0, 0, false, NULL, NULL, NULL, NULL},
};
