/*
 * Column values as the grouped scans (vtab_grouped.c) keep them: a table's
 * PvTableDef.value gives NULL, an integer or a C string (pv_value of
 * render/hash_groups.h), and its column callback results the same value,
 * so that a grouped scan hands SQLite what a plain scan would.
 */
#ifndef PV_ROW_VALUES_H
#define PV_ROW_VALUES_H

#include "render/row_groups.h"
#include "vtab_common.h"

/* A value from a table's value callback or a grouped scan as the result:
 * NULL, an integer, or text that is a C string (copied). */
void pv_result_value(sqlite3_context *ctx, const pv_value *v);
static inline pv_value pv_int_value(int64_t i)
{
    return (pv_value){ PV_VALUE_INT, i, 0, NULL, 0 };
}
static inline pv_value pv_null_value(void)
{
    return (pv_value){ PV_VALUE_NULL, 0, 0, NULL, 0 };
}
/* A C string as a TEXT value; NULL as a NULL value. */
pv_value pv_text_value(const char *s);

#endif
