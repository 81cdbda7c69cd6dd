/*
 * A growable text buffer, used to build the JSON and text values of columns.
 * A buffer is reused across rows, so the steady state allocates nothing.
 * Out of memory makes the buffer "failed"; callers check once at the end.
 */
#ifndef PV_STRBUF_H
#define PV_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_strbuf {
    char *text;
    size_t len;
    size_t cap;
    bool failed;
} pv_strbuf;

void pv_strbuf_reset(pv_strbuf *b);
void pv_strbuf_free(pv_strbuf *b);
void pv_strbuf_append(pv_strbuf *b, const char *s, size_t n);
void pv_strbuf_puts(pv_strbuf *b, const char *s);
void pv_strbuf_printf(pv_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A JSON string literal, quotes included; bytes that are not valid UTF-8
 * are written as \u00XX so the result is always valid JSON. */
void pv_strbuf_json_string(pv_strbuf *b, const char *s, size_t n);
/* A u64 from the file as a JSON number with the same 64 bits, signed. */
void pv_strbuf_json_i64(pv_strbuf *b, uint64_t v);
void pv_strbuf_json_u64(pv_strbuf *b, uint64_t v);
/* Lower-case hex of n bytes. */
void pv_strbuf_hex(pv_strbuf *b, const uint8_t *p, size_t n);
/* The text so far, NUL-terminated ("" when empty or failed). */
const char *pv_strbuf_text(pv_strbuf *b);

#endif
