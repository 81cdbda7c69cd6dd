/*
 * perf_records.fields: the body of any record as a JSON object.
 *
 * One small writer per record type, dispatched from a table indexed by the
 * type.  Kernel records and perf stat's records take their values from the
 * typed decoders (record_types.h), whose errors are the record's.  The other
 * user records are read here, in file order, through one cursor over the
 * body, and written as they are read.  A read past the body only marks the
 * cursor failed; pv_record_fields_json then turns that into an error naming
 * the field, the file and the record's offset, as the typed decoders do.
 * Every count read from the file is checked against the bytes left before
 * anything loops over it.
 *
 * Byte layouts below are offsets within the body, i.e. after the 8-byte
 * record header {u32 type; u16 misc; u16 size}: user-record (type >= 64)
 * layouts as perf writes them.
 *
 * Number conventions (DESIGN.md): u64 addresses, ids and other bit patterns
 * are written with the same 64 bits as a signed integer (kernel addresses read
 * negative, like the SQL INTEGER columns); counts and sizes are unsigned;
 * pid/tid are pid_t.  A cpu that perf itself treats as "int cpu, -1 = any"
 * (AUXTRACE, AUXTRACE_ERROR, STAT, ID_INDEX) is signed like perf prints it;
 * the trailer's cpu is unsigned like the perf_records.cpu column.
 */
#include "record_fields.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "perf_abi.h"
#include "pv_cursor.h"
#include "record_types.h"
#include "sample.h"

typedef struct decoder {
    const pv_file *f;
    const pv_record *rec;
    const char *name;        /* the record type's name, for messages */
    pv_cursor c;             /* the body, trailer excluded */
    pv_strbuf *out;
    pv_error *err;
    bool first;              /* no key written yet in the current object */
    const char *fail_field;  /* first field whose read went past the body */
} decoder;

/* ------------------------------------------------------------ errors */

