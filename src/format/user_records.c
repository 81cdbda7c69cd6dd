#include "format/user_records.h"

#include <string.h>

#include "format/perf_abi.h"
#include "format/record_reader.h"
#include "base/byte_reader.h"

int pv_rec_header_attr_decode(const pv_file *f, const pv_record *rec, pv_rec_header_attr *out,
                              pv_error *err)
{
    pv_rec_reader r;
    pv_rec_open_user(&r, f, rec);
    memset(out, 0, sizeof *out);
    out->swap = f->swap;
    uint64_t body = pv_bytes_left(&r.c);
    if (body < 8)
        return pv_rec_malformed(&r, err, "body of %llu bytes is too short for a perf_event_attr",
                                (unsigned long long)body);
    pv_byte_reader peek = r.c;           /* attr.size, the attr's second u32 */
    pv_bytes_skip(&peek, 4);
    uint64_t attr_bytes = pv_bytes_u32(&peek);
    if (attr_bytes == 0)
        attr_bytes = PV_ATTR_SIZE_VER0;
    if (attr_bytes < PV_ATTR_SIZE_VER0 || attr_bytes > body)
        return pv_rec_malformed(&r, err, "attr.size %llu is outside %d..%llu (the body)",
                                (unsigned long long)attr_bytes, PV_ATTR_SIZE_VER0,
                                (unsigned long long)body);
    if (pv_attr_decode(&r.c, attr_bytes, &out->attr, f->data_path, err))
        return -1;
    out->nr_ids = pv_bytes_left(&r.c) / 8;
    out->ids = pv_rec_bytes(&r, out->nr_ids * 8, "ids");
    return pv_rec_finish(&r, err);
}

uint64_t pv_rec_header_attr_id(const pv_rec_header_attr *a, uint64_t i)
{
    return pv_load_u64(a->ids + i * 8, a->swap);
}

int pv_rec_event_update_decode(const pv_file *f, const pv_record *rec, pv_rec_event_update *out,
                               pv_error *err)
{
    pv_rec_reader r;
    pv_rec_open_user(&r, f, rec);
    memset(out, 0, sizeof *out);
    out->type = pv_rec_u64(&r, "type");
    out->id = pv_rec_u64(&r, "id");
    if (r.c.failed)
        return pv_rec_finish(&r, err);
    out->payload_offset = pv_bytes_offset(&r.c);
    out->payload_size = pv_bytes_left(&r.c);
    pv_byte_reader rest = r.c;
    out->payload = pv_bytes_take(&rest, out->payload_size);
    switch (out->type) {
    case PV_EVENT_UPDATE_UNIT:
    case PV_EVENT_UPDATE_NAME:
        out->text = pv_rec_rest_string(&r, out->type == PV_EVENT_UPDATE_UNIT ? "unit" : "name",
                                       &out->text_len);
        break;
    case PV_EVENT_UPDATE_SCALE: {
        uint64_t bits = pv_rec_u64(&r, "scale");
        memcpy(&out->scale, &bits, sizeof out->scale);
        break;
    }
    default:                        /* cpus: the payload; other types: nothing known */
        break;
    }
    return pv_rec_finish(&r, err);
}

int pv_rec_header_feature_decode(const pv_file *f, const pv_record *rec,
                                 pv_rec_header_feature *out, pv_error *err)
{
    pv_rec_reader r;
    pv_rec_open_user(&r, f, rec);
    out->feat_id = pv_rec_u64(&r, "feat_id");
    out->data_offset = pv_bytes_offset(&r.c);
    out->data_size = pv_bytes_left(&r.c);
    return pv_rec_finish(&r, err);
}

int pv_rec_tracing_data_decode(const pv_file *f, const pv_record *rec, pv_rec_tracing_data *out,
                               pv_error *err)
{
    pv_rec_reader r;
    pv_rec_open_user(&r, f, rec);
    out->size = pv_rec_u32(&r, "size");
    out->inside_offset = pv_bytes_offset(&r.c);
    out->inside_len = pv_bytes_left(&r.c);
    out->inside = pv_rec_bytes(&r, out->inside_len, "data");
    return pv_rec_finish(&r, err);
}

int pv_rec_auxtrace_decode(const pv_file *f, const pv_record *rec, pv_rec_auxtrace *out,
                           pv_error *err)
{
    pv_rec_reader r;
    pv_rec_open_user(&r, f, rec);
    memset(out, 0, sizeof *out);
    out->size = pv_rec_u64(&r, "size");
    out->offset = pv_rec_u64(&r, "offset");
    out->reference = pv_rec_u64(&r, "reference");
    out->idx = pv_rec_u32(&r, "idx");
    out->tid = pv_rec_u32(&r, "tid");
    out->cpu = pv_rec_u32(&r, "cpu");
    return pv_rec_finish(&r, err);
}

int pv_rec_compressed_decode(const pv_file *f, const pv_record *rec, pv_rec_compressed *out,
                             pv_error *err)
{
    pv_rec_reader r;
    pv_rec_open_user(&r, f, rec);
    memset(out, 0, sizeof *out);
    out->has_data_size = rec->type == PV_RECORD_COMPRESSED2;
    if (out->has_data_size)
        out->data_size = pv_rec_u64(&r, "data_size");
    if (r.c.failed)
        return pv_rec_finish(&r, err);
    uint64_t held = pv_bytes_left(&r.c);
    if (!out->has_data_size)
        out->data_size = held;
    out->written_size = pv_load_u16(rec->bytes + 6, f->swap);
    bool unset = rec->size_repair == PV_SIZE_DATA_SIZE_UNSET;
    out->data_len = out->data_size < held && !unset ? out->data_size : held;
    out->overstated = out->data_size > held && !unset ? out->data_size - held : 0;
    out->data = pv_rec_bytes(&r, out->data_len, "data");
    return pv_rec_finish(&r, err);
}
