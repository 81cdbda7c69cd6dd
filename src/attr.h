/*
 * perf_event_attr as written in a perf.data file, and event names.
 */
#ifndef PV_ATTR_H
#define PV_ATTR_H

#include "perf_abi.h"
#include "json_writer.h"
#include "perf_file.h"
#include "pv_cursor.h"
#include "pv_strbuf.h"

/* Size of the first published perf_event_attr; every file has at least it. */
#define PV_ATTR_SIZE_VER0 64

/* Decodes an attr of attr_bytes bytes at the cursor (attr_size-driven: a
 * shorter attr leaves later fields zero, a longer one has its tail skipped).
 * The cursor ends just past the attr. */
int pv_attr_decode(pv_cursor *c, uint64_t attr_bytes, pv_attr *a,
                   const char *path, pv_error *err);

/* perf's name for an event from type and config alone ("cycles",
 * "cpu-clock", "raw 0x1234"...), written into out. */
void pv_attr_default_name(const pv_attr *a, pv_strbuf *out);

/* sample_type / read_format / branch_sample_type as 'IP|TID|TIME'. */
void pv_sample_type_string(uint64_t sample_type, pv_strbuf *out);
void pv_read_format_string(uint64_t read_format, pv_strbuf *out);

/* Every attr field as a JSON object, one value of w. */
void pv_attr_write_json(const pv_attr *a, pv_json_writer *w);
/* The same object appended to out on its own. */
void pv_attr_json(const pv_attr *a, pv_strbuf *out);

#endif
