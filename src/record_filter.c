#include "event_names.h"
#include "record_filter.h"

#include <stdlib.h>
#include <string.h>

#include "perf_abi.h"
#include "sample.h"

int pv_record_identity(const pv_file *f, const pv_record *rec, pv_identity *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    out->attr_index = -1;
    uint64_t fields;
    if (rec->type == PV_RECORD_SAMPLE) {
        pv_sample s;
        if (pv_sample_decode(f, rec, &s, err))
            return -1;
        if (s.attr_index < 0)
            return 0;
        fields = s.sample_type;
        out->attr_index = s.attr_index;
        out->time = (int64_t)s.time;
        out->pid = (int32_t)s.pid;
        out->tid = (int32_t)s.tid;
        out->cpu = s.cpu;
    } else {
        pv_sample_id id;
        if (pv_sample_id_decode(f, rec, &id, err))
            return -1;
        fields = id.fields;
        out->attr_index = id.attr_index;
        out->time = (int64_t)id.time;
        out->pid = (int32_t)id.pid;
        out->tid = (int32_t)id.tid;
        out->cpu = id.cpu;
    }
    out->has_time = fields & PV_SAMPLE_TIME;
    out->has_tid = fields & PV_SAMPLE_TID;
    out->has_cpu = fields & PV_SAMPLE_CPU;
    return 0;
}

int pv_record_filter_test(const pv_record_filter *filter, const pv_file *f, const pv_record *rec,
                          pv_error *err)
{
    if (!filter->active)
        return 1;
    pv_identity id;
    if (pv_record_identity(f, rec, &id, err))
        return -1;
    if (filter->has_time_min || filter->has_time_max) {
        if (!id.has_time)
            return 0;
        if (filter->has_time_min && id.time < filter->time_min)
            return 0;
        if (filter->has_time_max && id.time > filter->time_max)
            return 0;
    }
    if ((filter->has_pid || filter->has_tid) && !id.has_tid)
        return 0;
    if (filter->has_pid && id.pid != filter->pid)
        return 0;
    if (filter->has_tid && id.tid != filter->tid)
        return 0;
    if (filter->has_cpu && (!id.has_cpu || id.cpu != filter->cpu))
        return 0;
    if (filter->has_event &&
        (id.attr_index < 0 || !filter->event_matches || !filter->event_matches[id.attr_index]))
        return 0;
    return 1;
}

int pv_record_filter_set_event(pv_record_filter *filter, pv_file *f, const char *name,
                               pv_error *err)
{
    free(filter->event_matches);
    filter->event_matches = calloc(f->nr_attrs ? f->nr_attrs : 1, 1);
    if (!filter->event_matches)
        return pv_error_set(err, "%s: out of memory", f->data_path);
    for (size_t i = 0; i < f->nr_attrs; i++) {
        const char *event = pv_file_event_name(f, i);
        filter->event_matches[i] = event && strcmp(event, name) == 0;
    }
    filter->has_event = true;
    filter->active = true;
    return 0;
}

void pv_record_filter_free(pv_record_filter *filter)
{
    free(filter->event_matches);
    memset(filter, 0, sizeof *filter);
}
