/*
 * perf_records.fields of the kernel records (types below
 * PV_RECORD_KERNEL_TYPE_END): their values come from the typed decoders
 * (record_types.h, which has the layouts), and a typed decoder's error is
 * the record's.  The sample_id_all trailer is written by record_fields.c.
 */
#include "decode/record_fields_context.h"

#include "format/attr.h"
#include "format/perf_abi.h"
#include "decode/record_types.h"
#include "decode/sample.h"

static int write_mmap_any(pv_fields_decoder *d)
{
    pv_rec_mmap m;
    if (pv_rec_mmap_decode(d->f, d->rec, &m, d->err))
        return -1;
    pv_field_pid_tid(d, m.pid, m.tid);
    pv_field_i64(d, "start", m.start);
    pv_field_i64(d, "len", m.len);
    pv_field_i64(d, "pgoff", m.pgoff);
    if (m.mmap2) {
        if (m.has_build_id) {
            pv_field_hex(d, "build_id", m.build_id, m.build_id_size);
        } else {
            pv_field_u64(d, "maj", m.maj);
            pv_field_u64(d, "min", m.min);
            pv_field_i64(d, "ino", m.ino);
            pv_field_i64(d, "ino_generation", m.ino_generation);
        }
        if (m.short_layout) {
            pv_field_flag(d, "short_layout", true);   /* no prot, flags (old kernels) */
        } else {
            pv_field_u64(d, "prot", m.prot);
            pv_field_u64(d, "flags", m.flags);
        }
    }
    pv_field_text(d, "filename", m.filename, m.filename_len);
    return 0;
}

static int write_lost_any(pv_fields_decoder *d)
{
    pv_rec_lost l;
    if (pv_rec_lost_decode(d->f, d->rec, &l, d->err))
        return -1;
    if (l.has_id)
        pv_field_i64(d, "id", l.id);
    pv_field_u64(d, "lost", l.lost);
    return 0;
}

static int write_comm(pv_fields_decoder *d)
{
    pv_rec_comm c;
    if (pv_rec_comm_decode(d->f, d->rec, &c, d->err))
        return -1;
    pv_field_pid_tid(d, c.pid, c.tid);
    pv_field_text(d, "comm", c.comm, c.comm_len);
    return 0;
}

static int write_task(pv_fields_decoder *d)
{
    pv_rec_task t;
    if (pv_rec_task_decode(d->f, d->rec, &t, d->err))
        return -1;
    pv_field_i32(d, "pid", t.pid);
    pv_field_i32(d, "ppid", t.ppid);
    pv_field_i32(d, "tid", t.tid);
    pv_field_i32(d, "ptid", t.ptid);
    pv_field_u64(d, "time", t.time);
    return 0;
}

static int write_throttle(pv_fields_decoder *d)
{
    pv_rec_throttle t;
    if (pv_rec_throttle_decode(d->f, d->rec, &t, d->err))
        return -1;
    pv_field_u64(d, "time", t.time);
    pv_field_i64(d, "id", t.id);
    pv_field_i64(d, "stream_id", t.stream_id);
    return 0;
}

static void put_read_value(pv_fields_decoder *d, const pv_rec_read *r, pv_read_value v)
{
    if (r->read_format & PV_FORMAT_ID)
        pv_field_i64(d, "id", v.id);
    if (r->read_format & PV_FORMAT_LOST)
        pv_field_u64(d, "lost", v.lost);
}

