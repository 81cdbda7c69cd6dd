/*
 * perf_records.fields of the user records (types from
 * PV_RECORD_KERNEL_TYPE_END on: HEADER_ATTR, EVENT_TYPE, TRACING_DATA,
 * BUILD_ID, FEATURE, ID_INDEX, AUXTRACE..., THREAD_MAP, CPU_MAP, STAT...,
 * EVENT_UPDATE, TIME_CONV, COMPRESSED...).  Those that other code reads too
 * come from their typed decoders (format/user_records.h, format/build_ids.h,
 * decode/record_types.h); those only this file reads are read here, field
 * by field through the byte reader in file order.  Every count read from the
 * file is checked against the bytes left before anything loops over it.
 */
#include "decode/record_fields_context.h"

#include <stdio.h>
#include <string.h>

#include "format/attr.h"
#include "format/build_ids.h"
#include "format/perf_abi.h"
#include "format/user_records.h"
#include "decode/record_types.h"

/* HEADER_ATTR: the attr and its ids (format/user_records.h) */
static int write_header_attr(pv_fields_decoder *d)
{
    pv_rec_header_attr h;
    if (pv_rec_header_attr_decode(d->f, d->rec, &h, d->err))
        return -1;
    pv_json_key(&d->w, "attr");
    pv_attr_json(&h.attr, pv_json_raw_begin(&d->w));
    pv_json_key(&d->w, "ids");
    pv_json_array_begin(&d->w);
    for (uint64_t i = 0; i < h.nr_ids; i++)
        pv_json_i64(&d->w, (int64_t)pv_rec_header_attr_id(&h, i));
    pv_json_array_end(&d->w);
    return 0;
}

/* HEADER_EVENT_TYPE: 0 event_id u64, 8 name[64] */
static int write_header_event_type(pv_fields_decoder *d)
{
    pv_field_i64(d, "event_id", pv_bytes_u64(&d->c));
    uint64_t left = pv_bytes_left(&d->c);
    pv_field_padded_string(d, "name", left < 64 ? left : 64);
    return 0;
}

static int write_header_tracing_data(pv_fields_decoder *d)
{
    pv_rec_tracing_data td;
    if (pv_rec_tracing_data_decode(d->f, d->rec, &td, d->err))
        return -1;
    pv_field_u64(d, "size", td.size);
    return 0;
}

/* HEADER_BUILD_ID: the record is one entry of a build-id table
 * (format/build_ids.h) */
static int write_header_build_id(pv_fields_decoder *d)
{
    pv_build_id_iter it;
    pv_build_id id;
    pv_build_ids_start_record(&it, d->f, d->rec);
    if (pv_build_ids_next(&it, &id, d->err) < 0)
        return -1;
    pv_field_i32(d, "pid", (uint32_t)id.pid);
    pv_field_hex(d, "build_id", id.id, id.id_len);
    pv_field_text(d, "filename", id.filename, id.filename_len);
    return 0;
}

/* FINISHED_ROUND, FINISHED_INIT: no body. */
static int write_empty(pv_fields_decoder *d)
{
    (void)d;
    return 0;
}

/* ID_INDEX: 0 nr u64, 8 nr x {id, idx, cpu, tid} (u64 each), and when the
 * body has room for them, nr x {machine_pid, vcpu} after all of those
 * (perf 6.0+ writes both arrays; older perf only the first). */
static int write_id_index(pv_fields_decoder *d)
{
    uint64_t nr = pv_bytes_u64(&d->c);
    pv_field_u64(d, "nr", nr);
    if (pv_fields_check_count(d, "id_index", nr, 32))
        return -1;
    bool second = pv_bytes_left(&d->c) / 48 >= nr;
    pv_byte_reader e2 = d->c;
    if (second)
        pv_bytes_skip(&e2, nr * 32);
    pv_json_key(&d->w, "entries");
    pv_json_array_begin(&d->w);
    for (uint64_t i = 0; i < nr; i++) {
        pv_json_object_begin(&d->w);
        pv_field_i64(d, "id", pv_bytes_u64(&d->c));
        pv_field_u64(d, "idx", pv_bytes_u64(&d->c));
        pv_field_i64(d, "cpu", pv_bytes_u64(&d->c));
        pv_field_i64(d, "tid", pv_bytes_u64(&d->c));
        if (second) {
            pv_field_i64(d, "machine_pid", pv_bytes_u64(&e2));
            pv_field_u64(d, "vcpu", pv_bytes_u64(&e2));
        }
        pv_json_object_end(&d->w);
    }
    pv_json_array_end(&d->w);
    return 0;
}

