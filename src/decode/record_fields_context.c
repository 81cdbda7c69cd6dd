/*
 * The errors and field writers the writers of perf_records.fields share
 * (record_fields_context.h).
 */
#include "decode/record_fields_context.h"

#include <stdarg.h>
#include <stdio.h>

int pv_fields_malformed(pv_fields_decoder *d, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pv_error_set(d->err, "%s: %s record at offset 0x%llx (size %u): %s",
                        d->f->data_path, d->name, (unsigned long long)d->rec->file_offset,
                        d->rec->size, what);
}

void pv_fields_note(pv_fields_decoder *d, const char *key)
{
    if (d->c.failed && !d->fail_field)
        d->fail_field = key;
}

int pv_fields_check_count(pv_fields_decoder *d, const char *what, uint64_t nr, uint64_t elem)
{
    uint64_t left = pv_bytes_left(&d->c);
    if (d->c.failed || nr > left / elem)
        return pv_fields_malformed(d, "%s count %llu (of %llu bytes each) does not fit in the "
                                   "%llu bytes left at offset 0x%llx",
                                   what, (unsigned long long)nr, (unsigned long long)elem,
                                   (unsigned long long)left,
                                   (unsigned long long)pv_bytes_offset(&d->c));
    return 0;
}

void pv_field_i64(pv_fields_decoder *d, const char *key, uint64_t v)
{
    pv_fields_note(d, key);
    pv_json_key(&d->w, key);
    pv_json_i64(&d->w, (int64_t)v);
}

void pv_field_u64(pv_fields_decoder *d, const char *key, uint64_t v)
{
    pv_fields_note(d, key);
    pv_json_key(&d->w, key);
    pv_json_u64(&d->w, v);
}

void pv_field_i32(pv_fields_decoder *d, const char *key, uint32_t v)
{
    pv_fields_note(d, key);
    pv_json_key(&d->w, key);
    pv_json_i64(&d->w, (int32_t)v);
}

void pv_field_flag(pv_fields_decoder *d, const char *key, bool v)
{
    pv_json_key(&d->w, key);
    pv_json_u64(&d->w, v ? 1 : 0);
}

void pv_field_pid_tid(pv_fields_decoder *d, uint32_t pid, uint32_t tid)
{
    pv_field_i32(d, "pid", pid);
    pv_field_i32(d, "tid", tid);
}

void pv_field_padded_string(pv_fields_decoder *d, const char *key, uint64_t n)
{
    uint64_t len = 0;
    const char *s = pv_bytes_padded_string(&d->c, n, &len);
    pv_fields_note(d, key);
    pv_json_key(&d->w, key);
    if (s)
        pv_json_string(&d->w, s, (size_t)len);
    else
        pv_json_null(&d->w);
}

void pv_field_rest_string(pv_fields_decoder *d, const char *key)
{
    pv_field_padded_string(d, key, pv_bytes_left(&d->c));
}

void pv_field_text(pv_fields_decoder *d, const char *key, const char *text, uint64_t len)
{
    pv_json_key(&d->w, key);
    pv_json_string(&d->w, text, (size_t)len);
}

void pv_field_hex(pv_fields_decoder *d, const char *key, const uint8_t *p, uint64_t n)
{
    pv_json_key(&d->w, key);
    pv_json_hex(&d->w, p, (size_t)n);
}
