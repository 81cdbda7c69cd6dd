#include "stop_probe.h"

#include <stddef.h>

SQLITE_EXTENSION_INIT3

bool pv_stop_probe_must_stop(void *arg)
{
    PvStopProbe *probe = arg;
    if (probe->stopped)
        return true;
    if (!probe->stmt) {
        /* named so that a host tracing its statements sees what it is;
         * preparing fails with SQLITE_INTERRUPT on an interrupted connection */
        int rc = sqlite3_prepare_v2(probe->db, "SELECT 'perfvtab: is the statement interrupted?'",
                                    -1, &probe->stmt, NULL);
        if (rc != SQLITE_OK) {
            sqlite3_finalize(probe->stmt);
            probe->stmt = NULL;
            /* otherwise (out of memory) it cannot ask: the work goes on */
            probe->stopped = rc == SQLITE_INTERRUPT;
            return probe->stopped;
        }
    }
    int rc = sqlite3_step(probe->stmt);
    sqlite3_reset(probe->stmt);
    probe->stopped = rc == SQLITE_INTERRUPT;
    return probe->stopped;
}

void pv_stop_probe_finish(PvStopProbe *probe)
{
    sqlite3_finalize(probe->stmt);
    probe->stmt = NULL;
    probe->stopped = false;
}
