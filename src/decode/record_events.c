/* Typed decoders of the records about an event's counting and its task's
 * scheduling: READ, SWITCH/SWITCH_CPU_WIDE (record_types.h). */
#include "decode/record_types.h"

#include "format/record_reader.h"

static uint64_t read_value_bytes(uint64_t read_format)
{
    return 8 + ((read_format & PV_FORMAT_ID) ? 8 : 0) + ((read_format & PV_FORMAT_LOST) ? 8 : 0);
}

int pv_rec_read_decode(const pv_file *f, const pv_record *rec, pv_rec_read *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_read){.swap = f->swap, .nr = 1};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    int index = f->nr_attrs ? pv_record_attr_index(f, rec) : -1;
    if (index < 0 && f->nr_attrs)
        index = 0;
    uint64_t rf = index >= 0 ? f->attrs[index].read_format : 0;
    out->read_format = rf;
    out->group = (rf & PV_FORMAT_GROUP) != 0;
    out->pid = pv_rec_u32(&r, "pid");
    out->tid = pv_rec_u32(&r, "tid");
    if (out->group)
        out->nr = pv_rec_u64(&r, "nr");
    else
        out->one.value = pv_rec_u64(&r, "value");
    if (rf & PV_FORMAT_TOTAL_TIME_ENABLED)
        out->time_enabled = pv_rec_u64(&r, "time_enabled");
    if (rf & PV_FORMAT_TOTAL_TIME_RUNNING)
        out->time_running = pv_rec_u64(&r, "time_running");
    if (!out->group) {
        if (rf & PV_FORMAT_ID)
            out->one.id = pv_rec_u64(&r, "id");
        if (rf & PV_FORMAT_LOST)
            out->one.lost = pv_rec_u64(&r, "lost");
        return pv_rec_finish(&r, err);
    }
    uint64_t per_value = read_value_bytes(rf);
    if (pv_rec_check_count(&r, "read group", out->nr, per_value, err))
        return -1;
    out->values = pv_rec_bytes(&r, out->nr * per_value, "values");
    return pv_rec_finish(&r, err);
}

pv_read_value pv_rec_read_value_at(const pv_rec_read *r, uint64_t i)
{
    if (!r->group)
        return r->one;
    pv_read_value v = {0};
    const uint8_t *p = r->values + i * read_value_bytes(r->read_format);
    v.value = pv_load_u64(p, r->swap);
    p += 8;
    if (r->read_format & PV_FORMAT_ID) {
        v.id = pv_load_u64(p, r->swap);
        p += 8;
    }
    if (r->read_format & PV_FORMAT_LOST)
        v.lost = pv_load_u64(p, r->swap);
    return v;
}

int pv_rec_switch_decode(const pv_file *f, const pv_record *rec, pv_rec_switch *out,
                         pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_switch){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->cpu_wide = rec->type == PV_RECORD_SWITCH_CPU_WIDE;
    out->out = (rec->misc & PV_MISC_SWITCH_OUT) != 0;
    out->preempt = (rec->misc & PV_MISC_SWITCH_OUT_PREEMPT) != 0;
    if (out->cpu_wide) {
        out->next_prev_pid = pv_rec_u32(&r, "next_prev_pid");
        out->next_prev_tid = pv_rec_u32(&r, "next_prev_tid");
    }
    return pv_rec_finish(&r, err);
}
