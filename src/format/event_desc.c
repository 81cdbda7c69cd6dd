#include "format/event_desc.h"

#include "format/section_errors.h"

static pv_section_place place(const pv_event_desc_iter *it)
{
    return (pv_section_place){it->f, "event_desc", it->offset};
}

int pv_event_desc_start(pv_event_desc_iter *it, const pv_file *f, const uint8_t *bytes,
                        uint64_t size, uint64_t offset, pv_error *err)
{
    *it = (pv_event_desc_iter){.f = f, .offset = offset};
    pv_byte_reader_init(&it->c, bytes, size, offset, f->swap);
    it->nr = pv_bytes_u32(&it->c);
    uint64_t size_at = pv_bytes_offset(&it->c);
    it->attr_size = pv_bytes_u32(&it->c);
    pv_section_place at = place(it);
    if (it->c.failed)
        return pv_section_truncated(&at, &it->c, err);
    if (it->attr_size < PV_ATTR_SIZE_VER0)
        return pv_section_fail(&at, err,
                               "attr_size %u at offset 0x%llx is smaller than a perf_event_attr (%d)",
                               it->attr_size, (unsigned long long)size_at, PV_ATTR_SIZE_VER0);
    return pv_section_check_count(&at, &it->c, it->nr, (uint64_t)it->attr_size + 8, offset,
                                  "event", err);
}

int pv_event_desc_next(pv_event_desc_iter *it, pv_event_desc_entry *e, pv_error *err)
{
    if (it->index >= it->nr)
        return 0;
    pv_section_place at = place(it);
    pv_error inner;
    if (pv_attr_decode(&it->c, it->attr_size, &e->attr, it->f->data_path, &inner))
        return pv_section_fail(&at, err, "event %u: %s", it->index, inner.msg);
    uint64_t ids_at = pv_bytes_offset(&it->c);
    e->nr_ids = pv_bytes_u32(&it->c);
    e->name = pv_read_header_string(&it->c, &e->name_len);
    if (pv_section_check_count(&at, &it->c, e->nr_ids, 8, ids_at, "id", err))
        return -1;
    e->ids = pv_bytes_take(&it->c, (uint64_t)e->nr_ids * 8);
    e->swap = it->f->swap;
    it->index++;
    return 1;
}

uint64_t pv_event_desc_id(const pv_event_desc_entry *e, uint32_t k)
{
    return pv_load_u64(e->ids + (uint64_t)k * 8, e->swap);
}
