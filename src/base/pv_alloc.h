/*
 * Every allocation of the reader and the extension goes through here, so
 * that a test can make the Nth one fail (tests/tools/alloc_sweep.c, as
 * the database engine's own malloc tests do) and prove that each failure
 * ends in an error, never a crash, a leak or different rows.  The memory is
 * malloc's: free() frees it, and the callers that hand it over (to result
 * destructors) free it so.
 *
 * What the libraries allocate inside themselves (libelf, libdw, zstd, zlib,
 * protobuf-c, libtraceevent, libiberty, and libc's fopen and qsort) does
 * not come here; their failures reach the reader as their own errors,
 * which it turns into errors too.
 */
#ifndef PV_ALLOC_H
#define PV_ALLOC_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

void *pv_malloc(size_t size);
void *pv_calloc(size_t count, size_t size);
void *pv_realloc(void *p, size_t size);
char *pv_strdup(const char *s);
char *pv_strndup(const char *s, size_t n);
/* vasprintf's contract: -1 (and *out undefined) when out of memory */
int pv_vasprintf(char **out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int pv_asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How many allocations have failed in the process so far.  The callers of
 * the reader compare it before and after a call: a failure in between is
 * an error of the call, even where the reader went on without the memory
 * (a cache not filled, a name not demangled), so that an answer computed
 * short of memory is never handed out as if it were whole. */
extern unsigned long pv_alloc_failure_count;
/* Inline: the extension asks before and after every row and column. */
static inline unsigned long pv_alloc_failures(void)
{
    return __atomic_load_n(&pv_alloc_failure_count, __ATOMIC_RELAXED);
}
/* Counts a failure of memory the reader did not ask for here: a library
 * (libelf, libdw, zstd) or libc (fopen) that failed for want of memory. */
void pv_alloc_count_failure(void);
/* After a library call that failed, errno cleared before it: counts the
 * failure when it was for want of memory (malloc and mmap set ENOMEM). */
static inline void pv_alloc_check_errno(void)
{
    if (errno == ENOMEM)
        pv_alloc_count_failure();
}

/* For tests: when fail(arg) returns true, the allocation asked for fails.
 * NULL: none fails.  Called from every thread that allocates. */
void pv_alloc_set_failure(bool (*fail)(void *arg), void *arg);

#endif
