#include "format/build_ids.h"

#include <stdio.h>

#include "format/perf_abi.h"
#include "base/byte_reader.h"

#define FEATURE_BUILD_ID 2
#define BUILD_ID_FIELD 24
#define BUILD_ID_SIZE_BYTE 20

void pv_build_ids_start(pv_build_id_iter *it, const char *path, const char *what,
                        const uint8_t *data, uint64_t size, uint64_t file_offset, bool swap)
{
    it->path = path;
    it->what = what;
    it->data = data;
    it->size = size;
    it->pos = 0;
    it->file_offset = file_offset;
    it->swap = swap;
}

void pv_build_ids_start_record(pv_build_id_iter *it, const pv_file *f, const pv_record *rec)
{
    pv_build_ids_start(it, f->data_path, "HEADER_BUILD_ID record", rec->bytes, rec->size,
                       rec->file_offset, f->swap);
}

int pv_build_ids_start_feature(pv_build_id_iter *it, pv_file *f, pv_error *err)
{
    const uint8_t *bytes = NULL;
    uint64_t size = 0, offset = 0;
    if (pv_file_has_feature(f, FEATURE_BUILD_ID) &&
        pv_file_feature_bytes(f, FEATURE_BUILD_ID, &bytes, &size, &offset, err))
        return -1;
    pv_build_ids_start(it, f->data_path, "build_id feature", bytes, size, offset, f->swap);
    return 0;
}

bool pv_build_id_bytes(const uint8_t *p, uint16_t misc, const uint8_t **id, uint8_t *len)
{
    *id = p;
    /* Since perf 5.12 an id may be shorter than SHA-1's 20 bytes (e.g. md5);
     * the writer then says so in misc and puts the length after the bytes. */
    if (misc & PV_MISC_BUILD_ID_SIZE) {
        *len = p[BUILD_ID_SIZE_BYTE];
        return *len <= PV_BUILD_ID_MAX;
    }
    *len = PV_BUILD_ID_MAX;
    return true;
}

int pv_build_ids_next(pv_build_id_iter *it, pv_build_id *out, pv_error *err)
{
    if (it->pos >= it->size)
        return 0;
    uint64_t at = it->file_offset + it->pos;
    uint64_t left = it->size - it->pos;
    /* "<file>: build_id feature at offset 0x..: entry at offset 0x.." */
    char where[160];
    snprintf(where, sizeof where, "%s at offset 0x%llx: entry at offset 0x%llx", it->what,
             (unsigned long long)it->file_offset, (unsigned long long)at);
    pv_byte_reader c;
    pv_byte_reader_init(&c, it->data + it->pos, left, at, it->swap);
    pv_bytes_u32(&c);                 /* type */
    uint16_t misc = pv_bytes_u16(&c);
    uint16_t size = pv_bytes_u16(&c);
    if (c.failed)
        return pv_error_set(err, "%s: %s: %llu bytes left, too few for an entry header",
                            it->path, where, (unsigned long long)left);
    if (size < PV_BUILD_ID_ENTRY_MIN)
        return pv_error_set(err, "%s: %s has size %u (< %d)", it->path, where, size,
                            PV_BUILD_ID_ENTRY_MIN);
    if (size > left)
        return pv_error_set(err, "%s: %s has size %u but only %llu bytes are left",
                            it->path, where, size, (unsigned long long)left);
    out->pid = (int32_t)pv_bytes_u32(&c);
    const uint8_t *field = pv_bytes_take(&c, BUILD_ID_FIELD);
    if (!pv_build_id_bytes(field, misc, &out->id, &out->id_len))
        return pv_error_set(err, "%s: %s has build-id size %u (> %d)", it->path, where,
                            out->id_len, PV_BUILD_ID_MAX);
    out->misc = misc;
    out->filename = pv_bytes_padded_string(&c, size - PV_BUILD_ID_ENTRY_MIN, &out->filename_len);
    out->offset = at;
    it->pos += size;
    return 1;
}
