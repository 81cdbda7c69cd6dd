/*
 * What the writers of perf_records.fields share (record_fields.c dispatches
 * to those of record_fields_kernel.c and record_fields_user.c): one byte reader
 * over the record body (the sample_id_all trailer of kernel records
 * excluded), the JSON writer of the record's object, and field writers that
 * remember the first field whose read went past the body, so that
 * pv_record_fields_json can name it in its error.  Private to those files.
 *
 * Byte layouts in the writers' comments are offsets within the body, i.e.
 * after the 8-byte record header {u32 type; u16 misc; u16 size}.  Kernel
 * layouts are those of <linux/perf_event.h>; user-record (type >= 64)
 * layouts those perf writes.
 *
 * Number conventions (DESIGN.md): u64 addresses, ids and other bit patterns
 * are written with the same 64 bits as a signed integer (kernel addresses read
 * negative, like the SQL INTEGER columns); counts and sizes are unsigned;
 * pid/tid are pid_t.  A cpu that perf itself treats as "int cpu, -1 = any"
 * (AUXTRACE, AUXTRACE_ERROR, STAT, ID_INDEX) is signed like perf prints it;
 * the trailer's cpu is unsigned like the perf_records.cpu column.
 */
#ifndef PV_RECORD_FIELDS_CONTEXT_H
#define PV_RECORD_FIELDS_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/json_writer.h"
#include "base/byte_reader.h"
#include "base/pv_error.h"
#include "format/perf_file.h"
#include "stream/record_walk.h"

typedef struct pv_fields_decoder {
    const pv_file *f;
    const pv_record *rec;
    const char *name;        /* the record type's name, for messages */
    pv_byte_reader c;             /* the body, trailer excluded */
    pv_json_writer w;        /* inside the record's object */
    pv_error *err;
    const char *fail_field;  /* first field whose read went past the body */
} pv_fields_decoder;

/* Writes one record type's fields into d->w; 0, or -1 with d->err set. */
typedef int (*pv_fields_write_fn)(pv_fields_decoder *d);

/* The writer of a kernel record type (< PV_RECORD_KERNEL_TYPE_END) or of a
 * user record type; NULL for a type without one. */
pv_fields_write_fn pv_fields_kernel_writer(uint32_t type);
pv_fields_write_fn pv_fields_user_writer(uint32_t type);

/* ------------------------------------------------------------ errors */

/* Sets d->err to the message, naming the file, the record type and its
 * offset; returns -1. */
int pv_fields_malformed(pv_fields_decoder *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Called after each read: remembers key when it is the first field whose
 * read failed. */
void pv_fields_note(pv_fields_decoder *d, const char *key);

/* A count of elem-byte entries: nr must fit in what is left of the body;
 * 0, or -1 with d->err set. */
int pv_fields_check_count(pv_fields_decoder *d, const char *what, uint64_t nr, uint64_t elem);

/* ------------------------------------------------------------ fields */
/* Each writes "key":value into the current object.  Those given a value
 * read through d->c note a failed read under key first. */

/* u64 bit patterns: addresses, ids, configs. */
void pv_field_i64(pv_fields_decoder *d, const char *key, uint64_t v);
/* Counts and sizes. */
void pv_field_u64(pv_fields_decoder *d, const char *key, uint64_t v);
/* pid_t and other values perf treats as int. */
void pv_field_i32(pv_fields_decoder *d, const char *key, uint32_t v);
/* A flag bit, written 1 or 0 (like the SQL columns). */
void pv_field_flag(pv_fields_decoder *d, const char *key, bool v);
void pv_field_pid_tid(pv_fields_decoder *d, uint32_t pid, uint32_t tid);
/* A NUL-padded string of n bytes read by the reader; null when the body
 * is shorter. */
void pv_field_padded_string(pv_fields_decoder *d, const char *key, uint64_t n);
/* A string that fills the rest of the body. */
void pv_field_rest_string(pv_fields_decoder *d, const char *key);
/* A string or bytes a typed decoder found in the record. */
void pv_field_text(pv_fields_decoder *d, const char *key, const char *text, uint64_t len);
/* n bytes as lower-case hex digits. */
void pv_field_hex(pv_fields_decoder *d, const char *key, const uint8_t *p, uint64_t n);

#endif
