#include "base/pv_strbuf.h"
#include "base/pv_alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pv_strbuf_reset(pv_strbuf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->text)
        b->text[0] = 0;
}

void pv_strbuf_free(pv_strbuf *b)
{
    free(b->text);
    b->text = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}

static bool reserve(pv_strbuf *b, size_t extra)
{
    if (b->failed)
        return false;
    if (b->cap - b->len > extra)
        return true;
    if (extra > ((size_t)1 << 40)) {
        b->failed = true;
        return false;
    }
    size_t want = b->len + extra + 1;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < want)
        cap *= 2;
    char *text = pv_realloc(b->text, cap);
    if (!text) {
        b->failed = true;
        return false;
    }
    b->text = text;
    b->cap = cap;
    return true;
}

void pv_strbuf_append(pv_strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = 0;
}

void pv_strbuf_puts(pv_strbuf *b, const char *s)
{
    pv_strbuf_append(b, s, strlen(s));
}

void pv_strbuf_printf(pv_strbuf *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        pv_strbuf_append(b, small, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not valid. */
static size_t utf8_sequence_length(const unsigned char *p, size_t left)
{
    unsigned char c = p[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    else if ((c & 0xe0) == 0xc0) { n = 2; cp = c & 0x1f; }
    else if ((c & 0xf0) == 0xe0) { n = 3; cp = c & 0x0f; }
    else if ((c & 0xf8) == 0xf0) { n = 4; cp = c & 0x07; }
    else
        return 0;
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    static const uint32_t min_for_length[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_length[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void pv_strbuf_json_string(pv_strbuf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    pv_strbuf_append(b, "\"", 1);
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            pv_strbuf_append(b, esc, 2);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            pv_strbuf_printf(b, "\\u%04x", c);
            i++;
        } else {
            size_t len = utf8_sequence_length(p + i, n - i);
            if (len == 0) {
                pv_strbuf_printf(b, "\\u%04x", c);
                i++;
            } else {
                pv_strbuf_append(b, s + i, len);
                i += len;
            }
        }
    }
    pv_strbuf_append(b, "\"", 1);
}

void pv_strbuf_json_i64(pv_strbuf *b, uint64_t v)
{
    pv_strbuf_printf(b, "%lld", (long long)(int64_t)v);
}

void pv_strbuf_json_u64(pv_strbuf *b, uint64_t v)
{
    pv_strbuf_printf(b, "%llu", (unsigned long long)v);
}

void pv_strbuf_hex(pv_strbuf *b, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    if (!reserve(b, n * 2))
        return;
    for (size_t i = 0; i < n; i++) {
        b->text[b->len++] = digits[p[i] >> 4];
        b->text[b->len++] = digits[p[i] & 15];
    }
    b->text[b->len] = 0;
}

const char *pv_strbuf_text(pv_strbuf *b)
{
    return (b->text && !b->failed) ? b->text : "";
}
