/*
 * Column values as the grouped scans (vtab_grouped.c) keep them: a table's
 * PvTableDef.value gives NULL, an integer or a C string (pv_value of
 * render/hash_groups.h), and its column callback results the same value,
 * so that a grouped scan hands SQLite what a plain scan would.
 */
#ifndef PV_ROW_VALUES_H
#define PV_ROW_VALUES_H

#include <string.h>

#include "render/row_groups.h"
#include "vtab_results.h"

static inline pv_value pv_int_value(int64_t i)
{
    return (pv_value){ PV_VALUE_INT, i, 0, NULL, 0 };
}
static inline pv_value pv_null_value(void)
{
    return (pv_value){ PV_VALUE_NULL, 0, 0, NULL, 0 };
}
/* A C string as a TEXT value; NULL as a NULL value. */
static inline pv_value pv_text_value(const char *s)
{
    if (!s)
        return pv_null_value();
    return (pv_value){ PV_VALUE_TEXT, 0, 0, s, strlen(s) };
}

#endif
