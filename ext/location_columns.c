#include "location_columns.h"

pv_value pv_location_value(const pv_location *l, int field)
{
    switch (field) {
    case PV_LOC_DSO: return pv_text_value(l->dso);
    case PV_LOC_DSO_OFFSET: return l->dso ? pv_int_value((int64_t)l->dso_offset) : pv_null_value();
    case PV_LOC_SYM: return pv_text_value(l->sym);
    case PV_LOC_SYM_OFFSET: return l->sym ? pv_int_value((int64_t)l->sym_offset) : pv_null_value();
    case PV_LOC_SYM_STATUS: return pv_text_value(l->status);
    default: return pv_null_value();
    }
}

/* Copied (SQLITE_TRANSIENT, by pv_result_value): the names belong to the
 * symbolizer, which a glob frees at the next file, while min()/max(),
 * sorters and subqueries keep values past the row. */
void pv_result_location(sqlite3_context *ctx, const pv_location *l, int field)
{
    pv_value v = pv_location_value(l, field);
    pv_result_value(ctx, &v);
}
