/*
 * Keeps a database's schema from reading files or changing settings
 * through the extension's scalar functions.
 *
 * The modules and functions are registered SQLITE_DIRECTONLY, which keeps
 * them out of views, triggers, DEFAULTs, indexes and generated columns.
 * SQLite 3.40 still runs a DIRECTONLY function named in a CHECK
 * constraint, so a database file someone else wrote could make a victim's
 * INSERT call perf_symbol_path or perf_pprof with the file's arguments.  A
 * CHECK constraint runs only in a statement that writes; these functions
 * refuse to run while one of the connection's statements writes.
 */
#ifndef PV_SCHEMA_GUARD_H
#define PV_SCHEMA_GUARD_H

#include <sqlite3ext.h>
#include <stdbool.h>

/* True, with the error set on ctx, when function must not run now: a
 * statement of ctx's connection that writes is running. */
bool pv_refused_while_writing(sqlite3_context *ctx, const char *function);

#endif
