#include "base/pv_error.h"

#include <stdio.h>

static int set(pv_error *err, pv_error_kind kind, const char *fmt, va_list ap)
{
    if (!err)
        return -1;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    err->kind = kind;
    return -1;
}

int pv_error_set(pv_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set(err, PV_ERROR_FAILED, fmt, ap);
    va_end(ap);
    return -1;
}

int pv_error_set_kind(pv_error *err, pv_error_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set(err, kind, fmt, ap);
    va_end(ap);
    return -1;
}
