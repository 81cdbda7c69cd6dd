/*
 * The reader's error: one message buffer, filled once with what went wrong,
 * where (file and byte offset) and why, and what kind of failure it is, so
 * that the SQL layer (ext/) can hand it on as the statement's error with
 * the right code (out of memory, interrupted, ...).  The reader knows
 * nothing of SQL.
 */
#ifndef PV_ERROR_H
#define PV_ERROR_H

#include <stdarg.h>

typedef enum pv_error_kind {
    PV_ERROR_FAILED = 0,    /* bad input, a missing file, ...: the message says */
    PV_ERROR_NOMEM,         /* an allocation failed */
    PV_ERROR_STOPPED,       /* the caller asked the work to stop (base/pv_stop.h) */
} pv_error_kind;

typedef struct pv_error {
    char msg[768];
    pv_error_kind kind;
} pv_error;

/* Always returns -1 so that callers can write `return pv_error_set(...)`. */
int pv_error_set(pv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same, for a failure of the given kind. */
int pv_error_set_kind(pv_error *err, pv_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
