/*
 * The unit tests' side of the test protocol (tests/run.sh): one
 * "ok - what" or "not ok - what: why" line per check, and main returns
 * failures != 0.
 */
#ifndef PV_UNIT_CHECK_H
#define PV_UNIT_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int failures;

static void check(bool cond, const char *what, const char *why_fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void check(bool cond, const char *what, const char *why_fmt, ...)
{
    if (cond) {
        printf("ok - %s\n", what);
        return;
    }
    failures++;
    printf("not ok - %s: ", what);
    va_list ap;
    va_start(ap, why_fmt);
    vprintf(why_fmt, ap);
    va_end(ap);
    printf("\n");
}

#endif
