#include "location_columns.h"

/* Copied (SQLITE_TRANSIENT): the names belong to the symbolizer, which a
 * glob frees at the next file, while min()/max(), sorters and subqueries
 * keep values past the row.  Length -1 tells SQLite the copy ends in a NUL,
 * so reading it back as text makes no second copy. */
void pv_result_location(sqlite3_context *ctx, const pv_location *l, int field)
{
    switch (field) {
    case PV_LOC_DSO:
        if (l->dso) sqlite3_result_text(ctx, l->dso, -1, SQLITE_TRANSIENT);
        break;
    case PV_LOC_DSO_OFFSET:
        if (l->dso) pv_result_u64(ctx, l->dso_offset);
        break;
    case PV_LOC_SYM:
        if (l->sym) sqlite3_result_text(ctx, l->sym, -1, SQLITE_TRANSIENT);
        break;
    case PV_LOC_SYM_OFFSET:
        if (l->sym) pv_result_u64(ctx, l->sym_offset);
        break;
    case PV_LOC_SYM_STATUS:
        sqlite3_result_text(ctx, l->status, -1, SQLITE_TRANSIENT);
        break;
    }
}

void pv_result_source(sqlite3_context *ctx, PvSourceColumns *src, pv_symbolizer *s,
                      const PvSourceAddress *at, bool want_file)
{
    if (!src->looked) {
        src->found = pv_symbolizer_source_line(s, at->pid, at->key, at->cpumode, at->ip,
                                               at->level, src->file, sizeof src->file,
                                               &src->line);
        src->looked = true;
    }
    if (!src->found)
        return;
    if (want_file)
        sqlite3_result_text(ctx, src->file, -1, SQLITE_TRANSIENT);
    else
        pv_result_u64(ctx, src->line);
}
