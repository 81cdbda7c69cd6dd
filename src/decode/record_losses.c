/* Typed decoders of the records that say data went missing: LOST,
 * LOST_SAMPLES, THROTTLE/UNTHROTTLE (record_types.h). */
#include "decode/record_types.h"

#include "format/record_reader.h"

int pv_rec_lost_decode(const pv_file *f, const pv_record *rec, pv_rec_lost *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_lost){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->has_id = rec->type == PV_RECORD_LOST;
    if (out->has_id)
        out->id = pv_rec_u64(&r, "id");
    out->lost = pv_rec_u64(&r, "lost");
    return pv_rec_finish(&r, err);
}

int pv_rec_throttle_decode(const pv_file *f, const pv_record *rec, pv_rec_throttle *out,
                           pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_throttle){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->unthrottle = rec->type == PV_RECORD_UNTHROTTLE;
    out->time = pv_rec_u64(&r, "time");
    out->id = pv_rec_u64(&r, "id");
    out->stream_id = pv_rec_u64(&r, "stream_id");
    return pv_rec_finish(&r, err);
}
