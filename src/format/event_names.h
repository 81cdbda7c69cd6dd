/*
 * Event names as perf report shows them, per attr of a file.
 */
#ifndef PV_EVENT_NAMES_H
#define PV_EVENT_NAMES_H

#include <stddef.h>

#include "format/perf_file.h"

/* The event name as `perf report` shows it: from HEADER_EVENT_DESC when the
 * file has it, else derived from type and config.  Loaded on first call. */
const char *pv_file_event_name(pv_file *f, size_t attr_index);

#endif
