/* Typed decoders of the records about kernel code that appears or changes:
 * KSYMBOL, BPF_EVENT, TEXT_POKE, and perf's BPF_METADATA of the BPF
 * programs it found (record_types.h). */
#include "decode/record_types.h"

#include <string.h>

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

int pv_rec_bpf_metadata_decode(const pv_file *f, const pv_record *rec, pv_rec_bpf_metadata *out,
                               pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_bpf_metadata){0};
    pv_rec_open_user(&r, f, rec);
    out->prog_name = pv_bytes_padded_string(&r.c, PV_BPF_METADATA_PROG_NAME_LEN,
                                            &out->prog_name_len);
    pv_rec_note(&r, "prog_name");
    out->nr_entries = pv_rec_u64(&r, "nr_entries");
    if (r.c.failed)
        return pv_rec_finish(&r, err);
    if (pv_rec_check_count(&r, "bpf_metadata entry", out->nr_entries,
                           PV_BPF_METADATA_KEY_LEN + PV_BPF_METADATA_VALUE_LEN, err))
        return -1;
    out->entries = pv_rec_bytes(&r, out->nr_entries *
                                (PV_BPF_METADATA_KEY_LEN + PV_BPF_METADATA_VALUE_LEN), "entries");
    return pv_rec_finish(&r, err);
}

static const char *padded(const uint8_t *p, uint64_t n, uint64_t *len)
{
    const uint8_t *nul = memchr(p, 0, (size_t)n);
    *len = nul ? (uint64_t)(nul - p) : n;
    return (const char *)p;
}

void pv_rec_bpf_metadata_entry(const pv_rec_bpf_metadata *m, uint64_t i, const char **key,
                               uint64_t *key_len, const char **value, uint64_t *value_len)
{
    const uint8_t *e = m->entries + i * (PV_BPF_METADATA_KEY_LEN + PV_BPF_METADATA_VALUE_LEN);
    *key = padded(e, PV_BPF_METADATA_KEY_LEN, key_len);
    *value = padded(e + PV_BPF_METADATA_KEY_LEN, PV_BPF_METADATA_VALUE_LEN, value_len);
}
