#include "base/pv_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool (*volatile should_fail)(void *arg);
static void *volatile fail_arg;
/* atomic: allocations of every thread (pv_alloc.h reads it inline) */
unsigned long pv_alloc_failure_count;

void pv_alloc_set_failure(bool (*fail)(void *arg), void *arg)
{
    fail_arg = arg;
    should_fail = fail;
}

static bool fails(void)
{
    bool (*fail)(void *) = should_fail;
    if (!fail || !fail(fail_arg))
        return false;
    __atomic_add_fetch(&pv_alloc_failure_count, 1, __ATOMIC_RELAXED);
    return true;
}

/* A real failure counts as a test's does. */
static void *counted(void *p)
{
    if (!p)
        __atomic_add_fetch(&pv_alloc_failure_count, 1, __ATOMIC_RELAXED);
    return p;
}

void pv_alloc_count_failure(void)
{
    __atomic_add_fetch(&pv_alloc_failure_count, 1, __ATOMIC_RELAXED);
}

void *pv_malloc(size_t size)
{
    return fails() ? NULL : counted(malloc(size));
}

void *pv_calloc(size_t count, size_t size)
{
    return fails() ? NULL : counted(calloc(count, size));
}

void *pv_realloc(void *p, size_t size)
{
    return fails() ? NULL : counted(realloc(p, size));
}

char *pv_strdup(const char *s)
{
    return fails() ? NULL : counted(strdup(s));
}

char *pv_strndup(const char *s, size_t n)
{
    return fails() ? NULL : counted(strndup(s, n));
}

int pv_vasprintf(char **out, const char *fmt, va_list ap)
{
    if (fails())
        return -1;
    int n = vasprintf(out, fmt, ap);
    if (n < 0)
        __atomic_add_fetch(&pv_alloc_failure_count, 1, __ATOMIC_RELAXED);
    return n;
}

int pv_asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = pv_vasprintf(out, fmt, ap);
    va_end(ap);
    return n;
}