static int write_read(pv_fields_decoder *d)
{
    pv_rec_read r;
    if (pv_rec_read_decode(d->f, d->rec, &r, d->err))
        return -1;
    uint64_t rf = r.read_format;
    pv_field_pid_tid(d, r.pid, r.tid);
    if (r.group)
        pv_field_u64(d, "nr", r.nr);
    else
        pv_field_u64(d, "value", r.one.value);
    if (rf & PV_FORMAT_TOTAL_TIME_ENABLED)
        pv_field_u64(d, "time_enabled", r.time_enabled);
    if (rf & PV_FORMAT_TOTAL_TIME_RUNNING)
        pv_field_u64(d, "time_running", r.time_running);
    if (!r.group) {
        put_read_value(d, &r, r.one);
        return 0;
    }
    pv_json_key(&d->w, "values");
    pv_json_array_begin(&d->w);
    for (uint64_t i = 0; i < r.nr; i++) {
        pv_read_value v = pv_rec_read_value_at(&r, i);
        pv_json_object_begin(&d->w);
        pv_field_u64(d, "value", v.value);
        put_read_value(d, &r, v);
        pv_json_object_end(&d->w);
    }
    pv_json_array_end(&d->w);
    return 0;
}

/* SAMPLE: a summary; perf_samples has every field as a column.  The layout
 * depends on the event's sample_type, see sample.h. */
static int write_sample(pv_fields_decoder *d)
{
    pv_sample s;
    if (d->f->nr_attrs == 0)
        return 0;
    if (pv_sample_decode(d->f, d->rec, &s, d->err))
        return -1;
    if (s.attr_index < 0)
        return 0;   /* an id no event claims: nothing to say */
    uint64_t t = s.sample_type;
    pv_json_key(&d->w, "sample_type");
    pv_strbuf *names = pv_json_raw_begin(&d->w);  /* flag names, no escaping needed */
    pv_strbuf_append(names, "\"", 1);
    pv_sample_type_string(t, names);
    pv_strbuf_append(names, "\"", 1);
    if (t & PV_SAMPLE_IP) pv_field_i64(d, "ip", s.ip);
    if (t & PV_SAMPLE_TID) { pv_field_i32(d, "pid", s.pid); pv_field_i32(d, "tid", s.tid); }
    if (t & PV_SAMPLE_TIME) pv_field_u64(d, "time", s.time);
    if (t & PV_SAMPLE_ADDR) pv_field_i64(d, "addr", s.addr);
    if (t & PV_SAMPLE_ID) pv_field_i64(d, "id", s.id);
    if (t & PV_SAMPLE_IDENTIFIER) pv_field_i64(d, "identifier", s.identifier);
    if (t & PV_SAMPLE_STREAM_ID) pv_field_i64(d, "stream_id", s.stream_id);
    if (t & PV_SAMPLE_CPU) pv_field_u64(d, "cpu", s.cpu);
    if (t & PV_SAMPLE_PERIOD) pv_field_u64(d, "period", s.period);
    if (t & PV_SAMPLE_CALLCHAIN) pv_field_u64(d, "callchain_nr", s.callchain_nr);
    return 0;
}

static int write_aux(pv_fields_decoder *d)
{
    pv_rec_aux a;
    if (pv_rec_aux_decode(d->f, d->rec, &a, d->err))
        return -1;
    pv_field_u64(d, "aux_offset", a.aux_offset);
    pv_field_u64(d, "aux_size", a.aux_size);
    pv_field_i64(d, "flags", a.flags);
    return 0;
}

static int write_itrace_start(pv_fields_decoder *d)
{
    pv_rec_itrace_start t;
    if (pv_rec_itrace_start_decode(d->f, d->rec, &t, d->err))
        return -1;
    pv_field_pid_tid(d, t.pid, t.tid);
    return 0;
}

static int write_switch_any(pv_fields_decoder *d)
{
    pv_rec_switch sw;
    if (pv_rec_switch_decode(d->f, d->rec, &sw, d->err))
        return -1;
    pv_field_flag(d, "out", sw.out);
    pv_field_flag(d, "preempt", sw.preempt);
    if (sw.cpu_wide) {
        pv_field_i32(d, "next_prev_pid", sw.next_prev_pid);
        pv_field_i32(d, "next_prev_tid", sw.next_prev_tid);
    }
    return 0;
}

