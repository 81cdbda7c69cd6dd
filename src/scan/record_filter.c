#include "format/event_names.h"
#include "scan/record_filter.h"

#include <stdlib.h>
#include <string.h>

#include "format/perf_abi.h"
#include "decode/sample.h"
#include "base/pv_alloc.h"

int pv_record_filter_test(const pv_record_filter *filter, const pv_file *f, const pv_record *rec,
                          pv_error *err)
{
    if (!filter->active)
        return 1;
    pv_sample_id id;
    if (pv_record_identity_fixed(f, rec, &id, err))
        return -1;
    if (filter->has_time_min || filter->has_time_max) {
        /* as SQL compares it: the u64's bits, signed */
        int64_t time = (int64_t)id.time;
        if (!(id.fields & PV_SAMPLE_TIME))
            return 0;
        if (filter->has_time_min && time < filter->time_min)
            return 0;
        if (filter->has_time_max && time > filter->time_max)
            return 0;
    }
    if ((filter->has_pid || filter->has_tid) && !(id.fields & PV_SAMPLE_TID))
        return 0;
    if (filter->has_pid && (int32_t)id.pid != filter->pid)
        return 0;
    if (filter->has_tid && (int32_t)id.tid != filter->tid)
        return 0;
    if (filter->has_cpu && (!(id.fields & PV_SAMPLE_CPU) || id.cpu != filter->cpu))
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
    filter->event_matches = pv_calloc(f->nr_attrs ? f->nr_attrs : 1, 1);
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