static int malformed(decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int malformed(decoder *d, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pv_error_set(d->err, "%s: %s record at offset 0x%llx (size %u): %s",
                        d->f->data_path, d->name, (unsigned long long)d->rec->file_offset,
                        d->rec->size, what);
}

/* Called by every writer after its value was read: remembers the first
 * field whose read failed. */
static void note(decoder *d, const char *key)
{
    if (d->c.failed && !d->fail_field)
        d->fail_field = key;
}

/* A count of elem-byte entries: nr must fit in what is left of the body. */
static int check_count(decoder *d, const char *what, uint64_t nr, uint64_t elem)
{
    uint64_t left = pv_cursor_left(&d->c);
    if (d->c.failed || nr > left / elem)
        return malformed(d, "%s count %llu (of %llu bytes each) does not fit in the %llu bytes "
                         "left at offset 0x%llx",
                         what, (unsigned long long)nr, (unsigned long long)elem,
                         (unsigned long long)left, (unsigned long long)pv_cursor_offset(&d->c));
    return 0;
}

/* ------------------------------------------------------------ writers */

static void key(decoder *d, const char *k)
{
    if (!d->first)
        pv_strbuf_append(d->out, ",", 1);
    d->first = false;
    pv_strbuf_json_string(d->out, k, strlen(k));
    pv_strbuf_append(d->out, ":", 1);
}

static void open_object(decoder *d, const char *k)
{
    if (k)
        key(d, k);
    else if (!d->first)
        pv_strbuf_append(d->out, ",", 1);
    pv_strbuf_append(d->out, "{", 1);
    d->first = true;
}

static void close_object(decoder *d)
{
    pv_strbuf_append(d->out, "}", 1);
    d->first = false;
}

static void open_array(decoder *d, const char *k)
{
    key(d, k);
    pv_strbuf_append(d->out, "[", 1);
    d->first = true;
}

static void close_array(decoder *d)
{
    pv_strbuf_append(d->out, "]", 1);
    d->first = false;
}

/* An array element separator. */
static void element(decoder *d)
{
    if (!d->first)
        pv_strbuf_append(d->out, ",", 1);
    d->first = false;
}

/* u64 bit patterns: addresses, ids, configs. */
static void put_i64(decoder *d, const char *k, uint64_t v)
{
    note(d, k);
    key(d, k);
    pv_strbuf_json_i64(d->out, v);
}

/* Counts and sizes. */
static void put_u64(decoder *d, const char *k, uint64_t v)
{
    note(d, k);
    key(d, k);
    pv_strbuf_json_u64(d->out, v);
}

/* pid_t and other values perf treats as int. */
static void put_i32(decoder *d, const char *k, uint32_t v)
{
    note(d, k);
    key(d, k);
    pv_strbuf_printf(d->out, "%d", (int)(int32_t)v);
}

static void put_bool(decoder *d, const char *k, bool v)
{
    key(d, k);
    pv_strbuf_append(d->out, v ? "1" : "0", 1);
}

/* A NUL-padded string of n bytes at the cursor. */
static void put_string(decoder *d, const char *k, uint64_t n)
{
    uint64_t len = 0;
    const char *s = pv_cursor_padded_string(&d->c, n, &len);
    note(d, k);
    key(d, k);
    if (s)
        pv_strbuf_json_string(d->out, s, (size_t)len);
    else
        pv_strbuf_puts(d->out, "null");
}

/* A string that fills the rest of the body. */
static void put_rest_string(decoder *d, const char *k)
{
    put_string(d, k, pv_cursor_left(&d->c));
}

/* A string or bytes a typed decoder found in the record. */
static void put_text(decoder *d, const char *k, const char *text, uint64_t len)
{
    key(d, k);
    pv_strbuf_json_string(d->out, text, (size_t)len);
}

static void put_hex_bytes(decoder *d, const char *k, const uint8_t *p, uint64_t n)
{
    key(d, k);
    pv_strbuf_append(d->out, "\"", 1);
    pv_strbuf_hex(d->out, p, (size_t)n);
    pv_strbuf_append(d->out, "\"", 1);
}

static void put_pid_tid(decoder *d, uint32_t pid, uint32_t tid)
{
    put_i32(d, "pid", pid);
    put_i32(d, "tid", tid);
}

/* ------------------------------------------------------------ kernel records */
/* Values from the typed decoders (record_types.h, which has the layouts);
 * a decoder's error is the record's. */

static int decode_mmap_any(decoder *d)
{
    pv_rec_mmap m;
    if (pv_rec_mmap_decode(d->f, d->rec, &m, d->err))
        return -1;
    put_pid_tid(d, m.pid, m.tid);
    put_i64(d, "start", m.start);
    put_i64(d, "len", m.len);
    put_i64(d, "pgoff", m.pgoff);
    if (m.mmap2) {
        if (m.has_build_id) {
            put_hex_bytes(d, "build_id", m.build_id, m.build_id_size);
        } else {
            put_u64(d, "maj", m.maj);
            put_u64(d, "min", m.min);
            put_i64(d, "ino", m.ino);
            put_i64(d, "ino_generation", m.ino_generation);
        }
        put_u64(d, "prot", m.prot);
        put_u64(d, "flags", m.flags);
    }
    put_text(d, "filename", m.filename, m.filename_len);
    return 0;
}

static int decode_lost_any(decoder *d)
{
    pv_rec_lost l;
    if (pv_rec_lost_decode(d->f, d->rec, &l, d->err))
        return -1;
    if (l.has_id)
        put_i64(d, "id", l.id);
    put_u64(d, "lost", l.lost);
    return 0;
}

static int decode_comm(decoder *d)
{
    pv_rec_comm c;
    if (pv_rec_comm_decode(d->f, d->rec, &c, d->err))
        return -1;
    put_pid_tid(d, c.pid, c.tid);
    put_text(d, "comm", c.comm, c.comm_len);
    return 0;
}

static int decode_task(decoder *d)
{
    pv_rec_task t;
    if (pv_rec_task_decode(d->f, d->rec, &t, d->err))
        return -1;
    put_i32(d, "pid", t.pid);
    put_i32(d, "ppid", t.ppid);
    put_i32(d, "tid", t.tid);
    put_i32(d, "ptid", t.ptid);
    put_u64(d, "time", t.time);
    return 0;
}

static int decode_throttle(decoder *d)
{
    pv_rec_throttle t;
    if (pv_rec_throttle_decode(d->f, d->rec, &t, d->err))
        return -1;
    put_u64(d, "time", t.time);
    put_i64(d, "id", t.id);
    put_i64(d, "stream_id", t.stream_id);
    return 0;
}

static void put_read_value(decoder *d, const pv_rec_read *r, pv_read_value v)
{
    if (r->read_format & PV_FORMAT_ID)
        put_i64(d, "id", v.id);
    if (r->read_format & PV_FORMAT_LOST)
        put_u64(d, "lost", v.lost);
}

static int decode_read(decoder *d)
{
    pv_rec_read r;
    if (pv_rec_read_decode(d->f, d->rec, &r, d->err))
        return -1;
    uint64_t rf = r.read_format;
    put_pid_tid(d, r.pid, r.tid);
    if (r.group)
        put_u64(d, "nr", r.nr);
    else
        put_u64(d, "value", r.one.value);
    if (rf & PV_FORMAT_TOTAL_TIME_ENABLED)
        put_u64(d, "time_enabled", r.time_enabled);
    if (rf & PV_FORMAT_TOTAL_TIME_RUNNING)
        put_u64(d, "time_running", r.time_running);
    if (!r.group) {
        put_read_value(d, &r, r.one);
        return 0;
    }
    open_array(d, "values");
    for (uint64_t i = 0; i < r.nr; i++) {
        pv_read_value v = pv_rec_read_value_at(&r, i);
        open_object(d, NULL);
        put_u64(d, "value", v.value);
        put_read_value(d, &r, v);
        close_object(d);
    }
    close_array(d);
    return 0;
}

/* SAMPLE: a summary; perf_samples has every field as a column.  The layout
 * depends on the event's sample_type, see sample.h. */
static int decode_sample(decoder *d)
{
    pv_sample s;
    if (d->f->nr_attrs == 0)
        return 0;
    if (pv_sample_decode(d->f, d->rec, &s, d->err))
        return -1;
    if (s.attr_index < 0)
        return 0;   /* an id no event claims: nothing to say */
    uint64_t t = s.sample_type;
    key(d, "sample_type");
    pv_strbuf_append(d->out, "\"", 1);
    pv_sample_type_string(t, d->out);
    pv_strbuf_append(d->out, "\"", 1);
    if (t & PV_SAMPLE_IP) put_i64(d, "ip", s.ip);
    if (t & PV_SAMPLE_TID) { put_i32(d, "pid", s.pid); put_i32(d, "tid", s.tid); }
    if (t & PV_SAMPLE_TIME) put_u64(d, "time", s.time);
    if (t & PV_SAMPLE_ADDR) put_i64(d, "addr", s.addr);
    if (t & PV_SAMPLE_ID) put_i64(d, "id", s.id);
    if (t & PV_SAMPLE_IDENTIFIER) put_i64(d, "identifier", s.identifier);
    if (t & PV_SAMPLE_STREAM_ID) put_i64(d, "stream_id", s.stream_id);
    if (t & PV_SAMPLE_CPU) put_u64(d, "cpu", s.cpu);
    if (t & PV_SAMPLE_PERIOD) put_u64(d, "period", s.period);
    if (t & PV_SAMPLE_CALLCHAIN) put_u64(d, "callchain_nr", s.callchain_nr);
    return 0;
}

static int decode_aux(decoder *d)
{
    pv_rec_aux a;
    if (pv_rec_aux_decode(d->f, d->rec, &a, d->err))
        return -1;
    put_u64(d, "aux_offset", a.aux_offset);
    put_u64(d, "aux_size", a.aux_size);
    put_i64(d, "flags", a.flags);
    return 0;
}

static int decode_itrace_start(decoder *d)
{
    pv_rec_itrace_start t;
    if (pv_rec_itrace_start_decode(d->f, d->rec, &t, d->err))
        return -1;
    put_pid_tid(d, t.pid, t.tid);
    return 0;
}

static int decode_switch_any(decoder *d)
{
    pv_rec_switch sw;
    if (pv_rec_switch_decode(d->f, d->rec, &sw, d->err))
        return -1;
    put_bool(d, "out", sw.out);
    put_bool(d, "preempt", sw.preempt);
    if (sw.cpu_wide) {
        put_i32(d, "next_prev_pid", sw.next_prev_pid);
        put_i32(d, "next_prev_tid", sw.next_prev_tid);
    }
    return 0;
}

static int decode_namespaces(decoder *d)
{
    pv_rec_namespaces ns;
    if (pv_rec_namespaces_decode(d->f, d->rec, &ns, d->err))
        return -1;
    put_pid_tid(d, ns.pid, ns.tid);
    put_u64(d, "nr_namespaces", ns.nr_namespaces);
    open_array(d, "namespaces");
    for (uint64_t i = 0; i < ns.nr_namespaces; i++) {
        uint64_t dev, ino;
        pv_rec_namespace_at(&ns, i, &dev, &ino);
        open_object(d, NULL);
        put_i64(d, "dev", dev);
        put_i64(d, "ino", ino);
        close_object(d);
    }
    close_array(d);
    return 0;
}

static int decode_ksymbol(decoder *d)
{
    pv_rec_ksymbol k;
    if (pv_rec_ksymbol_decode(d->f, d->rec, &k, d->err))
        return -1;
    put_i64(d, "addr", k.addr);
    put_u64(d, "len", k.len);
    put_u64(d, "ksym_type", k.ksym_type);
    put_u64(d, "flags", k.flags);
    put_text(d, "name", k.name, k.name_len);
    return 0;
}

static int decode_bpf_event(decoder *d)
{
    pv_rec_bpf_event b;
    if (pv_rec_bpf_event_decode(d->f, d->rec, &b, d->err))
        return -1;
    put_u64(d, "type", b.type);
    put_u64(d, "flags", b.flags);
    put_u64(d, "id", b.id);
    put_hex_bytes(d, "tag", b.tag, 8);
    return 0;
}

static int decode_cgroup(decoder *d)
{
    pv_rec_cgroup c;
    if (pv_rec_cgroup_decode(d->f, d->rec, &c, d->err))
        return -1;
    put_i64(d, "id", c.id);
    put_text(d, "path", c.path, c.path_len);
    return 0;
}

static int decode_text_poke(decoder *d)
{
    pv_rec_text_poke t;
    if (pv_rec_text_poke_decode(d->f, d->rec, &t, d->err))
        return -1;
    put_i64(d, "addr", t.addr);
    put_u64(d, "old_len", t.old_len);
    put_u64(d, "new_len", t.new_len);
    put_hex_bytes(d, "old_bytes", t.old_bytes, t.old_len);
    put_hex_bytes(d, "new_bytes", t.new_bytes, t.new_len);
    return 0;
}

static int decode_aux_output_hw_id(decoder *d)
{
    pv_rec_aux_output_hw_id a;
    if (pv_rec_aux_output_hw_id_decode(d->f, d->rec, &a, d->err))
        return -1;
    put_i64(d, "hw_id", a.hw_id);
    return 0;
}

/* ------------------------------------------------------------ user records */

/* HEADER_ATTR: 0 perf_event_attr (attr.size bytes, 64 when 0), then u64 ids
 * up to the end of the record. */
static int decode_header_attr(decoder *d)
{
    uint64_t body = pv_cursor_left(&d->c);
    if (body < 8)
        return malformed(d, "body of %llu bytes is too short for a perf_event_attr",
                         (unsigned long long)body);
    pv_cursor peek = d->c;          /* attr.size, the attr's second u32 */
    pv_cursor_skip(&peek, 4);
    uint64_t attr_bytes = pv_cursor_u32(&peek);
    if (attr_bytes == 0)
        attr_bytes = PV_ATTR_SIZE_VER0;
    if (attr_bytes < PV_ATTR_SIZE_VER0 || attr_bytes > body)
        return malformed(d, "attr.size %llu is outside %d..%llu (the body)",
                         (unsigned long long)attr_bytes, PV_ATTR_SIZE_VER0,
                         (unsigned long long)body);
    pv_attr a;
    if (pv_attr_decode(&d->c, attr_bytes, &a, d->f->data_path, d->err))
        return -1;
    key(d, "attr");
    pv_attr_json(&a, d->out);
    uint64_t nr = pv_cursor_left(&d->c) / 8;
    open_array(d, "ids");
    for (uint64_t i = 0; i < nr; i++) {
        element(d);
        pv_strbuf_json_i64(d->out, pv_cursor_u64(&d->c));
    }
    close_array(d);
    return 0;
}

/* HEADER_EVENT_TYPE: 0 event_id u64, 8 name[64] */
static int decode_header_event_type(decoder *d)
{
    put_i64(d, "event_id", pv_cursor_u64(&d->c));
    uint64_t left = pv_cursor_left(&d->c);
    put_string(d, "name", left < 64 ? left : 64);
    return 0;
}

/* HEADER_TRACING_DATA: 0 size u32 (the data follows the record in pipe mode) */
static int decode_header_tracing_data(decoder *d)
{
    put_u64(d, "size", pv_cursor_u32(&d->c));
    return 0;
}

/* HEADER_BUILD_ID: 0 pid u32, 4 build_id[20], 24 size u8 (valid when misc
 * bit 15), 25 3 reserved, 28 filename[] */
static int decode_header_build_id(decoder *d)
{
    put_i32(d, "pid", pv_cursor_u32(&d->c));
    const uint8_t *id = pv_cursor_bytes(&d->c, 24);
    note(d, "build_id");
    if (!id)
        return 0;
    size_t size = PV_BUILD_ID_MAX;
    if (d->rec->misc & PV_MISC_BUILD_ID_SIZE) {
        size = id[PV_BUILD_ID_MAX];
        if (size > PV_BUILD_ID_MAX)
            return malformed(d, "build-id size %zu (> %d)", size, PV_BUILD_ID_MAX);
    }
    key(d, "build_id");
    pv_strbuf_append(d->out, "\"", 1);
    pv_strbuf_hex(d->out, id, size);
    pv_strbuf_append(d->out, "\"", 1);
    put_rest_string(d, "filename");
    return 0;
}

/* FINISHED_ROUND, FINISHED_INIT: no body. */
static int decode_empty(decoder *d)
{
    (void)d;
    return 0;
}

/* ID_INDEX: 0 nr u64, 8 nr x {id, idx, cpu, tid} (u64 each), and when the
 * body has room for them, nr x {machine_pid, vcpu} after all of those
 * (perf 6.0+ writes both arrays; older perf only the first). */
static int decode_id_index(decoder *d)
{
    uint64_t nr = pv_cursor_u64(&d->c);
    put_u64(d, "nr", nr);
    if (check_count(d, "id_index", nr, 32))
        return -1;
    bool second = pv_cursor_left(&d->c) / 48 >= nr;
    pv_cursor e2 = d->c;
    if (second)
        pv_cursor_skip(&e2, nr * 32);
    open_array(d, "entries");
    for (uint64_t i = 0; i < nr; i++) {
        open_object(d, NULL);
        put_i64(d, "id", pv_cursor_u64(&d->c));
        put_u64(d, "idx", pv_cursor_u64(&d->c));
        put_i64(d, "cpu", pv_cursor_u64(&d->c));
        put_i64(d, "tid", pv_cursor_u64(&d->c));
        if (second) {
            put_i64(d, "machine_pid", pv_cursor_u64(&e2));
            put_u64(d, "vcpu", pv_cursor_u64(&e2));
        }
        close_object(d);
    }
    close_array(d);
    return 0;
}

/* AUXTRACE_INFO: 0 type u32, 4 reserved u32, 8 priv u64[] to the end */
static int decode_auxtrace_info(decoder *d)
{
    put_u64(d, "type", pv_cursor_u32(&d->c));
    pv_cursor_skip(&d->c, 4);
    note(d, "reserved");
    uint64_t nr = pv_cursor_left(&d->c) / 8;
    open_array(d, "priv");
    for (uint64_t i = 0; i < nr; i++) {
        element(d);
        pv_strbuf_json_i64(d->out, pv_cursor_u64(&d->c));
    }
    close_array(d);
    return 0;
}

/* AUXTRACE: 0 size u64, 8 offset u64, 16 reference u64, 24 idx u32,
 *   28 tid u32, 32 cpu u32, 36 reserved u32; size bytes of trace follow
 *   the record (the walk steps over them). */
static int decode_auxtrace(decoder *d)
{
    put_u64(d, "size", pv_cursor_u64(&d->c));
    put_u64(d, "offset", pv_cursor_u64(&d->c));
    put_i64(d, "reference", pv_cursor_u64(&d->c));
    put_u64(d, "idx", pv_cursor_u32(&d->c));
    put_i32(d, "tid", pv_cursor_u32(&d->c));
    put_i32(d, "cpu", pv_cursor_u32(&d->c));
    return 0;
}

/* AUXTRACE_ERROR: 0 type u32, 4 code u32, 8 cpu u32, 12 pid u32, 16 tid u32,
 *   20 fmt u32, 24 ip u64, then
 *   fmt 0:  32 msg[64]
 *   fmt 1+: 32 time u64, 40 msg[64]
 *   fmt 2+: 104 machine_pid u32, 108 vcpu u32
 * perf cuts msg after its NUL (rounded up to 8) when there is no fmt-2 tail. */
static int decode_auxtrace_error(decoder *d)
{
    put_u64(d, "type", pv_cursor_u32(&d->c));
    put_u64(d, "code", pv_cursor_u32(&d->c));
    put_i32(d, "cpu", pv_cursor_u32(&d->c));
    put_i32(d, "pid", pv_cursor_u32(&d->c));
    put_i32(d, "tid", pv_cursor_u32(&d->c));
    uint32_t fmt = pv_cursor_u32(&d->c);
    put_u64(d, "fmt", fmt);
    put_i64(d, "ip", pv_cursor_u64(&d->c));
    if (fmt >= 1)
        put_u64(d, "time", pv_cursor_u64(&d->c));
    uint64_t left = pv_cursor_left(&d->c);
    put_string(d, "msg", left < 64 ? left : 64);
    if (fmt >= 2) {
        put_i32(d, "machine_pid", pv_cursor_u32(&d->c));
        put_i32(d, "vcpu", pv_cursor_u32(&d->c));
    }
    return 0;
}

/* THREAD_MAP: 0 nr u64, 8 nr x {pid u64, comm[16]} */
static int decode_thread_map(decoder *d)
{
    uint64_t nr = pv_cursor_u64(&d->c);
    put_u64(d, "nr", nr);
    if (check_count(d, "thread_map", nr, 24))
        return -1;
    open_array(d, "threads");
    for (uint64_t i = 0; i < nr; i++) {
        open_object(d, NULL);
        put_i32(d, "pid", (uint32_t)pv_cursor_u64(&d->c));
        put_string(d, "comm", 16);
        close_object(d);
    }
    close_array(d);
    return 0;
}

/* A cpu map (CPU_MAP body, EVENT_UPDATE type 3), written as "cpus":[...]:
 *   0 type u16, then by type
 *   0 (cpus):  2 nr u16, 4 nr x cpu u16 ((u16)-1 = any cpu, written -1)
 *   1 (mask):  2 nr u16, 4 long_size u16 (4 or 8),
 *              6 nr x u32 mask words         when long_size 4
 *              10 nr x u64 mask words        when long_size 8 (after 4 pad bytes)
 *   2 (range): 2 any_cpu u8, 3 pad u8, 4 start_cpu u16, 6 end_cpu u16
 *              (any_cpu puts -1 before start..end) */
static int decode_cpu_map_data(decoder *d)
{
    uint16_t type = pv_cursor_u16(&d->c);
    note(d, "cpu map type");
    if (d->c.failed)
        return 0;
    if (type == 0) {
        uint16_t nr = pv_cursor_u16(&d->c);
        note(d, "cpu map nr");
        if (check_count(d, "cpu map", nr, 2))
            return -1;
        open_array(d, "cpus");
        for (uint16_t i = 0; i < nr; i++) {
            uint16_t cpu = pv_cursor_u16(&d->c);
            element(d);
            pv_strbuf_printf(d->out, "%d", cpu == 0xffff ? -1 : (int)cpu);
        }
        close_array(d);
    } else if (type == 1) {
        uint16_t nr = pv_cursor_u16(&d->c);
        uint16_t long_size = pv_cursor_u16(&d->c);
        note(d, "cpu mask header");
        if (d->c.failed)
            return 0;
        if (long_size != 4 && long_size != 8)
            return malformed(d, "cpu mask long_size %u (not 4 or 8)", long_size);
        if (long_size == 8) {
            pv_cursor_skip(&d->c, 4);
            note(d, "cpu mask padding");
        }
        if (check_count(d, "cpu mask", nr, long_size))
            return -1;
        open_array(d, "cpus");
        for (uint64_t w = 0; w < nr; w++) {
            uint64_t word = long_size == 8 ? pv_cursor_u64(&d->c) : pv_cursor_u32(&d->c);
            for (unsigned bit = 0; bit < 8u * long_size; bit++) {
                if ((word >> bit) & 1) {
                    element(d);
                    pv_strbuf_json_u64(d->out, w * 8 * long_size + bit);
                }
            }
        }
        close_array(d);
    } else if (type == 2) {
        uint8_t any_cpu = pv_cursor_u8(&d->c);
        pv_cursor_u8(&d->c);
        uint16_t start = pv_cursor_u16(&d->c);
        uint16_t end = pv_cursor_u16(&d->c);
        note(d, "cpu range");
        if (d->c.failed)
            return 0;
        if (end < start)
            return malformed(d, "cpu range %u..%u ends before it starts", start, end);
        open_array(d, "cpus");
        if (any_cpu) {
            element(d);
            pv_strbuf_puts(d->out, "-1");
        }
        for (unsigned cpu = start; cpu <= end; cpu++) {
            element(d);
            pv_strbuf_printf(d->out, "%u", cpu);
        }
        close_array(d);
    } else {
        return malformed(d, "unknown cpu map type %u", type);
    }
    return 0;
}

/* CPU_MAP: 0 the cpu map (see decode_cpu_map_data) */
static int decode_cpu_map(decoder *d)
{
    return decode_cpu_map_data(d);
}

/* STAT_CONFIG: tags other than those of perf written as "tag_<n>". */
static int decode_stat_config(decoder *d)
{
    static const char *const tags[] = {"aggr_mode", "interval", "scale", "aggr_level"};
    pv_rec_stat_config c;
    if (pv_rec_stat_config_decode(d->f, d->rec, &c, d->err))
        return -1;
    for (uint64_t i = 0; i < c.nr; i++) {
        uint64_t tag, val;
        pv_rec_stat_config_at(&c, i, &tag, &val);
        char name[32];
        if (tag < sizeof tags / sizeof tags[0])
            snprintf(name, sizeof name, "%s", tags[tag]);
        else
            snprintf(name, sizeof name, "tag_%llu", (unsigned long long)tag);
        put_u64(d, name, val);
    }
    return 0;
}

static int decode_stat(decoder *d)
{
    pv_rec_stat st;
    if (pv_rec_stat_decode(d->f, d->rec, &st, d->err))
        return -1;
    put_i64(d, "id", st.id);
    put_i32(d, "cpu", st.cpu);
    put_i32(d, "thread", st.thread);
    put_u64(d, "val", st.val);
    put_u64(d, "ena", st.ena);
    put_u64(d, "run", st.run);
    return 0;
}

static int decode_stat_round(decoder *d)
{
    pv_rec_stat_round r;
    if (pv_rec_stat_round_decode(d->f, d->rec, &r, d->err))
        return -1;
    put_u64(d, "type", r.type);
    put_u64(d, "time", r.time);
    return 0;
}

/* EVENT_UPDATE: 0 type u64, 8 id u64, 16 by type:
 *   0 unit[] (string), 1 scale (a double), 2 name[] (string),
 *   3 cpus (a cpu map, see decode_cpu_map_data) */
static int decode_event_update(decoder *d)
{
    uint64_t type = pv_cursor_u64(&d->c);
    put_u64(d, "type", type);
    put_i64(d, "id", pv_cursor_u64(&d->c));
    switch (type) {
    case 0:
        put_rest_string(d, "unit");
        break;
    case 1: {
        uint64_t bits = pv_cursor_u64(&d->c);
        note(d, "scale");
        double scale;
        memcpy(&scale, &bits, sizeof scale);
        key(d, "scale");
        if (isfinite(scale)) {
            /* the shortest of %.15g / %.17g that reads back as the same double */
            char text[32];
            snprintf(text, sizeof text, "%.15g", scale);
            if (strtod(text, NULL) != scale)
                snprintf(text, sizeof text, "%.17g", scale);
            pv_strbuf_puts(d->out, text);
        } else
            pv_strbuf_puts(d->out, "null");
        break;
    }
    case 2:
        put_rest_string(d, "name");
        break;
    case 3:
        return decode_cpu_map_data(d);
    default:
        break;
    }
    return 0;
}

/* TIME_CONV: 0 time_shift u64, 8 time_mult u64, 16 time_zero u64, and in
 * records of perf 5.11+: 24 time_cycles u64, 32 time_mask u64,
 * 40 cap_user_time_zero u8, 41 cap_user_time_short u8, 42 6 reserved */
static int decode_time_conv(decoder *d)
{
    put_u64(d, "time_shift", pv_cursor_u64(&d->c));
    put_u64(d, "time_mult", pv_cursor_u64(&d->c));
    put_i64(d, "time_zero", pv_cursor_u64(&d->c));   /* a negative offset in practice */
    if (pv_cursor_left(&d->c) >= 24) {
        put_u64(d, "time_cycles", pv_cursor_u64(&d->c));
        put_i64(d, "time_mask", pv_cursor_u64(&d->c));
        put_u64(d, "cap_user_time_zero", pv_cursor_u8(&d->c));
        put_u64(d, "cap_user_time_short", pv_cursor_u8(&d->c));
    }
    return 0;
}

/* HEADER_FEATURE: 0 feat_id u64, 8 the feature section's bytes */
static int decode_header_feature(decoder *d)
{
    put_u64(d, "feat_id", pv_cursor_u64(&d->c));
    return 0;
}

/* COMPRESSED: 0 zstd data to the end of the record */
static int decode_compressed(decoder *d)
{
    put_u64(d, "data_size", pv_cursor_left(&d->c));
    return 0;
}

/* COMPRESSED2 (perf 6.16+): 0 data_size u64, 8 zstd data, padding to 8 */
static int decode_compressed2(decoder *d)
{
    put_u64(d, "data_size", pv_cursor_u64(&d->c));
    return 0;
}

/* ------------------------------------------------------------ dispatch */

typedef int (*decode_fn)(decoder *d);

static const decode_fn decoders[] = {
    [PV_RECORD_MMAP] = decode_mmap_any,
    [PV_RECORD_LOST] = decode_lost_any,
    [PV_RECORD_COMM] = decode_comm,
    [PV_RECORD_EXIT] = decode_task,
    [PV_RECORD_THROTTLE] = decode_throttle,
    [PV_RECORD_UNTHROTTLE] = decode_throttle,
    [PV_RECORD_FORK] = decode_task,
    [PV_RECORD_READ] = decode_read,
    [PV_RECORD_SAMPLE] = decode_sample,
    [PV_RECORD_MMAP2] = decode_mmap_any,
    [PV_RECORD_AUX] = decode_aux,
    [PV_RECORD_ITRACE_START] = decode_itrace_start,
    [PV_RECORD_LOST_SAMPLES] = decode_lost_any,
    [PV_RECORD_SWITCH] = decode_switch_any,
    [PV_RECORD_SWITCH_CPU_WIDE] = decode_switch_any,
    [PV_RECORD_NAMESPACES] = decode_namespaces,
    [PV_RECORD_KSYMBOL] = decode_ksymbol,
    [PV_RECORD_BPF_EVENT] = decode_bpf_event,
    [PV_RECORD_CGROUP] = decode_cgroup,
    [PV_RECORD_TEXT_POKE] = decode_text_poke,
    [PV_RECORD_AUX_OUTPUT_HW_ID] = decode_aux_output_hw_id,
    [PV_RECORD_HEADER_ATTR] = decode_header_attr,
    [PV_RECORD_HEADER_EVENT_TYPE] = decode_header_event_type,
    [PV_RECORD_HEADER_TRACING_DATA] = decode_header_tracing_data,
    [PV_RECORD_HEADER_BUILD_ID] = decode_header_build_id,
    [PV_RECORD_FINISHED_ROUND] = decode_empty,
    [PV_RECORD_ID_INDEX] = decode_id_index,
    [PV_RECORD_AUXTRACE_INFO] = decode_auxtrace_info,
    [PV_RECORD_AUXTRACE] = decode_auxtrace,
    [PV_RECORD_AUXTRACE_ERROR] = decode_auxtrace_error,
    [PV_RECORD_THREAD_MAP] = decode_thread_map,
    [PV_RECORD_CPU_MAP] = decode_cpu_map,
    [PV_RECORD_STAT_CONFIG] = decode_stat_config,
    [PV_RECORD_STAT] = decode_stat,
    [PV_RECORD_STAT_ROUND] = decode_stat_round,
    [PV_RECORD_EVENT_UPDATE] = decode_event_update,
    [PV_RECORD_TIME_CONV] = decode_time_conv,
    [PV_RECORD_HEADER_FEATURE] = decode_header_feature,
    [PV_RECORD_COMPRESSED] = decode_compressed,
    [PV_RECORD_FINISHED_INIT] = decode_empty,
    [PV_RECORD_COMPRESSED2] = decode_compressed2,
};

/* The sample_id_all trailer, as "sample_id":{...}. */
static void put_sample_id(decoder *d, const pv_sample_id *t)
{
    open_object(d, "sample_id");
    if (t->fields & PV_SAMPLE_TID) {
        put_i32(d, "pid", t->pid);
        put_i32(d, "tid", t->tid);
    }
    if (t->fields & PV_SAMPLE_TIME) put_u64(d, "time", t->time);
    if (t->fields & PV_SAMPLE_ID) put_i64(d, "id", t->id);
    if (t->fields & PV_SAMPLE_STREAM_ID) put_i64(d, "stream_id", t->stream_id);
    if (t->fields & PV_SAMPLE_CPU) put_u64(d, "cpu", t->cpu);
    if (t->fields & PV_SAMPLE_IDENTIFIER) put_i64(d, "identifier", t->identifier);
    close_object(d);
}

int pv_record_fields_json(const pv_file *f, const pv_record *rec, pv_strbuf *out, pv_error *err)
{
    decode_fn fn = rec->type < sizeof decoders / sizeof decoders[0] ? decoders[rec->type] : NULL;
    if (!fn || rec->size < PV_RECORD_HEADER_SIZE) {
        pv_strbuf_puts(out, "{}");
        return 0;
    }
    decoder d = {
        .f = f, .rec = rec, .out = out, .err = err, .first = true,
        .name = pv_record_type_name(rec->type),
    };
    uint64_t body = (uint64_t)rec->size - PV_RECORD_HEADER_SIZE;
    pv_sample_id trailer = {0};
    bool has_trailer = false;
    if (rec->type < PV_RECORD_KERNEL_TYPE_END && rec->type != PV_RECORD_SAMPLE && f->nr_attrs) {
        if (pv_sample_id_decode(f, rec, &trailer, err))
            return -1;
        has_trailer = trailer.fields != 0;
        body -= trailer.size;   /* pv_sample_id_decode checked size <= body */
    }
    pv_cursor_init(&d.c, rec->bytes + PV_RECORD_HEADER_SIZE, body,
                   rec->file_offset + PV_RECORD_HEADER_SIZE, f->swap);
    pv_strbuf_append(out, "{", 1);
    if (fn(&d))
        return -1;
    if (d.c.failed)
        return malformed(&d, "%s at offset 0x%llx goes past the end of the %s (%llu bytes)",
                         d.fail_field ? d.fail_field : "a field",
                         (unsigned long long)d.c.fail_offset,
                         has_trailer ? "body before the sample_id trailer" : "body",
                         (unsigned long long)body);
    if (has_trailer)
        put_sample_id(&d, &trailer);
    pv_strbuf_append(out, "}", 1);
    return 0;
}
