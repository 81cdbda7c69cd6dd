/*
 * perf_pprof(path [, event]): the samples of one event of a recording as a
 * gzip-compressed pprof profile (profile.proto), the BLOB that go tool
 * pprof, Pyroscope, Parca and Grafana read.
 *
 *   SELECT writefile('cpu.pb.gz', perf_pprof('perf.data'));
 *   SELECT writefile('faults.pb.gz', perf_pprof('perf.data', 'page-faults'));
 *
 * path is read as the tables read theirs (path_args.h): a pattern or a
 * JSON list of paths makes one profile of every file's samples.  event is
 * a name as perf_events.name gives it; without it, the first file's first
 * event that is not perf's "dummy", and that event (by name) in the files
 * after it.  The other events' samples are left out (pprof's sample types
 * are per profile; perf report, too, shows each event apart).  What the
 * profile holds: src/analysis/pprof_profile.h; the encoding (protobuf,
 * written into zlib as it is made): src/render/pprof_encode.c.
 *
 * Registered SQLITE_DIRECTONLY: it reads files, so a schema (a view, a
 * trigger) must not be able to call it; and refused in a statement that
 * writes, where SQLite 3.40 would let a CHECK constraint call it
 * (ext/schema_guard.h).  The profile is built with the statement's
 * interrupt and progress handler watching (ext/stop_probe.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/pprof_profile.h"
#include "format/event_names.h"
#include "file_cache.h"
#include "function_defs.h"
#include "path_args.h"
#include "schema_guard.h"
#include "stop_probe.h"
#include "symbol_paths.h"
#include "vtab_common.h"

/* "cpu-clock, page-faults, dummy": the events a bad name could have been */
static void list_events(pv_file *f, pv_strbuf *out)
{
    for (size_t i = 0; i < pv_file_nr_attrs(f); i++) {
        const char *name = pv_file_event_name(f, i);
        pv_strbuf_printf(out, "%s%s", i ? ", " : "", name ? name : "?");
    }
}

/* The error for a file without the event: the event asked for (or the
 * first file's), and the events this file has. */
static void no_event_error(sqlite3_context *ctx, pv_file *f, const char *event, bool asked)
{
    pv_strbuf msg = {0};
    const char *path = pv_file_path(f);
    if (!event)
        pv_strbuf_printf(&msg, "perf_pprof: %s has no event with samples (its events: ", path);
    else if (asked)
        pv_strbuf_printf(&msg, "perf_pprof: %s has no event '%s' (its events: ", path, event);
    else
        pv_strbuf_printf(&msg, "perf_pprof: %s has no event '%s', the first file's, which a "
                         "profile of several files holds alone (its events: ", path, event);
    list_events(f, &msg);
    pv_strbuf_printf(&msg, ")");
    sqlite3_result_error(ctx, pv_strbuf_text(&msg), -1);
    pv_strbuf_free(&msg);
}

/* Adds path's samples of event (NULL: the file's default) to b; *event
 * becomes the event's name (the file's, kept in *name_copy) for the files
 * after.  0, or -1 with the result set to the error. */
static int add_file(sqlite3_context *ctx, PvCache *cache, pv_pprof_builder *b, const char *path,
                    const pv_stop *stop, const char **event, bool asked, char **name_copy)
{
    pv_error err = {0};
    pv_file *file = NULL;
    if (pv_cache_acquire_file(cache, path, stop, &file, &err)) {
        pv_result_error(ctx, &err);
        return -1;
    }
    pv_file_set_stop(file, stop);
    int attr_index = *event ? pv_pprof_find_event(file, *event) : pv_pprof_default_event(file);
    if (attr_index < 0) {
        no_event_error(ctx, file, *event, asked);
        pv_file_clear_stop(file, stop);
        pv_cache_release_file(cache, file);
        return -1;
    }
    int rc = 0;
    if (!*event) {
        const char *name = pv_file_event_name(file, (size_t)attr_index);
        *name_copy = sqlite3_mprintf("%s", name ? name : "");
        if (!*name_copy) {
            sqlite3_result_error_nomem(ctx);
            rc = -1;
        }
        *event = *name_copy;
    }
    pv_symbolizer *sym = NULL;
    if (rc == 0 && (pv_open_symbolizer(cache, file, &sym, &err) ||
                    pv_pprof_add(b, file, sym, (size_t)attr_index, &err))) {
        pv_result_error(ctx, &err);
        rc = -1;
    }
    pv_symbolizer_free(sym);
    pv_file_clear_stop(file, stop);
    pv_cache_release_file(cache, file);
    return rc;
}

