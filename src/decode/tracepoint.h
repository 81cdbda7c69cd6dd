/*
 * Tracepoint samples: naming the fields of a RAW payload.
 *
 * A tracepoint sample's RAW payload is the kernel's trace entry, a C struct
 * whose layout exists only as text: the tracefs `format` file of its event.
 * perf copies those files into the perf.data as "tracing data" (trace-cmd's
 * layout, described in tracepoint.c); libtraceevent, the library perf itself
 * uses, parses them.  The tracing data lives in
 *   - file mode: the HEADER_TRACING_DATA feature section;
 *   - pipe mode: a PERF_RECORD_HEADER_TRACING_DATA (66) record whose payload
 *     follows the 16-byte record, outside header.size;
 *   - simpleperf: a type 66 record (old) or SIMPLE_PERF_RECORD_TRACING_DATA
 *     (32777) in the data section, the payload inside the record.
 * The formats are parsed once per open file, the first time a sample asks.
 */
#ifndef PV_TRACEPOINT_H
#define PV_TRACEPOINT_H

#include "format/perf_file.h"
#include "base/pv_error.h"
#include "base/pv_strbuf.h"
#include "stream/record_walk.h"
#include "decode/sample.h"

typedef struct pv_trace pv_trace;

/* The file's parsed event formats, loaded on the first call and kept with
 * the file (freed by pv_file_close).  *out is NULL, and the call succeeds,
 * when the file carries no tracing data. */
int pv_trace_get(pv_file *f, pv_trace **out, pv_error *err);
void pv_trace_free(pv_trace *t);

/* Whether the attr is a tracepoint event (PERF_TYPE_TRACEPOINT). */
bool pv_attr_is_tracepoint(const pv_attr *a);

/* "system:name" of the tracepoint event attr_index samples, or NULL when
 * the event is not a tracepoint or the formats do not describe it. */
const char *pv_trace_event_name(const pv_trace *t, int attr_index);

/* The sample's RAW payload as a JSON object of its event's own fields (the
 * common_* header fields left out), in format order: integers as numbers
 * (signed when the format says so), char arrays and __data_loc strings as
 * strings, other arrays — and strings that are not printable text — as
 * arrays of numbers.  Returns 1 when written, 0 when the sample is not of a
 * described tracepoint, -1 on a payload too short for its format. */
int pv_trace_fields_json(pv_trace *t, const pv_file *f, const pv_record *rec,
                         const pv_sample *s, pv_strbuf *out, pv_error *err);

/* The integer field `name` of the sample's tracepoint (sign-extended when
 * the format says signed).  1: found; 0: the sample is not of a described
 * tracepoint, or its event has no integer field of that name; -1: the
 * payload is too short for the field. */
int pv_trace_field_int(const pv_trace *t, const pv_sample *s, const char *name, int64_t *out);

/* The field `name` as the event's print fmt shows it (sched_switch's
 * prev_state: "S", "D", "R+"...): libtraceevent renders the sample's
 * line, and the text after " name=" up to the next space is copied into
 * buf (size bytes, cut short if longer).  false when the sample is not of
 * a described tracepoint or its line has no such field. */
bool pv_trace_printed_field(const pv_trace *t, const pv_sample *s, const char *name, char *buf,
                            size_t size);

#endif
