/*
 * sqlite3_interrupt and the progress handler, for long work inside one call
 * of the extension (a scan's xFilter that builds a profile, perf_pprof, a
 * pattern expanded over a file tree).  SQLite checks both only between its
 * own opcodes, which do not run while the extension works; and SQLite 3.40
 * has no sqlite3_is_interrupted.  So the reader's stop points
 * (base/pv_stop.h) step a tiny statement of the same connection: SQLite
 * answers it SQLITE_INTERRUPT when the connection was interrupted (or
 * refuses to prepare it), and runs the progress handler for its opcodes,
 * which can stop it the same way.  The statement is kept while its holder
 * (a cursor) lives, and finalized before the holder goes, so that it never
 * keeps sqlite3_close waiting.
 */
#ifndef PV_STOP_PROBE_H
#define PV_STOP_PROBE_H

#include <sqlite3ext.h>
#include <stdbool.h>

#include "base/pv_stop.h"

typedef struct PvStopProbe {
    pv_stop stop;           /* what the reader asks: must_stop(probe) */
    sqlite3 *db;
    sqlite3_stmt *stmt;     /* prepared at the first stop point */
    bool stopped;
} PvStopProbe;

bool pv_stop_probe_must_stop(void *probe);

/* Readies probe to ask db, from the calling thread (again after the
 * statement moved to another thread).  Returns &probe->stop.  Inline: a
 * scan arms it for every row. */
static inline const pv_stop *pv_stop_probe_arm(PvStopProbe *probe, sqlite3 *db)
{
    probe->db = db;
    probe->stopped = false;
    probe->stop.check = pv_stop_probe_must_stop;
    probe->stop.arg = probe;
    probe->stop.thread = pthread_self();
    return &probe->stop;
}
/* Finalizes the statement; the probe may be armed again. */
void pv_stop_probe_finish(PvStopProbe *probe);

#endif
