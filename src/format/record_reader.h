/*
 * What the typed record decoders share (format/user_records.h,
 * decode/record_types.h): a byte reader over a record's body, with a kernel
 * record's sample_id_all trailer taken off, reads that remember the first
 * field that went past the body, and the errors every decoder gives.
 * Private to the decoders.
 */
#ifndef PV_RECORD_READER_H
#define PV_RECORD_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "format/record.h"
#include "base/byte_reader.h"
#include "base/pv_error.h"

typedef struct pv_rec_reader {
    const pv_file *f;
    const pv_record *rec;
    pv_byte_reader c;               /* the body, trailer excluded */
    bool has_trailer;
    const char *fail_field;    /* the first field read past the body */
} pv_rec_reader;

/* Opens the reader over the whole body: a user record's, which has no
 * trailer.  (A kernel record's is opened by pv_rec_open, decode/sample.h.) */
void pv_rec_open_user(pv_rec_reader *r, const pv_file *f, const pv_record *rec);
/* Opens the reader over body, the part of rec before its trailer. */
void pv_rec_open_body(pv_rec_reader *r, const pv_file *f, const pv_record *rec,
                      const pv_byte_reader *body, bool has_trailer);
/* 0, or the error for a body that ends before its fields do. */
int pv_rec_finish(const pv_rec_reader *r, pv_error *err);
/* "<file>: <TYPE> record at offset 0x.. (size N): <what>" */
int pv_rec_malformed(const pv_rec_reader *r, pv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A count of elem-byte entries must fit in what is left of the body. */
int pv_rec_check_count(const pv_rec_reader *r, const char *what, uint64_t nr, uint64_t elem,
                       pv_error *err);

static inline void pv_rec_note(pv_rec_reader *r, const char *field)
{
    if (r->c.failed && !r->fail_field)
        r->fail_field = field;
}

static inline uint8_t pv_rec_u8(pv_rec_reader *r, const char *field)
{
    uint8_t v = pv_bytes_u8(&r->c);
    pv_rec_note(r, field);
    return v;
}

static inline uint16_t pv_rec_u16(pv_rec_reader *r, const char *field)
{
    uint16_t v = pv_bytes_u16(&r->c);
    pv_rec_note(r, field);
    return v;
}

static inline uint32_t pv_rec_u32(pv_rec_reader *r, const char *field)
{
    uint32_t v = pv_bytes_u32(&r->c);
    pv_rec_note(r, field);
    return v;
}

static inline uint64_t pv_rec_u64(pv_rec_reader *r, const char *field)
{
    uint64_t v = pv_bytes_u64(&r->c);
    pv_rec_note(r, field);
    return v;
}

static inline const uint8_t *pv_rec_bytes(pv_rec_reader *r, uint64_t n, const char *field)
{
    const uint8_t *p = pv_bytes_take(&r->c, n);
    pv_rec_note(r, field);
    return p;
}

static inline void pv_rec_skip(pv_rec_reader *r, uint64_t n, const char *field)
{
    pv_bytes_skip(&r->c, n);
    pv_rec_note(r, field);
}

/* A NUL-padded string filling the rest of the body. */
static inline const char *pv_rec_rest_string(pv_rec_reader *r, const char *field, uint64_t *len)
{
    *len = 0;
    const char *s = pv_bytes_padded_string(&r->c, pv_bytes_left(&r->c), len);
    pv_rec_note(r, field);
    return s;
}

#endif
