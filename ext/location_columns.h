/*
 * The columns perf_samples and perf_callchains both give an address resolved
 * by the symbolizer, declared in this order in both tables:
 *   dso, dso_offset, sym, sym_offset, sym_status
 * and its source line, srcfile and srcline, looked up once per row the
 * first time either is read.
 */
#ifndef PV_LOCATION_COLUMNS_H
#define PV_LOCATION_COLUMNS_H

#include "symbols/symbolizer.h"
#include "row_values.h"
#include "vtab_common.h"

enum { PV_LOC_DSO, PV_LOC_DSO_OFFSET, PV_LOC_SYM, PV_LOC_SYM_OFFSET, PV_LOC_SYM_STATUS };

/* One of those columns (field: PV_LOC_*) of l as a value (PvTableDef.value):
 * NULL where unknown, an integer or a C string. */
pv_value pv_location_value(const pv_location *l, int field);

/* A row's source line: where (pid, key, cpumode, ip, level) is the
 * address as pv_symbolizer_source_line takes it. */
typedef struct PvSourceColumns {
    bool looked, found;
    uint64_t line;
    char file[4096];
} PvSourceColumns;

typedef struct PvSourceAddress {
    int32_t pid;
    uint64_t key;
    unsigned cpumode;
    uint64_t ip;
    unsigned level;
} PvSourceAddress;

/* Forgets the row's source line: at each new row. */
static inline void pv_source_forget(PvSourceColumns *src)
{
    src->looked = false;
}

/* srcfile (want_file) or srcline of the address at, looked up in s the
 * first time for the row; NULL where there is no line info.  The text is
 * src's, valid until the next row. */
pv_value pv_source_value(PvSourceColumns *src, pv_symbolizer *s, const PvSourceAddress *at,
                         bool want_file);

#endif
