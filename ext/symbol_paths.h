/*
 * Symbol resolution for the tables: the perf_symbol_path() setting and the
 * symbolizer a cursor builds the first time a symbol column is read.
 */
#ifndef PV_SYMBOL_PATHS_H
#define PV_SYMBOL_PATHS_H

#include "stream/record_walk.h"
#include "decode/sample.h"
#include "symbols/symbolizer.h"
#include "vtab_common.h"

/* perf_symbol_path(sysroot [, symdir]) sets the connection's paths:
 * pv_symbol_path_functions (ext/function_defs.h). */

/* Opens *slot over file (with the current paths, sharing cache's debug
 * info and file's remembered stacks) unless already open. */
int pv_open_symbolizer(PvCache *cache, pv_file *file, pv_symbolizer **slot, pv_error *err);
/* Opens *slot over cur's file (with the current paths) unless already open. */
int pv_vtab_symbolizer(PvCursor *cur, pv_symbolizer **slot, pv_error *err);
/* The same, readied for sample s of record r (pv_symbolizer_at) unless
 * *keyed says it was: *key is then the sample's order among the map
 * events.  Clear *keyed when the cursor moves to another sample. */
int pv_vtab_sample_symbolizer(PvCursor *cur, pv_symbolizer **slot, const pv_record *r,
                              const pv_sample *s, bool *keyed, uint64_t *key, pv_error *err);

#endif
