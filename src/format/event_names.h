/*
 * Event names as perf report shows them, per attr of a file.
 */
#ifndef PV_EVENT_NAMES_H
#define PV_EVENT_NAMES_H

#include <stddef.h>

#include "format/perf_file.h"

/* Makes every attr's name, as `perf report` shows it: from HEADER_EVENT_DESC
 * when the file has it, else derived from type and config.  The file's
 * opening calls it (stream/file_open.c), so that running out of memory there
 * is the opening's error, never a row with a NULL event. */
int pv_file_load_event_names(pv_file *f, pv_error *err);

/* The attr's name, made when the file was opened; NULL past the last attr
 * (or, for a file not opened through file_open.c, when memory ran out). */
const char *pv_file_event_name(pv_file *f, size_t attr_index);

#endif
