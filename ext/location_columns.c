#include "location_columns.h"

void pv_result_location(sqlite3_context *ctx, const pv_location *l, int field)
{
    switch (field) {
    case PV_LOC_DSO:
        if (l->dso) sqlite3_result_text(ctx, l->dso, (int)l->dso_len, SQLITE_STATIC);
        break;
    case PV_LOC_DSO_OFFSET:
        if (l->dso) pv_result_u64(ctx, l->dso_offset);
        break;
    case PV_LOC_SYM:
        if (l->sym) sqlite3_result_text(ctx, l->sym, (int)l->sym_len, SQLITE_STATIC);
        break;
    case PV_LOC_SYM_OFFSET:
        if (l->sym) pv_result_u64(ctx, l->sym_offset);
        break;
    case PV_LOC_SYM_STATUS:
        sqlite3_result_text(ctx, l->status, -1, SQLITE_STATIC);
        break;
    }
}
