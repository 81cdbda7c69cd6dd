#include "base/pv_cursor.h"


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

const char *pv_cursor_padded_string(pv_cursor *c, uint64_t n, uint64_t *len)
{
    const uint8_t *p = pv_cursor_take(c, n);
    if (!p)
        return NULL;
    const uint8_t *nul = memchr(p, 0, n);
    *len = nul ? (uint64_t)(nul - p) : n;
    return (const char *)p;
}
