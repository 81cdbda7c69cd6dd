/* Typed decoders of the records of AUX area tracing: AUX, ITRACE_START,
 * AUX_OUTPUT_HW_ID (record_types.h). */
#include "decode/record_types.h"

#include "format/record_reader.h"

int pv_rec_aux_decode(const pv_file *f, const pv_record *rec, pv_rec_aux *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_aux){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->aux_offset = pv_rec_u64(&r, "aux_offset");
    out->aux_size = pv_rec_u64(&r, "aux_size");
    out->flags = pv_rec_u64(&r, "flags");
    return pv_rec_finish(&r, err);
}

int pv_rec_itrace_start_decode(const pv_file *f, const pv_record *rec, pv_rec_itrace_start *out,
                               pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_itrace_start){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->pid = pv_rec_u32(&r, "pid");
    out->tid = pv_rec_u32(&r, "tid");
    return pv_rec_finish(&r, err);
}

int pv_rec_aux_output_hw_id_decode(const pv_file *f, const pv_record *rec,
                                   pv_rec_aux_output_hw_id *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_aux_output_hw_id){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->hw_id = pv_rec_u64(&r, "hw_id");
    return pv_rec_finish(&r, err);
}
