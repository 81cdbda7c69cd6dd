/*
 * Pipe-mode perf.data (`perf record -o -`): the 16-byte header {magic, 16}
 * is followed directly by records, and what file mode keeps in sections
 * arrives as records before the first kernel record:
 *
 *   HEADER_ATTR (64)     perf_event_attr (attr.size bytes), then u64 ids
 *   EVENT_UPDATE (78)    u64 type, u64 id, payload (type 2: the event name)
 *   HEADER_FEATURE (80)  u64 feature id, then the feature section's bytes;
 *                        id 32 (HEADER_LAST_FEATURE) only marks the end
 *   HEADER_TRACING_DATA (66) u32 size; the data follows outside header.size
 */
#ifndef PV_PIPE_HEADER_H
#define PV_PIPE_HEADER_H

#include "format/perf_file.h"

/* Reads the header records of a pipe-mode file into f's attrs, names and
 * feature sections. */
int pv_pipe_read_header_records(pv_file *f, pv_error *err);

#endif
