#include "format/offcpu_event.h"

#include <string.h>

#include "format/attr.h"
#include "format/event_names.h"
#include "format/perf_abi.h"

/* PERF_TYPE_SOFTWARE, and its PERF_COUNT_SW_BPF_OUTPUT: the event
 * bpf_perf_event_output writes to (include/uapi/linux/perf_event.h) */
#define TYPE_SOFTWARE 1
#define SW_BPF_OUTPUT 10

int pv_offcpu_event_mark(pv_file *f, pv_error *err)
{
    for (size_t i = 0; i < f->nr_attrs; i++) {
        pv_attr *a = &f->attrs[i];
        /* only a bpf-output event sampling RAW can be perf's off-CPU one */
        if (a->type != TYPE_SOFTWARE || a->config != SW_BPF_OUTPUT ||
            !(a->sample_type & PV_SAMPLE_RAW))
            continue;
        const char *name = pv_file_event_name(f, i);
        /* every event has a name once the opening made them (file_open.c) */
        if (!name)
            return pv_error_set(err, "%s: out of memory reading the event names", f->path);
        a->offcpu_embedded = strcmp(name, PV_OFFCPU_EVENT) == 0;
    }
    return 0;
}
