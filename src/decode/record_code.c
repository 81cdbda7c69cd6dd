/* Typed decoders of the records about kernel code that appears or changes:
 * KSYMBOL, BPF_EVENT, TEXT_POKE (record_types.h). */
#include "decode/record_types.h"

#include "format/record_reader.h"

int pv_rec_ksymbol_decode(const pv_file *f, const pv_record *rec, pv_rec_ksymbol *out,
                          pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_ksymbol){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->addr = pv_rec_u64(&r, "addr");
    out->len = pv_rec_u32(&r, "len");
    out->ksym_type = pv_rec_u16(&r, "ksym_type");
    out->flags = pv_rec_u16(&r, "flags");
    out->name = pv_rec_rest_string(&r, "name", &out->name_len);
    return pv_rec_finish(&r, err);
}

int pv_rec_bpf_event_decode(const pv_file *f, const pv_record *rec, pv_rec_bpf_event *out,
                            pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_bpf_event){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->type = pv_rec_u16(&r, "type");
    out->flags = pv_rec_u16(&r, "flags");
    out->id = pv_rec_u32(&r, "id");
    out->tag = pv_rec_bytes(&r, 8, "tag");
    return pv_rec_finish(&r, err);
}

int pv_rec_text_poke_decode(const pv_file *f, const pv_record *rec, pv_rec_text_poke *out,
                            pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_text_poke){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->addr = pv_rec_u64(&r, "addr");
    out->old_len = pv_rec_u16(&r, "old_len");
    out->new_len = pv_rec_u16(&r, "new_len");
    if (pv_rec_check_count(&r, "text_poke bytes", (uint64_t)out->old_len + out->new_len, 1, err))
        return -1;
    out->old_bytes = pv_rec_bytes(&r, out->old_len, "old_bytes");
    out->new_bytes = pv_rec_bytes(&r, out->new_len, "new_bytes");
    return pv_rec_finish(&r, err);
}
