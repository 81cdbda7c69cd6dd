/*
 * The one JSON writer: values appended to a pv_strbuf, with a stack of open
 * objects and arrays so that the writer, not its callers, places the commas.
 *
 *   pv_json_writer w;
 *   pv_json_init(&w, out);
 *   pv_json_object_begin(&w);
 *   pv_json_key(&w, "ids");
 *   pv_json_array_begin(&w);
 *   pv_json_i64(&w, -1);
 *   pv_json_u64(&w, 7);
 *   pv_json_array_end(&w);
 *   pv_json_object_end(&w);         // {"ids":[-1,7]}
 *
 * In an object every value follows a key; in an array none does.  The writer
 * appends to what the buffer already holds and writes one value at its top
 * level.  Misuse (a value without its key, a key in an array, a close that
 * does not match, nesting deeper than PV_JSON_MAX_DEPTH) marks the buffer
 * failed like running out of memory, so broken JSON never leaves it; callers
 * already check pv_strbuf.failed once at the end.
 */
#ifndef PV_JSON_WRITER_H
#define PV_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pv_strbuf.h"

/* Deep enough for every document the reader writes (at most 4 levels). */
#define PV_JSON_MAX_DEPTH 32

typedef struct pv_json_writer {
    pv_strbuf *out;
    unsigned depth;              /* open objects and arrays */
    uint64_t in_array;           /* bit d: level d is an array, not an object */
    uint64_t has_value;          /* bit d: level d holds a value already */
    bool key_pending;            /* a key was written, its value not yet */
} pv_json_writer;

void pv_json_init(pv_json_writer *w, pv_strbuf *out);

void pv_json_object_begin(pv_json_writer *w);
void pv_json_object_end(pv_json_writer *w);
void pv_json_array_begin(pv_json_writer *w);
void pv_json_array_end(pv_json_writer *w);

/* The key of the next value of the current object, escaped like a string. */
void pv_json_key(pv_json_writer *w, const char *key);
void pv_json_key_len(pv_json_writer *w, const char *key, size_t n);

void pv_json_u64(pv_json_writer *w, uint64_t v);
/* Signed.  A u64 bit pattern from the file (address, id, config) passed here
 * is written with the same 64 bits, so kernel addresses read negative. */
void pv_json_i64(pv_json_writer *w, int64_t v);
/* A key and its integer value, the commonest member. */
void pv_json_key_u64(pv_json_writer *w, const char *key, uint64_t v);
void pv_json_key_i64(pv_json_writer *w, const char *key, int64_t v);
/* The shortest of %.15g and %.17g that reads back as the same double ("0.1",
 * "1"); null for an infinity or a NaN, which JSON cannot write. */
void pv_json_double(pv_json_writer *w, double v);
/* A SQL REAL: %.17g, with ".0" added to an integral value so that a SQL
 * engine reads it back as a REAL, not an INTEGER; null when not finite. */
void pv_json_real(pv_json_writer *w, double v);
/* true / false. */
void pv_json_bool(pv_json_writer *w, bool v);
void pv_json_null(pv_json_writer *w);

/* n bytes as a JSON string; bytes that are not valid UTF-8 and control
 * characters are written as \u00XX, so the result is always valid JSON. */
void pv_json_string(pv_json_writer *w, const char *s, size_t n);
/* A NUL-terminated string, or null when s is NULL. */
void pv_json_cstring(pv_json_writer *w, const char *s);
/* n bytes as a string of lower-case hex digits ("" when n is 0; p may then
 * be NULL). */
void pv_json_hex(pv_json_writer *w, const uint8_t *p, size_t n);

/* One value already rendered as JSON, copied as it is. */
void pv_json_raw(pv_json_writer *w, const char *json, size_t n);
/* Places what precedes one value and returns the buffer: the caller appends
 * exactly one JSON value to it itself (for text rendered by a function that
 * writes to a pv_strbuf, without copying it). */
pv_strbuf *pv_json_raw_begin(pv_json_writer *w);

/* Whether one whole value was written: every container closed and no misuse. */
bool pv_json_complete(const pv_json_writer *w);

#endif