/* AUXTRACE_INFO: 0 type u32, 4 reserved u32, 8 priv u64[] to the end */
static int write_auxtrace_info(pv_fields_decoder *d)
{
    pv_field_u64(d, "type", pv_bytes_u32(&d->c));
    pv_bytes_skip(&d->c, 4);
    pv_fields_note(d, "reserved");
    uint64_t nr = pv_bytes_left(&d->c) / 8;
    pv_json_key(&d->w, "priv");
    pv_json_array_begin(&d->w);
    for (uint64_t i = 0; i < nr; i++)
        pv_json_i64(&d->w, (int64_t)pv_bytes_u64(&d->c));
    pv_json_array_end(&d->w);
    return 0;
}

static int write_auxtrace(pv_fields_decoder *d)
{
    pv_rec_auxtrace aux;
    if (pv_rec_auxtrace_decode(d->f, d->rec, &aux, d->err))
        return -1;
    pv_field_u64(d, "size", aux.size);
    pv_field_u64(d, "offset", aux.offset);
    pv_field_i64(d, "reference", aux.reference);
    pv_field_u64(d, "idx", aux.idx);
    pv_field_i32(d, "tid", aux.tid);
    pv_field_i32(d, "cpu", aux.cpu);
    return 0;
}

/* AUXTRACE_ERROR: 0 type u32, 4 code u32, 8 cpu u32, 12 pid u32, 16 tid u32,
 *   20 fmt u32, 24 ip u64, then
 *   fmt 0:  32 msg[64]
 *   fmt 1+: 32 time u64, 40 msg[64]
 *   fmt 2+: 104 machine_pid u32, 108 vcpu u32
 * perf cuts msg after its NUL (rounded up to 8) when there is no fmt-2 tail. */
static int write_auxtrace_error(pv_fields_decoder *d)
{
    pv_field_u64(d, "type", pv_bytes_u32(&d->c));
    pv_field_u64(d, "code", pv_bytes_u32(&d->c));
    pv_field_i32(d, "cpu", pv_bytes_u32(&d->c));
    pv_field_i32(d, "pid", pv_bytes_u32(&d->c));
    pv_field_i32(d, "tid", pv_bytes_u32(&d->c));
    uint32_t fmt = pv_bytes_u32(&d->c);
    pv_field_u64(d, "fmt", fmt);
    pv_field_i64(d, "ip", pv_bytes_u64(&d->c));
    if (fmt >= 1)
        pv_field_u64(d, "time", pv_bytes_u64(&d->c));
    uint64_t left = pv_bytes_left(&d->c);
    pv_field_padded_string(d, "msg", left < 64 ? left : 64);
    if (fmt >= 2) {
        pv_field_i32(d, "machine_pid", pv_bytes_u32(&d->c));
        pv_field_i32(d, "vcpu", pv_bytes_u32(&d->c));
    }
    return 0;
}

