/*
 * The reader's error: one message buffer, filled once with what went wrong,
 * where (file and byte offset) and why.  The SQL layer (ext/) hands it on
 * as the statement's error; the reader knows nothing of SQL.
 */
#ifndef PV_ERROR_H
#define PV_ERROR_H

#include <stdarg.h>

typedef struct pv_error {
    char msg[768];
} pv_error;

/* Always returns -1 so that callers can write `return pv_error_set(...)`. */
int pv_error_set(pv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