static int write_namespaces(pv_fields_decoder *d)
{
    pv_rec_namespaces ns;
    if (pv_rec_namespaces_decode(d->f, d->rec, &ns, d->err))
        return -1;
    pv_field_pid_tid(d, ns.pid, ns.tid);
    pv_field_u64(d, "nr_namespaces", ns.nr_namespaces);
    pv_json_key(&d->w, "namespaces");
    pv_json_array_begin(&d->w);
    for (uint64_t i = 0; i < ns.nr_namespaces; i++) {
        uint64_t dev, ino;
        pv_rec_namespace_at(&ns, i, &dev, &ino);
        pv_json_object_begin(&d->w);
        pv_field_i64(d, "dev", dev);
        pv_field_i64(d, "ino", ino);
        pv_json_object_end(&d->w);
    }
    pv_json_array_end(&d->w);
    return 0;
}

static int write_ksymbol(pv_fields_decoder *d)
{
    pv_rec_ksymbol k;
    if (pv_rec_ksymbol_decode(d->f, d->rec, &k, d->err))
        return -1;
    pv_field_i64(d, "addr", k.addr);
    pv_field_u64(d, "len", k.len);
    pv_field_u64(d, "ksym_type", k.ksym_type);
    pv_field_u64(d, "flags", k.flags);
    pv_field_text(d, "name", k.name, k.name_len);
    return 0;
}

static int write_bpf_event(pv_fields_decoder *d)
{
    pv_rec_bpf_event b;
    if (pv_rec_bpf_event_decode(d->f, d->rec, &b, d->err))
        return -1;
    pv_field_u64(d, "type", b.type);
    pv_field_u64(d, "flags", b.flags);
    pv_field_u64(d, "id", b.id);
    pv_field_hex(d, "tag", b.tag, 8);
    return 0;
}

static int write_cgroup(pv_fields_decoder *d)
{
    pv_rec_cgroup c;
    if (pv_rec_cgroup_decode(d->f, d->rec, &c, d->err))
        return -1;
    pv_field_i64(d, "id", c.id);
    pv_field_text(d, "path", c.path, c.path_len);
    return 0;
}

static int write_text_poke(pv_fields_decoder *d)
{
    pv_rec_text_poke t;
    if (pv_rec_text_poke_decode(d->f, d->rec, &t, d->err))
        return -1;
    pv_field_i64(d, "addr", t.addr);
    pv_field_u64(d, "old_len", t.old_len);
    pv_field_u64(d, "new_len", t.new_len);
    pv_field_hex(d, "old_bytes", t.old_bytes, t.old_len);
    pv_field_hex(d, "new_bytes", t.new_bytes, t.new_len);
    return 0;
}

static int write_aux_output_hw_id(pv_fields_decoder *d)
{
    pv_rec_aux_output_hw_id a;
    if (pv_rec_aux_output_hw_id_decode(d->f, d->rec, &a, d->err))
        return -1;
    pv_field_i64(d, "hw_id", a.hw_id);
    return 0;
}

/* CALLCHAIN_DEFERRED: its addresses as perf_samples.callchain gives a
 * sample's, the context markers left out */
static int write_callchain_deferred(pv_fields_decoder *d)
{
    pv_rec_callchain_deferred c;
    if (pv_rec_callchain_deferred_decode(d->f, d->rec, &c, d->err))
        return -1;
    pv_field_u64(d, "cookie", c.cookie);
    pv_field_u64(d, "nr", c.nr);
    pv_json_key(&d->w, "ips");
    pv_json_array_begin(&d->w);
    for (uint64_t i = 0; i < c.nr; i++) {
        uint64_t ip = pv_rec_callchain_deferred_ip(&c, i);
        if (ip < PV_CONTEXT_MAX)
            pv_json_i64(&d->w, (int64_t)ip);
    }
    pv_json_array_end(&d->w);
    return 0;
}

/* write_<writer> of each row of format/record_type_list.h */
static const pv_fields_write_fn kernel_writers[PV_RECORD_KERNEL_TYPE_END] = {
    PV_KERNEL_RECORD_TYPES(PV_RECORD_TYPE_WRITER)
};

pv_fields_write_fn pv_fields_kernel_writer(uint32_t type)
{
    return type < PV_RECORD_KERNEL_TYPE_END ? kernel_writers[type] : NULL;
}