/* THREAD_MAP: 0 nr u64, 8 nr x {pid u64, comm[16]} */
static int write_thread_map(pv_fields_decoder *d)
{
    uint64_t nr = pv_bytes_u64(&d->c);
    pv_field_u64(d, "nr", nr);
    if (pv_fields_check_count(d, "thread_map", nr, 24))
        return -1;
    pv_json_key(&d->w, "threads");
    pv_json_array_begin(&d->w);
    for (uint64_t i = 0; i < nr; i++) {
        pv_json_object_begin(&d->w);
        pv_field_i32(d, "pid", (uint32_t)pv_bytes_u64(&d->c));
        pv_field_padded_string(d, "comm", 16);
        pv_json_object_end(&d->w);
    }
    pv_json_array_end(&d->w);
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
static int write_cpu_map_data(pv_fields_decoder *d)
{
    uint16_t type = pv_bytes_u16(&d->c);
    pv_fields_note(d, "cpu map type");
    if (d->c.failed)
        return 0;
    if (type == 0) {
        uint16_t nr = pv_bytes_u16(&d->c);
        pv_fields_note(d, "cpu map nr");
        if (pv_fields_check_count(d, "cpu map", nr, 2))
            return -1;
        pv_json_key(&d->w, "cpus");
        pv_json_array_begin(&d->w);
        for (uint16_t i = 0; i < nr; i++) {
            uint16_t cpu = pv_bytes_u16(&d->c);
            pv_json_i64(&d->w, cpu == 0xffff ? -1 : (int64_t)cpu);
        }
        pv_json_array_end(&d->w);
    } else if (type == 1) {
        uint16_t nr = pv_bytes_u16(&d->c);
        uint16_t long_size = pv_bytes_u16(&d->c);
        pv_fields_note(d, "cpu mask header");
        if (d->c.failed)
            return 0;
        if (long_size != 4 && long_size != 8)
            return pv_fields_malformed(d, "cpu mask long_size %u (not 4 or 8)", long_size);
        if (long_size == 8) {
            pv_bytes_skip(&d->c, 4);
            pv_fields_note(d, "cpu mask padding");
        }
        if (pv_fields_check_count(d, "cpu mask", nr, long_size))
            return -1;
        pv_json_key(&d->w, "cpus");
        pv_json_array_begin(&d->w);
        for (uint64_t w = 0; w < nr; w++) {
            uint64_t word = long_size == 8 ? pv_bytes_u64(&d->c) : pv_bytes_u32(&d->c);
            for (unsigned bit = 0; bit < 8u * long_size; bit++) {
                if ((word >> bit) & 1)
                    pv_json_u64(&d->w, w * 8 * long_size + bit);
            }
        }
        pv_json_array_end(&d->w);
    } else if (type == 2) {
        uint8_t any_cpu = pv_bytes_u8(&d->c);
        pv_bytes_u8(&d->c);
        uint16_t start = pv_bytes_u16(&d->c);
        uint16_t end = pv_bytes_u16(&d->c);
        pv_fields_note(d, "cpu range");
        if (d->c.failed)
            return 0;
        if (end < start)
            return pv_fields_malformed(d, "cpu range %u..%u ends before it starts", start, end);
        pv_json_key(&d->w, "cpus");
        pv_json_array_begin(&d->w);
        if (any_cpu)
            pv_json_i64(&d->w, -1);
        for (unsigned cpu = start; cpu <= end; cpu++)
            pv_json_u64(&d->w, cpu);
        pv_json_array_end(&d->w);
    } else {
        return pv_fields_malformed(d, "unknown cpu map type %u", type);
    }
    return 0;
}

/* CPU_MAP: 0 the cpu map (see write_cpu_map_data) */
static int write_cpu_map(pv_fields_decoder *d)
{
    return write_cpu_map_data(d);
}

/* STAT_CONFIG: tags other than those of perf written as "tag_<n>". */
static int write_stat_config(pv_fields_decoder *d)
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
        pv_field_u64(d, name, val);
    }
    return 0;
}

static int write_stat(pv_fields_decoder *d)
{
    pv_rec_stat st;
    if (pv_rec_stat_decode(d->f, d->rec, &st, d->err))
        return -1;
    pv_field_i64(d, "id", st.id);
    pv_field_i32(d, "cpu", st.cpu);
    pv_field_i32(d, "thread", st.thread);
    pv_field_u64(d, "val", st.val);
    pv_field_u64(d, "ena", st.ena);
    pv_field_u64(d, "run", st.run);
    return 0;
}

static int write_stat_round(pv_fields_decoder *d)
{
    pv_rec_stat_round r;
    if (pv_rec_stat_round_decode(d->f, d->rec, &r, d->err))
        return -1;
    pv_field_u64(d, "type", r.type);
    pv_field_u64(d, "time", r.time);
    return 0;
}

/* EVENT_UPDATE: type, id, and by type unit, scale, name or a cpu map
 * (format/user_records.h) */
static int write_event_update(pv_fields_decoder *d)
{
    pv_rec_event_update u;
    if (pv_rec_event_update_decode(d->f, d->rec, &u, d->err))
        return -1;
    pv_field_u64(d, "type", u.type);
    pv_field_i64(d, "id", u.id);
    switch (u.type) {
    case PV_EVENT_UPDATE_UNIT:
        pv_field_text(d, "unit", u.text, u.text_len);
        break;
    case PV_EVENT_UPDATE_SCALE:
        pv_json_key(&d->w, "scale");
        pv_json_double(&d->w, u.scale);   /* the shortest text that reads back the same */
        break;
    case PV_EVENT_UPDATE_NAME:
        pv_field_text(d, "name", u.text, u.text_len);
        break;
    case PV_EVENT_UPDATE_CPUS:
        pv_byte_reader_init(&d->c, u.payload, u.payload_size, u.payload_offset, d->f->swap);
        return write_cpu_map_data(d);
    default:
        break;
    }
    return 0;
}

