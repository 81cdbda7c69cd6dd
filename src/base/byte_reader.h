/*
 * The byte reader: a bounds-checked reader over a window of file bytes
 * (pv_byte_reader, read with the pv_bytes_* functions).
 *
 * Every integer the reader takes from a perf.data file goes through here, so
 * that bounds and byte order are handled in one place.  A failed read does not
 * abort: it returns 0, marks the reader failed and remembers the file offset
 * of the first bad read, so a decoder can read a whole structure and check
 * once at the end.
 */
#ifndef PV_BYTE_READER_H
#define PV_BYTE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct pv_byte_reader {
    const uint8_t *data;   /* first byte of the window */
    uint64_t size;         /* bytes in the window */
    uint64_t pos;          /* next byte to read, relative to data */
    uint64_t file_offset;  /* file offset of data[0], for error messages */
    bool swap;             /* file written on a machine of the other byte order */
    bool failed;           /* a read went past the window */
    uint64_t fail_offset;  /* file offset of the first read that failed */
} pv_byte_reader;

void pv_byte_reader_init(pv_byte_reader *c, const uint8_t *data, uint64_t size,
                         uint64_t file_offset, bool swap);


/* n bytes, possibly NUL-padded: the string is what precedes the first NUL,
 * its length in *len.  NULL when the window is too short. */
const char *pv_bytes_padded_string(pv_byte_reader *c, uint64_t n, uint64_t *len);

/* Byte-order helpers for bytes already known to be in bounds; inline
 * because the record walk calls them for every record. */
static inline uint16_t pv_load_u16(const uint8_t *p, bool swap)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t pv_load_u32(const uint8_t *p, bool swap)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t pv_load_u64(const uint8_t *p, bool swap)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap64(v) : v;
}

/* Reads, inline: the record walk and sample decoding call them per field. */
/* Bytes left in the window (0 once failed). */
static inline uint64_t pv_bytes_left(const pv_byte_reader *c)
{
    return c->failed ? 0 : c->size - c->pos;
}

/* File offset of the next byte to read. */
static inline uint64_t pv_bytes_offset(const pv_byte_reader *c)
{
    return c->file_offset + c->pos;
}

/* Claims n bytes (NULL once failed); written in subtract form so that no n can wrap. */
static inline const uint8_t *pv_bytes_take(pv_byte_reader *c, uint64_t n)
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

static inline uint8_t pv_bytes_u8(pv_byte_reader *c)
{
    const uint8_t *p = pv_bytes_take(c, 1);
    return p ? *p : 0;
}

static inline uint16_t pv_bytes_u16(pv_byte_reader *c)
{
    const uint8_t *p = pv_bytes_take(c, 2);
    return p ? pv_load_u16(p, c->swap) : 0;
}

static inline uint32_t pv_bytes_u32(pv_byte_reader *c)
{
    const uint8_t *p = pv_bytes_take(c, 4);
    return p ? pv_load_u32(p, c->swap) : 0;
}

static inline uint64_t pv_bytes_u64(pv_byte_reader *c)
{
    const uint8_t *p = pv_bytes_take(c, 8);
    return p ? pv_load_u64(p, c->swap) : 0;
}

static inline bool pv_bytes_skip(pv_byte_reader *c, uint64_t n)
{
    return pv_bytes_take(c, n) != NULL;
}

#endif
