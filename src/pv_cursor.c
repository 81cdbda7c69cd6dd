#include "pv_cursor.h"


void pv_cursor_init(pv_cursor *c, const uint8_t *data, uint64_t size,
                    uint64_t file_offset, bool swap)
{
    c->data = data;
    c->size = size;
    c->pos = 0;
    c->file_offset = file_offset;
    c->swap = swap;
    c->failed = false;
    c->fail_offset = 0;
}

uint64_t pv_cursor_left(const pv_cursor *c)
{
    return c->failed ? 0 : c->size - c->pos;
}

uint64_t pv_cursor_offset(const pv_cursor *c)
{
    return c->file_offset + c->pos;
}

/* Claims n bytes; written in subtract form so that no n can wrap. */
static const uint8_t *take(pv_cursor *c, uint64_t n)
{
    if (c->failed)
        return NULL;
    if (c->pos > c->size || c->size - c->pos < n) {
        c->failed = true;
        c->fail_offset = c->file_offset + c->pos;
        return NULL;
    }
    const uint8_t *p = c->data + c->pos;
    c->pos += n;
    return p;
}

uint8_t pv_cursor_u8(pv_cursor *c)
{
    const uint8_t *p = take(c, 1);
    return p ? *p : 0;
}

uint16_t pv_cursor_u16(pv_cursor *c)
{
    const uint8_t *p = take(c, 2);
    return p ? pv_load_u16(p, c->swap) : 0;
}

uint32_t pv_cursor_u32(pv_cursor *c)
{
    const uint8_t *p = take(c, 4);
    return p ? pv_load_u32(p, c->swap) : 0;
}

uint64_t pv_cursor_u64(pv_cursor *c)
{
    const uint8_t *p = take(c, 8);
    return p ? pv_load_u64(p, c->swap) : 0;
}

const uint8_t *pv_cursor_bytes(pv_cursor *c, uint64_t n)
{
    return take(c, n);
}

bool pv_cursor_skip(pv_cursor *c, uint64_t n)
{
    return take(c, n) != NULL;
}

const char *pv_cursor_padded_string(pv_cursor *c, uint64_t n, uint64_t *len)
{
    const uint8_t *p = take(c, n);
    if (!p)
        return NULL;
    const uint8_t *nul = memchr(p, 0, n);
    *len = nul ? (uint64_t)(nul - p) : n;
    return (const char *)p;
}