/* TIME_CONV: 0 time_shift u64, 8 time_mult u64, 16 time_zero u64, and in
 * records of perf 5.11+: 24 time_cycles u64, 32 time_mask u64,
 * 40 cap_user_time_zero u8, 41 cap_user_time_short u8, 42 6 reserved */
static int write_time_conv(pv_fields_decoder *d)
{
    pv_field_u64(d, "time_shift", pv_bytes_u64(&d->c));
    pv_field_u64(d, "time_mult", pv_bytes_u64(&d->c));
    pv_field_i64(d, "time_zero", pv_bytes_u64(&d->c));   /* a negative offset in practice */
    if (pv_bytes_left(&d->c) >= 24) {
        pv_field_u64(d, "time_cycles", pv_bytes_u64(&d->c));
        pv_field_i64(d, "time_mask", pv_bytes_u64(&d->c));
        pv_field_u64(d, "cap_user_time_zero", pv_bytes_u8(&d->c));
        pv_field_u64(d, "cap_user_time_short", pv_bytes_u8(&d->c));
    }
    return 0;
}

static int write_header_feature(pv_fields_decoder *d)
{
    pv_rec_header_feature h;
    if (pv_rec_header_feature_decode(d->f, d->rec, &h, d->err))
        return -1;
    pv_field_u64(d, "feat_id", h.feat_id);
    return 0;
}

/* COMPRESSED, COMPRESSED2: data_size as written (format/user_records.h) */
static int write_compressed(pv_fields_decoder *d)
{
    pv_rec_compressed z;
    if (pv_rec_compressed_decode(d->f, d->rec, &z, d->err))
        return -1;
    pv_field_u64(d, "data_size", z.data_size);
    return 0;
}

/* BPF_METADATA: the program's name and its metadata as
 * [{"key":..,"value":..}, ...] (decode/record_types.h) */
static int write_bpf_metadata(pv_fields_decoder *d)
{
    pv_rec_bpf_metadata m;
    if (pv_rec_bpf_metadata_decode(d->f, d->rec, &m, d->err))
        return -1;
    pv_field_text(d, "prog_name", m.prog_name, m.prog_name_len);
    pv_json_key(&d->w, "entries");
    pv_json_array_begin(&d->w);
    for (uint64_t i = 0; i < m.nr_entries; i++) {
        const char *key, *value;
        uint64_t key_len, value_len;
        pv_rec_bpf_metadata_entry(&m, i, &key, &key_len, &value, &value_len);
        pv_json_object_begin(&d->w);
        pv_field_text(d, "key", key, key_len);
        pv_field_text(d, "value", value, value_len);
        pv_json_object_end(&d->w);
    }
    pv_json_array_end(&d->w);
    return 0;
}

/* SCHEDSTAT_CPU, SCHEDSTAT_DOMAIN: the header, then each counter of the
 * version's layout under perf's name; a version without a known layout
 * gives its counters' bytes as hex (decode/record_types.h) */
static int write_schedstat(pv_fields_decoder *d)
{
    pv_rec_schedstat s;
    if (pv_rec_schedstat_decode(d->f, d->rec, &s, d->err))
        return -1;
    pv_field_u64(d, "timestamp", s.timestamp);
    pv_field_u64(d, "cpu", s.cpu);
    pv_field_u64(d, "version", s.version);
    if (s.domain_record)
        pv_field_u64(d, "domain", s.domain);
    if (!s.layout) {
        pv_field_hex(d, "counters_unknown_layout", s.counters, s.counters_size);
        return 0;
    }
    for (size_t i = 0; i < s.nr_counters; i++)
        pv_field_u64(d, s.layout[i].name, pv_rec_schedstat_counter(&s, i));
    return 0;
}

/* write_<writer> of each row of format/record_type_list.h */
static const pv_fields_write_fn user_writers[] = {
    PV_USER_RECORD_TYPES(PV_RECORD_TYPE_WRITER)
};

pv_fields_write_fn pv_fields_user_writer(uint32_t type)
{
    if (type < PV_RECORD_KERNEL_TYPE_END || type >= sizeof user_writers / sizeof user_writers[0])
        return NULL;
    return user_writers[type];
}
