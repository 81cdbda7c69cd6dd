#include "base/json_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Level 0 is the top level; containers open at levels 1..PV_JSON_MAX_DEPTH,
 * one bit each in the writer's masks. */
_Static_assert(PV_JSON_MAX_DEPTH < 64, "the level masks are 64 bits");

static uint64_t level_bit(unsigned depth)
{
    return (uint64_t)1 << depth;
}

/* The buffer fails like out of memory: nothing more is appended to it. */
static void misuse(pv_json_writer *w)
{
    w->out->failed = true;
}

static bool in_object(const pv_json_writer *w)
{
    return w->depth > 0 && !(w->in_array & level_bit(w->depth));
}

void pv_json_init(pv_json_writer *w, pv_strbuf *out)
{
    *w = (pv_json_writer){.out = out};
}

/* What precedes any value: its key in an object (checked, the key wrote the
 * comma), a comma after an earlier element in an array. */
static void before_value(pv_json_writer *w)
{
    uint64_t bit = level_bit(w->depth);
    if (in_object(w)) {
        if (!w->key_pending)
            misuse(w);
        w->key_pending = false;
        return;
    }
    if (w->has_value & bit) {
        if (w->depth == 0)
            misuse(w);      /* a second value at the top level */
        pv_strbuf_append(w->out, ",", 1);
    }
    w->has_value |= bit;
}

static void open_container(pv_json_writer *w, char bracket, bool array)
{
    before_value(w);
    if (w->depth >= PV_JSON_MAX_DEPTH) {
        misuse(w);
        return;
    }
    w->depth++;
    uint64_t bit = level_bit(w->depth);
    w->has_value &= ~bit;
    if (array)
        w->in_array |= bit;
    else
        w->in_array &= ~bit;
    pv_strbuf_append(w->out, &bracket, 1);
}

static void close_container(pv_json_writer *w, char bracket, bool array)
{
    if (w->depth == 0 || w->key_pending || ((w->in_array & level_bit(w->depth)) != 0) != array) {
        misuse(w);
        return;
    }
    w->depth--;
    pv_strbuf_append(w->out, &bracket, 1);
}

void pv_json_object_begin(pv_json_writer *w)
{
    open_container(w, '{', false);
}

void pv_json_object_end(pv_json_writer *w)
{
    close_container(w, '}', false);
}

void pv_json_array_begin(pv_json_writer *w)
{
    open_container(w, '[', true);
}

void pv_json_array_end(pv_json_writer *w)
{
    close_container(w, ']', true);
}

void pv_json_key_len(pv_json_writer *w, const char *key, size_t n)
{
    uint64_t bit = level_bit(w->depth);
    if (!in_object(w) || w->key_pending) {
        misuse(w);
        return;
    }
    if (w->has_value & bit)
        pv_strbuf_append(w->out, ",", 1);
    w->has_value |= bit;
    pv_strbuf_json_string(w->out, key, n);
    pv_strbuf_append(w->out, ":", 1);
    w->key_pending = true;
}

void pv_json_key(pv_json_writer *w, const char *key)
{
    pv_json_key_len(w, key, strlen(key));
}

/* Decimal digits of v, written backwards from end; returns the first. */
static char *digits(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

void pv_json_u64(pv_json_writer *w, uint64_t v)
{
    char text[24];
    char *end = text + sizeof text;
    char *start = digits(end, v);
    before_value(w);
    pv_strbuf_append(w->out, start, (size_t)(end - start));
}

void pv_json_i64(pv_json_writer *w, int64_t v)
{
    char text[24];
    char *end = text + sizeof text;
    /* the magnitude in unsigned arithmetic: -INT64_MIN does not fit */
    uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *start = digits(end, magnitude);
    if (v < 0)
        *--start = '-';
    before_value(w);
    pv_strbuf_append(w->out, start, (size_t)(end - start));
}

void pv_json_key_u64(pv_json_writer *w, const char *key, uint64_t v)
{
    pv_json_key(w, key);
    pv_json_u64(w, v);
}

void pv_json_key_i64(pv_json_writer *w, const char *key, int64_t v)
{
    pv_json_key(w, key);
    pv_json_i64(w, v);
}

void pv_json_double(pv_json_writer *w, double v)
{
    if (!isfinite(v)) {
        pv_json_null(w);
        return;
    }
    char text[40];
    snprintf(text, sizeof text, "%.15g", v);
    if (strtod(text, NULL) != v)
        snprintf(text, sizeof text, "%.17g", v);
    before_value(w);
    pv_strbuf_puts(w->out, text);
}

void pv_json_real(pv_json_writer *w, double v)
{
    if (!isfinite(v)) {
        pv_json_null(w);
        return;
    }
    char text[40];
    snprintf(text, sizeof text, "%.17g", v);
    before_value(w);
    pv_strbuf_puts(w->out, text);
    if (!strpbrk(text, ".e"))
        pv_strbuf_append(w->out, ".0", 2);
}

void pv_json_bool(pv_json_writer *w, bool v)
{
    before_value(w);
    if (v)
        pv_strbuf_append(w->out, "true", 4);
    else
        pv_strbuf_append(w->out, "false", 5);
}

void pv_json_null(pv_json_writer *w)
{
    before_value(w);
    pv_strbuf_append(w->out, "null", 4);
}

void pv_json_string(pv_json_writer *w, const char *s, size_t n)
{
    before_value(w);
    pv_strbuf_json_string(w->out, s, n);
}

void pv_json_cstring(pv_json_writer *w, const char *s)
{
    if (s)
        pv_json_string(w, s, strlen(s));
    else
        pv_json_null(w);
}

void pv_json_hex(pv_json_writer *w, const uint8_t *p, size_t n)
{
    before_value(w);
    pv_strbuf_append(w->out, "\"", 1);
    if (n)
        pv_strbuf_hex(w->out, p, n);
    pv_strbuf_append(w->out, "\"", 1);
}

void pv_json_raw(pv_json_writer *w, const char *json, size_t n)
{
    before_value(w);
    pv_strbuf_append(w->out, json, n);
}

pv_strbuf *pv_json_raw_begin(pv_json_writer *w)
{
    before_value(w);
    return w->out;
}

bool pv_json_complete(const pv_json_writer *w)
{
    return w->depth == 0 && (w->has_value & 1) && !w->key_pending && !w->out->failed;
}
