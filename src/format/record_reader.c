#include "format/record_reader.h"

#include <stdarg.h>
#include <stdio.h>

#include "format/perf_abi.h"

void pv_rec_open_user(pv_rec_reader *r, const pv_file *f, const pv_record *rec)
{
    *r = (pv_rec_reader){.f = f, .rec = rec};
    pv_byte_reader_init(&r->c, rec->bytes + PV_RECORD_HEADER_SIZE,
                        (uint64_t)rec->size - PV_RECORD_HEADER_SIZE,
                        rec->file_offset + PV_RECORD_HEADER_SIZE, f->swap);
}

void pv_rec_open_body(pv_rec_reader *r, const pv_file *f, const pv_record *rec,
                      const pv_byte_reader *body, bool has_trailer)
{
    *r = (pv_rec_reader){.f = f, .rec = rec, .c = *body, .has_trailer = has_trailer};
}

static const char *type_name(const pv_record *rec)
{
    const char *name = pv_record_type_name(rec->type);
    return name ? name : "unknown";
}

int pv_rec_malformed(const pv_rec_reader *r, pv_error *err, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pv_error_set(err, "%s: %s record at offset 0x%llx (size %u): %s", r->f->data_path,
                        type_name(r->rec), (unsigned long long)r->rec->file_offset,
                        r->rec->size, what);
}

int pv_rec_finish(const pv_rec_reader *r, pv_error *err)
{
    if (!r->c.failed)
        return 0;
    return pv_rec_malformed(r, err, "%s at offset 0x%llx goes past the end of the %s (%llu bytes)",
                            r->fail_field ? r->fail_field : "a field",
                            (unsigned long long)r->c.fail_offset,
                            r->has_trailer ? "body before the sample_id trailer" : "body",
                            (unsigned long long)r->c.size);
}

int pv_rec_check_count(const pv_rec_reader *r, const char *what, uint64_t nr, uint64_t elem,
                       pv_error *err)
{
    uint64_t left = pv_bytes_left(&r->c);
    if (r->c.failed || nr > left / elem)
        return pv_rec_malformed(r, err, "%s count %llu (of %llu bytes each) does not fit in the "
                                "%llu bytes left at offset 0x%llx",
                                what, (unsigned long long)nr, (unsigned long long)elem,
                                (unsigned long long)left,
                                (unsigned long long)pv_bytes_offset(&r->c));
    return 0;
}
