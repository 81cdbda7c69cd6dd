/*
 * perf_records.fields: the body of any record as a JSON object.
 *
 * One small decoder per record type, dispatched from a table indexed by the
 * type.  Each decoder reads its fields in file order through one cursor over
 * the record body (the sample_id_all trailer of kernel records excluded) and
 * writes them as it goes.  A read past the body only marks the cursor failed;
 * pv_record_fields_json then turns that into an error naming the field, the
 * file and the record's offset.  Every count read from the file is checked
 * against the bytes left before anything loops over it.
 *
 * Byte layouts below are offsets within the body, i.e. after the 8-byte
 * record header {u32 type; u16 misc; u16 size}.  Kernel layouts are those of
 * <linux/perf_event.h>; user-record (type >= 64) layouts those perf writes.
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
#include "sample.h"

#define RECORD_HEADER_SIZE 8

/* HEADER_BUILD_ID and MMAP2 hold at most this many build-id bytes. */
#define BUILD_ID_MAX 20

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

/* n bytes at the cursor as lower-case hex. */
static void put_hex(decoder *d, const char *k, uint64_t n)
{
    const uint8_t *p = pv_cursor_bytes(&d->c, n);
    note(d, k);
    key(d, k);
    pv_strbuf_append(d->out, "\"", 1);
    if (p)
        pv_strbuf_hex(d->out, p, (size_t)n);
    pv_strbuf_append(d->out, "\"", 1);
}

/* pid u32, tid u32: the pair most records start with. */
static void put_pid_tid(decoder *d)
{
    put_i32(d, "pid", pv_cursor_u32(&d->c));
    put_i32(d, "tid", pv_cursor_u32(&d->c));
}

/* ------------------------------------------------------------ kernel records */

/* MMAP: 0 pid u32, 4 tid u32, 8 start u64, 16 len u64, 24 pgoff u64, 32 filename[] */
static int decode_mmap(decoder *d)
{
    put_pid_tid(d);
    put_i64(d, "start", pv_cursor_u64(&d->c));
    put_i64(d, "len", pv_cursor_u64(&d->c));
    put_i64(d, "pgoff", pv_cursor_u64(&d->c));
    put_rest_string(d, "filename");
    return 0;
}

/* LOST: 0 id u64, 8 lost u64 */
static int decode_lost(decoder *d)
{
    put_i64(d, "id", pv_cursor_u64(&d->c));
    put_u64(d, "lost", pv_cursor_u64(&d->c));
    return 0;
}

/* COMM: 0 pid u32, 4 tid u32, 8 comm[] */
static int decode_comm(decoder *d)
{
    put_pid_tid(d);
    put_rest_string(d, "comm");
    return 0;
}

/* EXIT, FORK: 0 pid u32, 4 ppid u32, 8 tid u32, 12 ptid u32, 16 time u64 */
static int decode_task(decoder *d)
{
    put_i32(d, "pid", pv_cursor_u32(&d->c));
    put_i32(d, "ppid", pv_cursor_u32(&d->c));
    put_i32(d, "tid", pv_cursor_u32(&d->c));
    put_i32(d, "ptid", pv_cursor_u32(&d->c));
    put_u64(d, "time", pv_cursor_u64(&d->c));
    return 0;
}

/* THROTTLE, UNTHROTTLE: 0 time u64, 8 id u64, 16 stream_id u64 */
static int decode_throttle(decoder *d)
{
    put_u64(d, "time", pv_cursor_u64(&d->c));
    put_i64(d, "id", pv_cursor_u64(&d->c));
    put_i64(d, "stream_id", pv_cursor_u64(&d->c));
    return 0;
}

/* READ: 0 pid u32, 4 tid u32, 8 the event's read_format block:
 *   not GROUP: value, [time_enabled], [time_running], [id], [lost]
 *   GROUP:     nr, [time_enabled], [time_running], nr x {value, [id], [lost]}
 * The event is the record's (by its trailer id), else the first. */