static void pprof_function_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    PvCache *cache = sqlite3_user_data(ctx);
    if (pv_refused_while_writing(ctx, "perf_pprof"))
        return;
    const char *path = (const char *)sqlite3_value_text(argv[0]);
    if (!path || !*path) {
        sqlite3_result_error(ctx, "perf_pprof: the first argument is the perf.data path "
                             "(a file, a directory, a pattern or a JSON list of paths)", -1);
        return;
    }
    if (strlen(path) != (size_t)sqlite3_value_bytes(argv[0])) {
        sqlite3_result_error(ctx, "perf_pprof: a path with a NUL byte in it", -1);
        return;
    }
    PvStopProbe probe = {0};
    const pv_stop *stop = pv_stop_probe_arm(&probe, sqlite3_context_db_handle(ctx));
    const char *event = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
    bool asked = event != NULL;
    /* the same paths as the tables: a pattern or a list is every file it names */
    PvPathList files;
    pv_error err = {0};
    if (pv_path_expand(sqlite3_context_db_handle(ctx), path, stop, &files, &err)) {
        char *msg = sqlite3_mprintf("perf_pprof: %s", err.msg);
        sqlite3_result_error(ctx, msg ? msg : err.msg, -1);
        sqlite3_free(msg);
        if (err.kind != PV_ERROR_FAILED)
            sqlite3_result_error_code(ctx, pv_error_code(&err));
        pv_stop_probe_finish(&probe);
        return;
    }
    size_t n = files.nr ? files.nr : 1;
    pv_pprof_builder *b = pv_pprof_builder_new();
    char *event_copy = NULL;
    int rc = b ? 0 : -1;
    if (!b)
        sqlite3_result_error_nomem(ctx);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = add_file(ctx, cache, b, files.nr ? files.paths[i] : path, stop, &event, asked,
                      &event_copy);
    pv_pprof_tables tables;
    memset(&tables, 0, sizeof tables);
    if (rc == 0 && pv_pprof_finish(b, &tables, &err)) {
        pv_result_error(ctx, &err);
        rc = -1;
    }
    /* stopped: debug info may have been left unread (unwind/debug_cache.h) */
    if (rc == 0 && probe.stopped) {
        char *msg = sqlite3_mprintf("perf_pprof: %s: interrupted", path);
        sqlite3_result_error(ctx, msg ? msg : "perf_pprof: interrupted", -1);
        sqlite3_free(msg);
        sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
        rc = -1;
    }
    if (rc == 0) {
        uint8_t *blob = NULL;
        size_t len = 0;
        pv_error encode_err = {0};
        if (pv_pprof_encode_consuming(&tables, stop, &blob, &len, &encode_err) == 0) {
            /* malloc'd: SQLite takes it over and frees it */
            sqlite3_result_blob64(ctx, blob, len, free);
        } else {
            char *msg = sqlite3_mprintf("perf_pprof: %s: %s", path, encode_err.msg);
            sqlite3_result_error(ctx, msg ? msg : encode_err.msg, -1);
            sqlite3_free(msg);
            if (encode_err.kind == PV_ERROR_STOPPED)
                sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
        }
    }
    pv_pprof_tables_free(&tables);
    pv_pprof_builder_free(b);
    sqlite3_free(event_copy);
    pv_path_list_free(&files);
    pv_stop_probe_finish(&probe);
}

PV_GUARDED_FUNCTION(pprof_function, pprof_function_body)

const PvFunctionDef pv_pprof_functions[] = {
    {"perf_pprof", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, pprof_function, NULL, NULL},
    {"perf_pprof", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, pprof_function, NULL, NULL},
    {NULL, 0, 0, false, NULL, NULL, NULL, NULL},
};
