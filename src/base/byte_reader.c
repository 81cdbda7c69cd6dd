#include "base/byte_reader.h"


void pv_byte_reader_init(pv_byte_reader *c, const uint8_t *data, uint64_t size,
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

const char *pv_bytes_padded_string(pv_byte_reader *c, uint64_t n, uint64_t *len)
{
    const uint8_t *p = pv_bytes_take(c, n);
    if (!p)
        return NULL;
    const uint8_t *nul = memchr(p, 0, n);
    *len = nul ? (uint64_t)(nul - p) : n;
    return (const char *)p;
}
