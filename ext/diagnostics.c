/*
 * perf_diagnostics: what the reader skipped or distrusted in a file, and
 * why -- one row per kind of damage or oddity (src/analysis/diagnostics.h lists the
 * kinds).  The whole file is read when the first row is asked for; a file
 * whose records stop making sense gives rows (kind 'unreadable_records'),
 * not an SQL error, so the damage can be seen.
 *
 *   SELECT kind, severity, count, message FROM perf_diagnostics('perf.data');
 */
#include "analysis/diagnostics.h"
#include "vtab_common.h"

#define DIAGNOSTICS_COLUMNS(X) \
    X(KIND, kind, TEXT) \
    X(SEVERITY, severity, TEXT) \
    X(RECORD, record, INTEGER) \
    X(FILE_OFFSET, file_offset, INTEGER) \
    X(COUNT, count, INTEGER) \
    X(VALUE, value, INTEGER) \
    X(MESSAGE, message, TEXT)
enum { DIAGNOSTICS_COLUMNS(PV_COLUMN_ENUM) };

typedef struct DiagnosticsState {
    pv_diagnostics rows;
    size_t at;
} DiagnosticsState;

static void diagnostics_seek(PvCursor *cur, size_t at)
{
    DiagnosticsState *st = cur->state;
    st->at = at;
    cur->rowid = (sqlite3_int64)at;
    cur->eof = at >= st->rows.nr;
}

static int diagnostics_first(PvCursor *cur, pv_error *err)
{
    DiagnosticsState *st = cur->state;
    if (pv_diagnostics_collect_paths(cur->file, pv_cache_sysroot(cur->cache),
                                     pv_cache_symdir(cur->cache), &st->rows, err))
        return -1;
    diagnostics_seek(cur, 0);
    return 0;
}

static int diagnostics_next(PvCursor *cur, pv_error *err)
{
    (void)err;
    DiagnosticsState *st = cur->state;
    diagnostics_seek(cur, st->at + 1);
    return 0;
}

static void diagnostics_reset(PvCursor *cur)
{
    DiagnosticsState *st = cur->state;
    pv_diagnostics_free(&st->rows);
}

static int diagnostics_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    DiagnosticsState *st = cur->state;
    const pv_diagnostic *d = &st->rows.items[st->at];
    switch (i) {
    case COL_KIND: sqlite3_result_text(ctx, d->kind, -1, SQLITE_TRANSIENT); break;
    case COL_SEVERITY: sqlite3_result_text(ctx, d->severity, -1, SQLITE_TRANSIENT); break;
    case COL_RECORD: if (d->has_record) pv_result_u64(ctx, d->record); break;
    case COL_FILE_OFFSET: if (d->has_offset) pv_result_u64(ctx, d->file_offset); break;
    case COL_COUNT: pv_result_u64(ctx, d->count); break;
    case COL_VALUE: if (d->has_value) pv_result_u64(ctx, d->value); break;
    case COL_MESSAGE: sqlite3_result_text(ctx, d->message, -1, SQLITE_TRANSIENT); break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_diagnostics_table = {
    .name = "perf_diagnostics",
    .columns = PV_COLUMNS_DECL(DIAGNOSTICS_COLUMNS),
    .state_size = sizeof(DiagnosticsState),
    .first = diagnostics_first,
    .next = diagnostics_next,
    .column = diagnostics_column,
    .reset = diagnostics_reset,
};
