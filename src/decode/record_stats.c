/* Typed decoders of the user records of `perf stat record`: STAT,
 * STAT_ROUND, STAT_CONFIG (record_types.h).  User records have no
 * sample_id trailer. */
#include "decode/record_types.h"

#include "format/record_reader.h"

int pv_rec_stat_decode(const pv_file *f, const pv_record *rec, pv_rec_stat *out, pv_error *err)
{
    pv_rec_reader r;
    pv_sample_id none;
    *out = (pv_rec_stat){0};
    if (pv_rec_open(&r, f, rec, &none, err))
        return -1;
    out->id = pv_rec_u64(&r, "id");
    out->cpu = pv_rec_u32(&r, "cpu");
    out->thread = pv_rec_u32(&r, "thread");
    out->val = pv_rec_u64(&r, "val");
    out->ena = pv_rec_u64(&r, "ena");
    out->run = pv_rec_u64(&r, "run");
    return pv_rec_finish(&r, err);
}

int pv_rec_stat_round_decode(const pv_file *f, const pv_record *rec, pv_rec_stat_round *out,
                             pv_error *err)
{
    pv_rec_reader r;
    pv_sample_id none;
    *out = (pv_rec_stat_round){0};
    if (pv_rec_open(&r, f, rec, &none, err))
        return -1;
    out->type = pv_rec_u64(&r, "type");
    out->time = pv_rec_u64(&r, "time");
    return pv_rec_finish(&r, err);
}

int pv_rec_stat_config_decode(const pv_file *f, const pv_record *rec, pv_rec_stat_config *out,
                              pv_error *err)
{
    pv_rec_reader r;
    pv_sample_id none;
    *out = (pv_rec_stat_config){.swap = f->swap};
    if (pv_rec_open(&r, f, rec, &none, err))
        return -1;
    out->nr = pv_rec_u64(&r, "nr");
    if (pv_rec_check_count(&r, "stat_config", out->nr, 16, err))
        return -1;
    out->entries = pv_rec_bytes(&r, out->nr * 16, "entries");
    return pv_rec_finish(&r, err);
}

void pv_rec_stat_config_at(const pv_rec_stat_config *c, uint64_t i, uint64_t *tag, uint64_t *val)
{
    *tag = pv_load_u64(c->entries + i * 16, c->swap);
    *val = pv_load_u64(c->entries + i * 16 + 8, c->swap);
}
