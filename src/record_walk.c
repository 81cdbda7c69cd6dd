#include "record_walk.h"

#include "perf_abi.h"
#include "pv_cursor.h"

#define RECORD_HEADER_SIZE 8

void pv_walk_start(pv_walk *w, pv_file *f)
{
    w->file = f;
    w->next_offset = f->data_section.offset;
    w->end_offset = f->data_section.offset + f->data_section.size;
    w->next_index = 0;
}

int pv_walk_next(pv_walk *w, pv_record *rec, pv_error *err)
{
    pv_file *f = w->file;
    uint64_t at = w->next_offset;
    if (at >= w->end_offset)
        return 0;
    if (w->end_offset - at < RECORD_HEADER_SIZE)
        return pv_error_set(err, "%s: truncated record header at offset 0x%llx: "
                            "only %llu bytes left in the data section",
                            f->data_path, (unsigned long long)at,
                            (unsigned long long)(w->end_offset - at));
    const uint8_t *p = f->map + at;
    rec->type = pv_load_u32(p, f->swap);
    rec->misc = pv_load_u16(p + 4, f->swap);
    rec->size = pv_load_u16(p + 6, f->swap);
    if (rec->size < RECORD_HEADER_SIZE)
        return pv_error_set(err, "%s: record at offset 0x%llx has size %u (< 8)",
                            f->data_path, (unsigned long long)at, rec->size);
    if (w->end_offset - at < rec->size)
        return pv_error_set(err, "%s: record at offset 0x%llx (type %u, size %u) goes past the "
                            "end of the data section at offset 0x%llx: truncated file",
                            f->data_path, (unsigned long long)at, rec->type, rec->size,
                            (unsigned long long)w->end_offset);
    uint64_t next = at + rec->size;
    /* An AUXTRACE record's trace data follows it, outside header.size;
     * its length is the record's first body field. */
    if (rec->type == PV_RECORD_AUXTRACE) {
        if (rec->size < RECORD_HEADER_SIZE + 8)
            return pv_error_set(err, "%s: AUXTRACE record at offset 0x%llx has size %u (< 16)",
                                f->data_path, (unsigned long long)at, rec->size);
        uint64_t payload = pv_load_u64(p + RECORD_HEADER_SIZE, f->swap);
        if (w->end_offset - next < payload)
            return pv_error_set(err, "%s: AUXTRACE record at offset 0x%llx has %llu bytes of trace "
                                "data that go past the end of the data section at offset 0x%llx",
                                f->data_path, (unsigned long long)at, (unsigned long long)payload,
                                (unsigned long long)w->end_offset);
        next += payload;
    }
    rec->bytes = p;
    rec->file_offset = at;
    rec->index = w->next_index++;
    w->next_offset = next;
    return 1;
}
