#include "format/section_errors.h"

#include <stdio.h>

int pv_section_vfail(const pv_section_place *at, pv_error *err, const char *fmt, va_list ap)
{
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    return pv_error_set(err, "%s: %s feature at offset 0x%llx: %s", at->f->data_path, at->name,
                        (unsigned long long)at->offset, what);
}

int pv_section_fail(const pv_section_place *at, pv_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pv_section_vfail(at, err, fmt, ap);
    va_end(ap);
    return rc;
}

int pv_section_truncated(const pv_section_place *at, const pv_byte_reader *c, pv_error *err)
{
    return pv_section_fail(at, err, "truncated: a read at offset 0x%llx goes past the end of "
                           "the section (size %llu, ends at offset 0x%llx)",
                           (unsigned long long)c->fail_offset, (unsigned long long)c->size,
                           (unsigned long long)(at->offset + c->size));
}

int pv_section_check_count(const pv_section_place *at, const pv_byte_reader *c, uint64_t nr,
                           uint64_t min_each, uint64_t count_offset, const char *what,
                           pv_error *err)
{
    if (c->failed)
        return pv_section_truncated(at, c, err);
    uint64_t left = pv_bytes_left(c);
    if (min_each && nr > left / min_each)
        return pv_section_fail(at, err, "%s count %llu at offset 0x%llx needs at least %llu "
                               "bytes each but only %llu bytes are left", what,
                               (unsigned long long)nr, (unsigned long long)count_offset,
                               (unsigned long long)min_each, (unsigned long long)left);
    return 0;
}
