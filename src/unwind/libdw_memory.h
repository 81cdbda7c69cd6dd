/*
 * Whether libelf or libdw ran out of memory during a call.  They allocate
 * inside themselves (decompressing a debug file's sections, reading its
 * line tables), and may go on without what they could not allocate: a
 * lookup then finds less, which would be read as "no line here".  Their
 * own error states (and errno, which malloc sets) say when memory was the
 * reason; their messages are compared in the C locale, since the codes
 * are not public.
 */
#ifndef PV_LIBDW_MEMORY_H
#define PV_LIBDW_MEMORY_H

#include <stdbool.h>

/* Clears the error states before a call. */
void pv_libdw_memory_begin(void);
/* After it: whether any of them ran out of memory. */
bool pv_libdw_out_of_memory(void);

#endif
