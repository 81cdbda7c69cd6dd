#include "format/event_desc.h"

#include <stdarg.h>
#include <stdio.h>

static int fail(const pv_event_desc_iter *it, pv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(const pv_event_desc_iter *it, pv_error *err, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pv_error_set(err, "%s: event_desc feature at offset 0x%llx: %s", it->f->data_path,
                        (unsigned long long)it->offset, what);
}

/* The features' one message for a read past the section (format/features.c). */
static int truncated(const pv_event_desc_iter *it, pv_error *err)
{
    return fail(it, err, "truncated: a read at offset 0x%llx goes past the end of the section "
                "(size %llu, ends at offset 0x%llx)", (unsigned long long)it->c.fail_offset,
                (unsigned long long)it->c.size, (unsigned long long)(it->offset + it->c.size));
}

/* A count of elements of at least min_each bytes must fit in what is left. */
static int check_count(const pv_event_desc_iter *it, uint64_t nr, uint64_t min_each,
                       uint64_t count_offset, const char *what, pv_error *err)
{
    uint64_t left = pv_cursor_left(&it->c);
    if (nr > left / min_each)
        return fail(it, err, "%s count %llu at offset 0x%llx needs at least %llu bytes each "
                    "but only %llu bytes are left", what, (unsigned long long)nr,
                    (unsigned long long)count_offset, (unsigned long long)min_each,
                    (unsigned long long)left);
    return 0;
}

int pv_event_desc_start(pv_event_desc_iter *it, const pv_file *f, const uint8_t *bytes,
                        uint64_t size, uint64_t offset, pv_error *err)
{
    *it = (pv_event_desc_iter){.f = f, .offset = offset};
    pv_cursor_init(&it->c, bytes, size, offset, f->swap);
    it->nr = pv_cursor_u32(&it->c);
    uint64_t size_at = pv_cursor_offset(&it->c);
    it->attr_size = pv_cursor_u32(&it->c);
    if (it->c.failed)
        return truncated(it, err);
    if (it->attr_size < PV_ATTR_SIZE_VER0)
        return fail(it, err, "attr_size %u at offset 0x%llx is smaller than a perf_event_attr (%d)",
                    it->attr_size, (unsigned long long)size_at, PV_ATTR_SIZE_VER0);
    return check_count(it, it->nr, (uint64_t)it->attr_size + 8, offset, "event", err);
}

int pv_event_desc_next(pv_event_desc_iter *it, pv_event_desc_entry *e, pv_error *err)
{
    if (it->index >= it->nr)
        return 0;
    pv_error inner;
    if (pv_attr_decode(&it->c, it->attr_size, &e->attr, it->f->data_path, &inner))
        return fail(it, err, "event %u: %s", it->index, inner.msg);
    uint64_t ids_at = pv_cursor_offset(&it->c);
    e->nr_ids = pv_cursor_u32(&it->c);
    uint32_t n = pv_cursor_u32(&it->c);
    e->name = pv_cursor_padded_string(&it->c, n, &e->name_len);
    if (it->c.failed)
        return truncated(it, err);
    if (check_count(it, e->nr_ids, 8, ids_at, "id", err))
        return -1;
    e->ids = pv_cursor_bytes(&it->c, (uint64_t)e->nr_ids * 8);
    e->swap = it->f->swap;
    it->index++;
    return 1;
}

uint64_t pv_event_desc_id(const pv_event_desc_entry *e, uint32_t k)
{
    return pv_load_u64(e->ids + (uint64_t)k * 8, e->swap);
}
