/*
 * Symbol resolution for the tables: the perf_symbol_path() setting and the
 * symbolizer a cursor builds the first time a symbol column is read.
 */
#ifndef PV_SYMBOL_PATHS_H
#define PV_SYMBOL_PATHS_H

#include "symbolizer.h"
#include "vtab_common.h"

int pv_register_symbol_path_function(sqlite3 *db);

/* Opens *slot over cur's file (with the current paths) unless already open. */
int pv_cursor_symbolizer(PvCursor *cur, pv_symbolizer **slot, pv_error *err);

#endif
