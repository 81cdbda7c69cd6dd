/*
 * Typed decoder of perf 7.0's `perf sched stats record` snapshots:
 * SCHEDSTAT_CPU and SCHEDSTAT_DOMAIN (record_types.h gives the header).
 *
 * The counters follow the header in the order of /proc/schedstat's version:
 * the lists below are those of perf's tools/lib/perf/include/perf/
 * schedstat-v15.h, schedstat-v16.h and schedstat-v17.h (the kernel's
 * Documentation/scheduler/sched-stats.rst says what each counts).  Every
 * version has the same cpu counters; version 16 moved the busy category of
 * the domain counters before the idle one, and version 17 split each
 * category's lb_imbalance into four.  All u32 counters come first in each
 * list, so the u64 ones are 8-byte aligned without padding.
 */
#include "decode/record_types.h"

#include "format/record_reader.h"

#define U32(name) {#name, 4}
#define U64(name) {#name, 8}

static const pv_schedstat_counter cpu_counters[] = {
    U32(yld_count), U32(array_exp), U32(sched_count), U32(sched_goidle),
    U32(ttwu_count), U32(ttwu_local),
    U64(rq_cpu_time), U64(run_delay), U64(pcount),
};

/* One load-balancing category up to version 16 (cat: idle, busy, newidle). */
#define LB_V15(cat) \
    U32(cat##_lb_count), U32(cat##_lb_balanced), U32(cat##_lb_failed), \
    U32(cat##_lb_imbalance), U32(cat##_lb_gained), U32(cat##_lb_hot_gained), \
    U32(cat##_lb_nobusyq), U32(cat##_lb_nobusyg)

/* Version 17: lb_imbalance split by what was imbalanced. */
#define LB_V17(cat) \
    U32(cat##_lb_count), U32(cat##_lb_balanced), U32(cat##_lb_failed), \
    U32(cat##_lb_imbalance_load), U32(cat##_lb_imbalance_util), \
    U32(cat##_lb_imbalance_task), U32(cat##_lb_imbalance_misfit), \
    U32(cat##_lb_gained), U32(cat##_lb_hot_gained), \
    U32(cat##_lb_nobusyq), U32(cat##_lb_nobusyg)

/* active_load_balance(), sched_balance_exec(), sched_balance_fork(), wakeups */
#define DOMAIN_TAIL \
    U32(alb_count), U32(alb_failed), U32(alb_pushed), \
    U32(sbe_count), U32(sbe_balanced), U32(sbe_pushed), \
    U32(sbf_count), U32(sbf_balanced), U32(sbf_pushed), \
    U32(ttwu_wake_remote), U32(ttwu_move_affine), U32(ttwu_move_balance)

static const pv_schedstat_counter domain_v15[] = {
    LB_V15(idle), LB_V15(busy), LB_V15(newidle), DOMAIN_TAIL,
};
static const pv_schedstat_counter domain_v16[] = {
    LB_V15(busy), LB_V15(idle), LB_V15(newidle), DOMAIN_TAIL,
};
static const pv_schedstat_counter domain_v17[] = {
    LB_V17(busy), LB_V17(idle), LB_V17(newidle), DOMAIN_TAIL,
};

#define COUNT(a) (sizeof a / sizeof a[0])

static void pick_layout(pv_rec_schedstat *s)
{
    if (s->version < 15 || s->version > 17)
        return;
    if (!s->domain_record) {
        s->layout = cpu_counters;
        s->nr_counters = COUNT(cpu_counters);
    } else if (s->version == 15) {
        s->layout = domain_v15;
        s->nr_counters = COUNT(domain_v15);
    } else if (s->version == 16) {
        s->layout = domain_v16;
        s->nr_counters = COUNT(domain_v16);
    } else {
        s->layout = domain_v17;
        s->nr_counters = COUNT(domain_v17);
    }
}

int pv_rec_schedstat_decode(const pv_file *f, const pv_record *rec, pv_rec_schedstat *out,
                            pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_schedstat){
        .domain_record = rec->type == PV_RECORD_SCHEDSTAT_DOMAIN, .swap = f->swap,
    };
    pv_rec_open_user(&r, f, rec);
    out->timestamp = pv_rec_u64(&r, "timestamp");
    out->cpu = pv_rec_u32(&r, "cpu");
    out->version = pv_rec_u16(&r, "version");
    if (out->domain_record)
        out->domain = pv_rec_u16(&r, "domain");
    else
        pv_rec_skip(&r, 2, "padding");
    if (r.c.failed)
        return pv_rec_finish(&r, err);
    pick_layout(out);
    uint64_t size = pv_bytes_left(&r.c);
    if (out->layout) {
        size = 0;
        for (size_t i = 0; i < out->nr_counters; i++)
            size += out->layout[i].width;
    }
    out->counters_size = size;
    /* the next counter's name when the body ends inside the counters */
    const char *field = "counters";
    if (out->layout && pv_bytes_left(&r.c) < size) {
        uint64_t at = 0;
        for (size_t i = 0; i < out->nr_counters; i++) {
            at += out->layout[i].width;
            if (at > pv_bytes_left(&r.c)) {
                field = out->layout[i].name;
                break;
            }
        }
    }
    out->counters = pv_rec_bytes(&r, size, field);
    return pv_rec_finish(&r, err);
}

uint64_t pv_rec_schedstat_counter(const pv_rec_schedstat *s, size_t i)
{
    uint64_t at = 0;
    for (size_t k = 0; k < i; k++)
        at += s->layout[k].width;
    const uint8_t *p = s->counters + at;
    return s->layout[i].width == 8 ? pv_load_u64(p, s->swap) : pv_load_u32(p, s->swap);
}