static int decode_read(decoder *d)
{
    int index = d->f->nr_attrs ? pv_record_attr_index(d->f, d->rec) : -1;
    if (index < 0 && d->f->nr_attrs)
        index = 0;
    uint64_t rf = index >= 0 ? d->f->attrs[index].read_format : 0;
    put_pid_tid(d);
    bool group = rf & PV_FORMAT_GROUP;
    uint64_t nr = 1;
    if (group) {
        nr = pv_cursor_u64(&d->c);
        put_u64(d, "nr", nr);
    } else {
        put_u64(d, "value", pv_cursor_u64(&d->c));
    }
    if (rf & PV_FORMAT_TOTAL_TIME_ENABLED)
        put_u64(d, "time_enabled", pv_cursor_u64(&d->c));
    if (rf & PV_FORMAT_TOTAL_TIME_RUNNING)
        put_u64(d, "time_running", pv_cursor_u64(&d->c));
    if (!group) {
        if (rf & PV_FORMAT_ID)
            put_i64(d, "id", pv_cursor_u64(&d->c));
        if (rf & PV_FORMAT_LOST)
            put_u64(d, "lost", pv_cursor_u64(&d->c));
        return 0;
    }
    uint64_t per_value = 8 + ((rf & PV_FORMAT_ID) ? 8 : 0) + ((rf & PV_FORMAT_LOST) ? 8 : 0);
    if (check_count(d, "read group", nr, per_value))
        return -1;
    open_array(d, "values");
    for (uint64_t i = 0; i < nr; i++) {
        open_object(d, NULL);
        put_u64(d, "value", pv_cursor_u64(&d->c));
        if (rf & PV_FORMAT_ID)
            put_i64(d, "id", pv_cursor_u64(&d->c));
        if (rf & PV_FORMAT_LOST)
            put_u64(d, "lost", pv_cursor_u64(&d->c));
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

/* MMAP2: 0 pid u32, 4 tid u32, 8 start u64, 16 len u64, 24 pgoff u64,
 *   32 either {maj u32, min u32, ino u64, ino_generation u64}
 *          or, when misc & MMAP_BUILD_ID, {build_id_size u8, 3 reserved, build_id[20]},
 *   56 prot u32, 60 flags u32, 64 filename[] */
static int decode_mmap2(decoder *d)
{
    put_pid_tid(d);
    put_i64(d, "start", pv_cursor_u64(&d->c));
    put_i64(d, "len", pv_cursor_u64(&d->c));
    put_i64(d, "pgoff", pv_cursor_u64(&d->c));
    if (d->rec->misc & PV_MISC_MMAP_BUILD_ID) {
        uint8_t size = pv_cursor_u8(&d->c);
        note(d, "build_id_size");
        pv_cursor_skip(&d->c, 3);
        if (!d->c.failed && size > BUILD_ID_MAX)
            return malformed(d, "build-id size %u (> %d)", size, BUILD_ID_MAX);
        put_hex(d, "build_id", size);
        pv_cursor_skip(&d->c, BUILD_ID_MAX - size);
    } else {
        put_u64(d, "maj", pv_cursor_u32(&d->c));
        put_u64(d, "min", pv_cursor_u32(&d->c));
        put_i64(d, "ino", pv_cursor_u64(&d->c));
        put_i64(d, "ino_generation", pv_cursor_u64(&d->c));
    }
    put_u64(d, "prot", pv_cursor_u32(&d->c));
    put_u64(d, "flags", pv_cursor_u32(&d->c));
    put_rest_string(d, "filename");
    return 0;
}

/* AUX: 0 aux_offset u64, 8 aux_size u64, 16 flags u64 */
static int decode_aux(decoder *d)
{
    put_u64(d, "aux_offset", pv_cursor_u64(&d->c));
    put_u64(d, "aux_size", pv_cursor_u64(&d->c));
    put_i64(d, "flags", pv_cursor_u64(&d->c));
    return 0;
}

/* ITRACE_START: 0 pid u32, 4 tid u32 */
static int decode_itrace_start(decoder *d)
{
    put_pid_tid(d);
    return 0;
}

/* LOST_SAMPLES: 0 lost u64 */
static int decode_lost_samples(decoder *d)
{
    put_u64(d, "lost", pv_cursor_u64(&d->c));
    return 0;
}

/* SWITCH: no body; misc bit 13 = switch out, bit 14 = preempted. */
static int decode_switch(decoder *d)
{
    put_bool(d, "out", d->rec->misc & PV_MISC_SWITCH_OUT);
    put_bool(d, "preempt", d->rec->misc & PV_MISC_SWITCH_OUT_PREEMPT);
    return 0;
}

/* SWITCH_CPU_WIDE: 0 next_prev_pid u32, 4 next_prev_tid u32; misc as SWITCH. */
static int decode_switch_cpu_wide(decoder *d)
{
    decode_switch(d);
    put_i32(d, "next_prev_pid", pv_cursor_u32(&d->c));
    put_i32(d, "next_prev_tid", pv_cursor_u32(&d->c));
    return 0;
}

/* NAMESPACES: 0 pid u32, 4 tid u32, 8 nr_namespaces u64, 16 nr x {dev u64, ino u64} */
static int decode_namespaces(decoder *d)
{
    put_pid_tid(d);
    uint64_t nr = pv_cursor_u64(&d->c);
    put_u64(d, "nr_namespaces", nr);
    if (check_count(d, "namespaces", nr, 16))
        return -1;
    open_array(d, "namespaces");
    for (uint64_t i = 0; i < nr; i++) {
        open_object(d, NULL);
        put_i64(d, "dev", pv_cursor_u64(&d->c));
        put_i64(d, "ino", pv_cursor_u64(&d->c));
        close_object(d);
    }
    close_array(d);
    return 0;
}

/* KSYMBOL: 0 addr u64, 8 len u32, 12 ksym_type u16, 14 flags u16, 16 name[] */
static int decode_ksymbol(decoder *d)
{
    put_i64(d, "addr", pv_cursor_u64(&d->c));
    put_u64(d, "len", pv_cursor_u32(&d->c));
    put_u64(d, "ksym_type", pv_cursor_u16(&d->c));
    put_u64(d, "flags", pv_cursor_u16(&d->c));
    put_rest_string(d, "name");
    return 0;
}

/* BPF_EVENT: 0 type u16, 2 flags u16, 4 id u32, 8 tag[8] */
static int decode_bpf_event(decoder *d)
{
    put_u64(d, "type", pv_cursor_u16(&d->c));
    put_u64(d, "flags", pv_cursor_u16(&d->c));
    put_u64(d, "id", pv_cursor_u32(&d->c));
    put_hex(d, "tag", 8);
    return 0;
}

/* CGROUP: 0 id u64, 8 path[] */
static int decode_cgroup(decoder *d)
{
    put_i64(d, "id", pv_cursor_u64(&d->c));
    put_rest_string(d, "path");
    return 0;
}

/* TEXT_POKE: 0 addr u64, 8 old_len u16, 10 new_len u16,
 *   12 old_len bytes, new_len bytes, padding to 8 */
static int decode_text_poke(decoder *d)
{
    put_i64(d, "addr", pv_cursor_u64(&d->c));
    uint16_t old_len = pv_cursor_u16(&d->c);
    uint16_t new_len = pv_cursor_u16(&d->c);
    put_u64(d, "old_len", old_len);
    put_u64(d, "new_len", new_len);
    if (check_count(d, "text_poke bytes", (uint64_t)old_len + new_len, 1))
        return -1;
    put_hex(d, "old_bytes", old_len);
    put_hex(d, "new_bytes", new_len);
    return 0;
}

/* AUX_OUTPUT_HW_ID: 0 hw_id u64 */
static int decode_aux_output_hw_id(decoder *d)
{
    put_i64(d, "hw_id", pv_cursor_u64(&d->c));
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
    size_t size = BUILD_ID_MAX;
    if (d->rec->misc & PV_MISC_BUILD_ID_SIZE) {
        size = id[BUILD_ID_MAX];
        if (size > BUILD_ID_MAX)
            return malformed(d, "build-id size %zu (> %d)", size, BUILD_ID_MAX);
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

/* STAT_CONFIG: 0 nr u64, 8 nr x {tag u64, val u64}; tags 0 aggr_mode,
 * 1 interval, 2 scale, 3 aggr_level; others written as "tag_<n>". */
static int decode_stat_config(decoder *d)
{
    static const char *const tags[] = {"aggr_mode", "interval", "scale", "aggr_level"};
    uint64_t nr = pv_cursor_u64(&d->c);
    note(d, "nr");
    if (check_count(d, "stat_config", nr, 16))
        return -1;
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t tag = pv_cursor_u64(&d->c);
        uint64_t val = pv_cursor_u64(&d->c);
        char name[32];
        if (tag < sizeof tags / sizeof tags[0])
            snprintf(name, sizeof name, "%s", tags[tag]);
        else
            snprintf(name, sizeof name, "tag_%llu", (unsigned long long)tag);
        put_u64(d, name, val);
    }
    return 0;
}

/* STAT: 0 id u64, 8 cpu u32, 12 thread u32, 16 val u64, 24 ena u64, 32 run u64 */
static int decode_stat(decoder *d)
{
    put_i64(d, "id", pv_cursor_u64(&d->c));
    put_i32(d, "cpu", pv_cursor_u32(&d->c));
    put_i32(d, "thread", pv_cursor_u32(&d->c));
    put_u64(d, "val", pv_cursor_u64(&d->c));
    put_u64(d, "ena", pv_cursor_u64(&d->c));
    put_u64(d, "run", pv_cursor_u64(&d->c));
    return 0;
}

/* STAT_ROUND: 0 type u64 (0 interval, 1 final), 8 time u64 */
static int decode_stat_round(decoder *d)
{
    put_u64(d, "type", pv_cursor_u64(&d->c));
    put_u64(d, "time", pv_cursor_u64(&d->c));
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
    [PV_RECORD_MMAP] = decode_mmap,
    [PV_RECORD_LOST] = decode_lost,
    [PV_RECORD_COMM] = decode_comm,
    [PV_RECORD_EXIT] = decode_task,
    [PV_RECORD_THROTTLE] = decode_throttle,
    [PV_RECORD_UNTHROTTLE] = decode_throttle,
    [PV_RECORD_FORK] = decode_task,
    [PV_RECORD_READ] = decode_read,
    [PV_RECORD_SAMPLE] = decode_sample,
    [PV_RECORD_MMAP2] = decode_mmap2,
    [PV_RECORD_AUX] = decode_aux,
    [PV_RECORD_ITRACE_START] = decode_itrace_start,
    [PV_RECORD_LOST_SAMPLES] = decode_lost_samples,
    [PV_RECORD_SWITCH] = decode_switch,
    [PV_RECORD_SWITCH_CPU_WIDE] = decode_switch_cpu_wide,
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
    if (!fn || rec->size < RECORD_HEADER_SIZE) {
        pv_strbuf_puts(out, "{}");
        return 0;
    }
    decoder d = {
        .f = f, .rec = rec, .out = out, .err = err, .first = true,
        .name = pv_record_type_name(rec->type),
    };
    uint64_t body = (uint64_t)rec->size - RECORD_HEADER_SIZE;
    pv_sample_id trailer = {0};
    bool has_trailer = false;
    if (rec->type < PV_RECORD_KERNEL_TYPE_END && rec->type != PV_RECORD_SAMPLE && f->nr_attrs) {
        if (pv_sample_id_decode(f, rec, &trailer, err))
            return -1;
        has_trailer = trailer.fields != 0;
        body -= trailer.size;   /* pv_sample_id_decode checked size <= body */
    }
    pv_cursor_init(&d.c, rec->bytes + RECORD_HEADER_SIZE, body,
                   rec->file_offset + RECORD_HEADER_SIZE, f->swap);
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
