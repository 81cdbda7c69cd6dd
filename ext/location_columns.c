#include "location_columns.h"

/* Names go with length -1: SQLite then knows they end in a NUL.  Given a
 * length, it would copy them to add one each time a function or a
 * subquery reads them as text (a third of perf_sum_by's time over
 * perf_callchains). */
void pv_result_location(sqlite3_context *ctx, const pv_location *l, int field)
{
    switch (field) {
    case PV_LOC_DSO:
        if (l->dso) sqlite3_result_text(ctx, l->dso, -1, SQLITE_STATIC);
        break;
    case PV_LOC_DSO_OFFSET:
        if (l->dso) pv_result_u64(ctx, l->dso_offset);
        break;
    case PV_LOC_SYM:
        if (l->sym) sqlite3_result_text(ctx, l->sym, -1, SQLITE_STATIC);
        break;
    case PV_LOC_SYM_OFFSET:
        if (l->sym) pv_result_u64(ctx, l->sym_offset);
        break;
    case PV_LOC_SYM_STATUS:
        sqlite3_result_text(ctx, l->status, -1, SQLITE_STATIC);
        break;
    }
}
