/*
 * Long work stops when its caller asks.  The reader calls
 * pv_stop_requested() between units of work (each read of a file's bytes,
 * each directory a pattern reads, a batch of frames rendered), and fails
 * with a PV_ERROR_STOPPED error when it says so.  The caller installs, for
 * the thread that does the work, a check of its own: ext/ asks SQLite
 * whether the statement was interrupted (sqlite3_interrupt) or its
 * progress handler wants it to stop.  Without a check installed nothing
 * stops.  Scopes nest: the innermost check is asked.
 */
#ifndef PV_STOP_H
#define PV_STOP_H

#include <stdbool.h>

#include "base/pv_error.h"

typedef bool pv_stop_check(void *arg);

typedef struct pv_stop_scope {
    pv_stop_check *check;
    void *arg;
    struct pv_stop_scope *outer;
} pv_stop_scope;

/* Installs check(arg) for this thread until pv_stop_leave(scope). */
void pv_stop_enter(pv_stop_scope *scope, pv_stop_check *check, void *arg);
void pv_stop_leave(pv_stop_scope *scope);

/* True when the installed check asks the work to stop. */
bool pv_stop_requested(void);

/* pv_stop_requested(), as an error: -1 with err set ("what: stopped") when
 * the work must stop, else 0. */
int pv_stop_check_point(const char *what, pv_error *err);

#endif
