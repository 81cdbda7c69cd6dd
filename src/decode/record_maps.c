/* Typed decoders of MMAP and MMAP2 (record_types.h). */
#include "decode/record_types.h"

#include "format/record_reader.h"

int pv_rec_mmap_decode(const pv_file *f, const pv_record *rec, pv_rec_mmap *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_mmap){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->mmap2 = rec->type == PV_RECORD_MMAP2;
    out->pid = pv_rec_u32(&r, "pid");
    out->tid = pv_rec_u32(&r, "tid");
    out->start = pv_rec_u64(&r, "start");
    out->len = pv_rec_u64(&r, "len");
    out->pgoff = pv_rec_u64(&r, "pgoff");
    if (out->mmap2) {
        if (rec->misc & PV_MISC_MMAP_BUILD_ID) {
            out->has_build_id = true;
            out->build_id_size = pv_rec_u8(&r, "build_id_size");
            pv_rec_skip(&r, 3, "build_id");
            /* checked at once: the bytes it claims are not all there */
            if (!r.c.failed && out->build_id_size > PV_BUILD_ID_MAX)
                return pv_rec_malformed(&r, err, "build-id size %u (> %d)", out->build_id_size,
                                        PV_BUILD_ID_MAX);
            out->build_id = pv_rec_bytes(&r, out->build_id_size, "build_id");
            pv_rec_skip(&r, PV_BUILD_ID_MAX - out->build_id_size, "prot");
        } else {
            out->maj = pv_rec_u32(&r, "maj");
            out->min = pv_rec_u32(&r, "min");
            out->ino = pv_rec_u64(&r, "ino");
            out->ino_generation = pv_rec_u64(&r, "ino_generation");
        }
        out->prot = pv_rec_u32(&r, "prot");
        out->flags = pv_rec_u32(&r, "flags");
    }
    out->filename = pv_rec_rest_string(&r, "filename", &out->filename_len);
    return pv_rec_finish(&r, err);
}
