/*
 * Long work stops when its caller asks.  The caller hands the reader a
 * pv_stop (on a file: pv_file_set_stop; to a pattern's walk), and the reader
 * asks it between units of work: before each read of a recording's bytes,
 * each decompressed block, each directory a pattern reads.  ext/ makes the
 * check ask whether the statement was interrupted or its progress handler
 * wants it to stop (ext/stop_probe.h).
 *
 * A check is asked only on the thread it was made for: a recording's bytes
 * are also read by the thread that decompresses them (stream/unpack.c),
 * which must not run the caller's check, and is stopped by the walk that
 * waits for it instead.
 *
 * A check that has said stop says it at every later ask of the same work:
 * what skips work at a stop (debug info left unread, unwind/debug_cache.h)
 * relies on the work then failing, so that nothing made without it is
 * handed on.
 */
#ifndef PV_STOP_H
#define PV_STOP_H

#include <pthread.h>
#include <stdbool.h>

#include "base/pv_error.h"

typedef struct pv_stop {
    bool (*check)(void *arg);   /* true: stop */
    void *arg;
    pthread_t thread;           /* the only thread that asks it */
} pv_stop;

/* Whether stop, asked on its own thread, says the work must stop (false for
 * NULL): for work that stops without an error of its own to report. */
bool pv_stop_said(const pv_stop *stop);

/* -1 with err set ("what: interrupted", PV_ERROR_STOPPED) when stop, asked
 * on its own thread, says the work must stop; else 0 (also for NULL). */
int pv_stop_check_point(const pv_stop *stop, const char *what, pv_error *err);

#endif
