/*
 * The columns perf_samples and perf_callchains both give an address resolved
 * by the symbolizer, declared in this order in both tables:
 *   dso, dso_offset, sym, sym_offset, sym_status
 */
#ifndef PV_LOCATION_COLUMNS_H
#define PV_LOCATION_COLUMNS_H

#include "symbols/symbolizer.h"
#include "row_values.h"
#include "vtab_common.h"

enum { PV_LOC_DSO, PV_LOC_DSO_OFFSET, PV_LOC_SYM, PV_LOC_SYM_OFFSET, PV_LOC_SYM_STATUS };

/* Results one of those columns (field: PV_LOC_*) of l; NULL where unknown. */
void pv_result_location(sqlite3_context *ctx, const pv_location *l, int field);
/* The same as a value (PvTableDef.value): NULL, an integer or a C string. */
pv_value pv_location_value(const pv_location *l, int field);

#endif
