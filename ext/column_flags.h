/*
 * Column lists whose rows also say what each column is, for the tables
 * whose columns differ in more than name and type (perf_samples,
 * perf_callchains).  One row per column, X(NAME, name, TYPE, FLAGS):
 *
 *   #define CALLCHAINS_COLUMNS(X) \
 *       X(SAMPLE, sample, INTEGER, PV_COL_VALUE | PV_COL_UNIQUE) \
 *       X(DSO, dso, TEXT, PV_COL_VALUE | PV_COL_LOCATION(PV_LOC_DSO)) ...
 *   enum { CALLCHAINS_COLUMNS(PV_FLAGGED_COLUMN_ENUM) };
 *   .columns = PV_FLAGGED_COLUMNS_DECL(CALLCHAINS_COLUMNS),
 *   .groupable = PV_COLUMNS_WITH(CALLCHAINS_COLUMNS, VALUE),
 *
 * Every mask of PvTableDef and every "is this column one of those" test is
 * derived from the flags, never from the columns' positions, so a column
 * added anywhere in the list is what its row says.  Bits 16 and up are the
 * table's own (perf_samples keeps the fixed field a column reads alone
 * there).
 */
#ifndef PV_COLUMN_FLAGS_H
#define PV_COLUMN_FLAGS_H

#include <stdint.h>

#include "vtab_common.h"

enum {
    /* the table's value callback gives it (PvTableDef.groupable) */
    PV_COL_VALUE = 1 << 0,
    /* it differs from row to row (PvTableDef.row_unique) */
    PV_COL_UNIQUE = 1 << 1,
    /* read from records replayed before the row (PvTableDef.replayed_columns) */
    PV_COL_REPLAYED = 1 << 2,
};

/* A column of location_columns.h: which one (PV_LOC_*), kept + 1 in bits
 * 4 to 7 so that 0 means none. */
#define PV_COL_LOCATION(field) (((field) + 1) << 4)
static inline int pv_col_location_of(uint32_t flags)
{
    return (int)((flags >> 4) & 15) - 1;
}

/* As PV_COLUMN_ENUM and PV_COLUMN_DECL (vtab_common.h), written out again
 * rather than forwarded: forwarding would expand a column's name when it
 * is also a macro's. */
#define PV_FLAGGED_COLUMN_ENUM(NAME, name, type, flags) COL_##NAME,
#define PV_FLAGGED_COLUMN_DECL(NAME, name, type, flags) ", " #name PV_SQL_TYPE_##type
#define PV_FLAGGED_COLUMNS_DECL(LIST) (&(LIST(PV_FLAGGED_COLUMN_DECL))[2])

/* The flags of each column, by its COL_ number:
 *   static const uint32_t column_flags[] = { LIST(PV_COLUMN_FLAGS) }; */
#define PV_COLUMN_FLAGS(NAME, name, type, flags) [COL_##NAME] = (flags),

/* The columns (bit i: column i) whose flags have all of PV_COL_<FLAG>'s
 * bits, a constant expression. */
#define PV_COLUMN_IF_VALUE(NAME, name, type, flags) PV_COLUMN_IF(NAME, flags, PV_COL_VALUE)
#define PV_COLUMN_IF_UNIQUE(NAME, name, type, flags) PV_COLUMN_IF(NAME, flags, PV_COL_UNIQUE)
#define PV_COLUMN_IF_REPLAYED(NAME, name, type, flags) PV_COLUMN_IF(NAME, flags, PV_COL_REPLAYED)
#define PV_COLUMN_IF(NAME, flags, bit) | (((flags) & (bit)) ? (uint64_t)1 << COL_##NAME : 0)
#define PV_COLUMNS_WITH(LIST, FLAG) ((uint64_t)0 LIST(PV_COLUMN_IF_##FLAG))

static inline bool pv_column_in(uint64_t columns, int i)
{
    return i >= 0 && i < 64 && ((columns >> i) & 1);
}

#endif
