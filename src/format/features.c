/*
 * Feature sections decoded into SQL values: the table of decoders, and the
 * features up to perf 6.1 (features_recent.c decodes those perf added later).
 *
 * Every decoder reads through one pv_byte_reader over the section, so reads are
 * bounds-checked and byte-swapped in one place.  Counts read from the file
 * are checked against the bytes left (times the least an element can take)
 * before any loop, so a lying count costs nothing.  A perf_header_string is
 * {u32 len; char str[len]} with str NUL-padded (pv_read_header_string).
 */
#include "format/features.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/attr.h"
#include "format/build_ids.h"
#include "base/json_writer.h"
#include "format/perf_abi.h"
#include "base/byte_reader.h"
#include "format/section_errors.h"
#include "format/event_desc.h"
#include "format/features_internal.h"

typedef int (*feature_decoder)(feature_ctx *x);

static pv_section_place place(const feature_ctx *x)
{
    return (pv_section_place){x->f, x->name, x->offset};
}

/* "<file>: <feature> feature at offset 0x..: <what>" */
int pv_feature_fail(feature_ctx *x, const char *fmt, ...)
{
    pv_section_place at = place(x);
    va_list ap;
    va_start(ap, fmt);
    int rc = pv_section_vfail(&at, x->err, fmt, ap);
    va_end(ap);
    return rc;
}

int pv_feature_truncated(feature_ctx *x)
{
    pv_section_place at = place(x);
    return pv_section_truncated(&at, &x->c, x->err);
}

static int check_count(feature_ctx *x, uint64_t nr, uint64_t min_each, uint64_t count_offset,
                       const char *what)
{
    pv_section_place at = place(x);
    return pv_section_check_count(&at, &x->c, nr, min_each, count_offset, what, x->err);
}

/* Reads a u32 count of elements of at least min_each bytes. */
int pv_feature_read_count32(feature_ctx *x, uint64_t min_each, const char *what, uint32_t *nr)
{
    uint64_t at = pv_bytes_offset(&x->c);
    *nr = pv_bytes_u32(&x->c);
    return check_count(x, *nr, min_each, at, what);
}

static int read_count64(feature_ctx *x, uint64_t min_each, const char *what, uint64_t *nr)
{
    uint64_t at = pv_bytes_offset(&x->c);
    *nr = pv_bytes_u64(&x->c);
    return check_count(x, *nr, min_each, at, what);
}

/* A perf_header_string as a JSON string; false once the reader failed. */
bool pv_feature_json_header_string(feature_ctx *x)
{
    uint64_t len;
    const char *s = pv_read_header_string(&x->c, &len);
    if (!s)
        return false;
    pv_json_string(&x->w, s, (size_t)len);
    return true;
}

void pv_feature_key_u64(feature_ctx *x, const char *name, uint64_t v)
{
    pv_json_key_u64(&x->w, name, v);
}

/* i32 values perf prints signed (core and socket ids). */
static void key_i32(feature_ctx *x, const char *name, uint32_t v)
{
    pv_json_key_i64(&x->w, name, (int32_t)v);
}

bool pv_feature_key_string(feature_ctx *x, const char *name)
{
    pv_json_key(&x->w, name);
    return pv_feature_json_header_string(x);
}

int pv_feature_done(feature_ctx *x, pv_feature_value_kind kind)
{
    if (x->c.failed)
        return pv_feature_truncated(x);
    x->kind = kind;
    return 0;
}

/* hostname, osrelease, version, arch, cpudesc, cpuid: one perf_header_string. */
static int decode_string(feature_ctx *x)
{
    /* perf 3.14 on ARM wrote an empty cpudesc section; perf reads "(null)" */
    if (x->c.size == 0) {
        x->kind = PV_FEATURE_VALUE_NULL;
        return 0;
    }
    uint64_t len;
    const char *s = pv_read_header_string(&x->c, &len);
    if (!s)
        return pv_feature_truncated(x);
    pv_strbuf_append(x->out, s, (size_t)len);
    return pv_feature_done(x, PV_FEATURE_VALUE_TEXT);
}

/* A perf_header_string_list {u32 nr; perf_header_string strings[nr]} as a
 * JSON array. */
static int string_list(feature_ctx *x, const char *what)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 4, what, &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++)
        if (!pv_feature_json_header_string(x))
            return pv_feature_truncated(x);
    pv_json_array_end(&x->w);
    return 0;
}

/* cmdline: perf_header_string_list (argv[0] is perf's own path). */
static int decode_cmdline(feature_ctx *x)
{
    if (string_list(x, "argument"))
        return -1;
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* total_mem: u64 kB.  clockid: u64 clock resolution in ns. */
static int decode_u64_integer(feature_ctx *x)
{
    x->integer = (int64_t)pv_bytes_u64(&x->c);
    return pv_feature_done(x, PV_FEATURE_VALUE_INTEGER);
}

/* nrcpus: u32 nr_cpus_available; u32 nr_cpus_online. */
static int decode_nrcpus(feature_ctx *x)
{
    uint32_t available = pv_bytes_u32(&x->c);
    uint32_t online = pv_bytes_u32(&x->c);
    pv_json_object_begin(&x->w);
    pv_feature_key_u64(x, "online", online);
    pv_feature_key_u64(x, "available", available);
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* branch_stack and stat: a flag without payload. */
static int decode_flag(feature_ctx *x)
{
    pv_json_object_begin(&x->w);
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/*
 * tracing_data: the tracepoint formats and kallsyms perf needs to read RAW
 * samples, in trace-cmd's format; summarised, not decoded:
 *   char magic[10] = "\027\010\104tracing"; char version[] (NUL-terminated);
 *   u8 big_endian; u8 long_size; u32 page_size; ... (event formats)
 */
static int decode_tracing_data(feature_ctx *x)
{
    static const uint8_t magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
    pv_json_object_begin(&x->w);
    pv_feature_key_u64(x, "size", x->c.size);
    const uint8_t *m = pv_bytes_take(&x->c, sizeof magic);
    if (!m || memcmp(m, magic, sizeof magic) != 0) {
        /* Not trace-cmd data: still a valid summary of an opaque blob. */
        pv_json_object_end(&x->w);
        x->kind = PV_FEATURE_VALUE_JSON;
        return 0;
    }
    const uint8_t *rest = x->c.data + x->c.pos;
    uint64_t left = pv_bytes_left(&x->c);
    const uint8_t *nul = memchr(rest, 0, (size_t)left);
    if (!nul)
        return pv_feature_fail(x, "tracing data version string at offset 0x%llx is not terminated",
                    (unsigned long long)pv_bytes_offset(&x->c));
    uint64_t vlen = (uint64_t)(nul - rest);
    pv_json_key(&x->w, "version");
    pv_json_string(&x->w, (const char *)rest, (size_t)vlen);
    pv_bytes_skip(&x->c, vlen + 1);
    uint8_t big_endian = pv_bytes_u8(&x->c);
    uint8_t long_size = pv_bytes_u8(&x->c);
    /* page_size is in the byte order the big_endian byte names */
    const uint8_t *ps = pv_bytes_take(&x->c, 4);
    if (!ps)
        return pv_feature_truncated(x);
    bool host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
    uint32_t page_size = pv_load_u32(ps, (big_endian != 0) != host_big);
    pv_json_key(&x->w, "big_endian");
    pv_json_bool(&x->w, big_endian != 0);
    pv_feature_key_u64(x, "long_size", long_size);
    pv_feature_key_u64(x, "page_size", page_size);
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* build_id: build_ids.h describes the entries. */
static int decode_build_id(feature_ctx *x)
{
    pv_build_id_iter it;
    pv_build_ids_start(&it, x->f->data_path, "build_id feature", x->c.data, x->c.size,
                       x->offset, x->f->swap);
    pv_build_id b;
    int rc;
    pv_json_array_begin(&x->w);
    while ((rc = pv_build_ids_next(&it, &b, x->err)) == 1) {
        pv_json_object_begin(&x->w);
        pv_json_key(&x->w, "pid");
        pv_json_i64(&x->w, b.pid);
        pv_json_key(&x->w, "cpumode");
        pv_json_cstring(&x->w, pv_cpumode_name(b.misc & PV_MISC_CPUMODE_MASK));
        pv_json_key(&x->w, "build_id");
        pv_json_hex(&x->w, b.id, b.id_len);
        pv_json_key(&x->w, "filename");
        pv_json_string(&x->w, b.filename, (size_t)b.filename_len);
        pv_json_object_end(&x->w);
    }
    if (rc < 0)
        return -1;
    pv_json_array_end(&x->w);
    x->kind = PV_FEATURE_VALUE_JSON;
    return 0;
}

/* event_desc: its entries (format/event_desc.h) */
static int decode_event_desc(feature_ctx *x)
{
    pv_event_desc_iter it;
    if (pv_event_desc_start(&it, x->f, x->c.data, x->c.size, x->offset, x->err))
        return -1;
    pv_json_array_begin(&x->w);
    pv_event_desc_entry e;
    int rc;
    while ((rc = pv_event_desc_next(&it, &e, x->err)) == 1) {
        pv_json_object_begin(&x->w);
        pv_json_key(&x->w, "name");
        pv_json_string(&x->w, e.name, (size_t)e.name_len);
        pv_json_key(&x->w, "ids");
        pv_json_array_begin(&x->w);
        for (uint32_t k = 0; k < e.nr_ids; k++)
            pv_json_i64(&x->w, (int64_t)pv_event_desc_id(&e, k));
        pv_json_array_end(&x->w);
        pv_json_key(&x->w, "attr");
        pv_attr_write_json(&e.attr, &x->w);
        pv_json_object_end(&x->w);
    }
    if (rc < 0)
        return -1;
    pv_json_array_end(&x->w);
    x->kind = PV_FEATURE_VALUE_JSON;
    return 0;
}

/* nr_cpus_available from the nrcpus feature, which sizes the per-cpu parts
 * of cpu_topology; false when the file lacks it. */
static bool cpus_available(feature_ctx *x, uint32_t *nr)
{
    const uint8_t *bytes;
    uint64_t size, offset;
    pv_error ignored;
    if (!pv_file_has_feature(x->f, PV_FEATURE_NRCPUS) ||
        pv_file_feature_bytes(x->f, PV_FEATURE_NRCPUS, &bytes, &size, &offset, &ignored) ||
        size < 4)
        return false;
    *nr = pv_load_u32(bytes, x->f->swap);
    return true;
}

/* Steps over a perf_header_string_list, checking it; the reader ends past it. */
static int skip_string_list(feature_ctx *x, const char *what)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 4, what, &nr))
        return -1;
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t len;
        if (!pv_read_header_string(&x->c, &len))
            return pv_feature_truncated(x);
    }
    return 0;
}

/*
 * cpu_topology grew twice; an older writer stops earlier, which a reader
 * sees as the section ending:
 *   perf_header_string_list cores;     sibling cores lists, e.g. "0-7"
 *   perf_header_string_list threads;   sibling threads lists
 *   -- since 4.6 --
 *   struct { u32 core_id; u32 socket_id; } cpus[nr_cpus_available];
 *   -- since 5.2 --
 *   perf_header_string_list dies;
 *   u32 die_id[nr_cpus_available];
 * nr_cpus_available comes from the nrcpus feature.
 */
static int decode_cpu_topology(feature_ctx *x)
{
    pv_json_object_begin(&x->w);
    pv_json_key(&x->w, "cores");
    if (string_list(x, "sibling cores"))
        return -1;
    pv_json_key(&x->w, "threads");
    if (string_list(x, "sibling threads"))
        return -1;
    uint32_t nr;
    if (pv_bytes_left(&x->c) == 0 || !cpus_available(x, &nr)) {
        pv_json_object_end(&x->w);
        return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
    }
    pv_byte_reader cpus = x->c;
    if (check_count(x, nr, 8, pv_bytes_offset(&x->c), "cpu (nrcpus available)"))
        return -1;
    pv_bytes_skip(&x->c, (uint64_t)nr * 8);
    bool has_dies = pv_bytes_left(&x->c) > 0;
    pv_byte_reader dies = x->c, die_ids = x->c;
    if (has_dies) {
        if (skip_string_list(x, "sibling dies"))
            return -1;
        die_ids = x->c;
        if (check_count(x, nr, 4, pv_bytes_offset(&x->c), "die id (nrcpus available)"))
            return -1;
        pv_bytes_skip(&x->c, (uint64_t)nr * 4);
    }
    pv_json_key(&x->w, "cpus");
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        key_i32(x, "core_id", pv_bytes_u32(&cpus));
        key_i32(x, "socket_id", pv_bytes_u32(&cpus));
        if (has_dies)
            key_i32(x, "die_id", pv_bytes_u32(&die_ids));
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    if (has_dies) {
        pv_json_key(&x->w, "dies");
        pv_byte_reader here = x->c;
        x->c = dies;
        if (string_list(x, "sibling dies"))
            return -1;
        x->c = here;
    }
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/*
 * numa_topology:
 *   u32 nr;
 *   nr times: u32 nodenr; u64 mem_total; u64 mem_free (kB);
 *             perf_header_string cpus (a cpu list, "0-3")
 */
static int decode_numa_topology(feature_ctx *x)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 4 + 8 + 8 + 4, "node", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        pv_feature_key_u64(x, "node", pv_bytes_u32(&x->c));
        pv_feature_key_u64(x, "mem_total", pv_bytes_u64(&x->c));
        pv_feature_key_u64(x, "mem_free", pv_bytes_u64(&x->c));
        if (!pv_feature_key_string(x, "cpus"))
            return pv_feature_truncated(x);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* pmu_mappings: u32 nr; nr times: u32 pmu_type; perf_header_string pmu_name */
static int decode_pmu_mappings(feature_ctx *x)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 8, "pmu", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        pv_feature_key_u64(x, "type", pv_bytes_u32(&x->c));
        if (!pv_feature_key_string(x, "name"))
            return pv_feature_truncated(x);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* group_desc: u32 nr; nr times: perf_header_string name; u32 leader_idx; u32 nr_members */
static int decode_group_desc(feature_ctx *x)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 12, "group", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        if (!pv_feature_key_string(x, "name"))
            return pv_feature_truncated(x);
        pv_feature_key_u64(x, "leader_idx", pv_bytes_u32(&x->c));
        pv_feature_key_u64(x, "nr_members", pv_bytes_u32(&x->c));
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/*
 * auxtrace: the index of AUXTRACE records in the file:
 *   u64 nr; nr times: u64 file_offset; u64 sz
 * simpleperf writes the entries without nr; its sections are a multiple of
 * 16 bytes long, perf's never are (8 + 16 * nr).
 */
static int decode_auxtrace(feature_ctx *x)
{
    uint64_t nr;
    if (x->c.size % 16 == 0)
        nr = x->c.size / 16;
    else if (read_count64(x, 16, "index entry", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint64_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        pv_feature_key_u64(x, "file_offset", pv_bytes_u64(&x->c));
        pv_feature_key_u64(x, "sz", pv_bytes_u64(&x->c));
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/*
 * cache:
 *   u32 version (1); u32 nr;
 *   nr times: u32 level, line_size, sets, ways;
 *             perf_header_string type ("Data"), size ("32K"), map ("0-1")
 */
static int decode_cache(feature_ctx *x)
{
    uint64_t version_at = pv_bytes_offset(&x->c);
    uint32_t version = pv_bytes_u32(&x->c);
    if (!x->c.failed && version != 1)
        return pv_feature_fail(x, "version %u at offset 0x%llx is not 1, the only layout known",
                    version, (unsigned long long)version_at);
    uint32_t nr;
    if (pv_feature_read_count32(x, 4 * 4 + 3 * 4, "cache level", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        pv_feature_key_u64(x, "level", pv_bytes_u32(&x->c));
        pv_feature_key_u64(x, "line_size", pv_bytes_u32(&x->c));
        pv_feature_key_u64(x, "sets", pv_bytes_u32(&x->c));
        pv_feature_key_u64(x, "ways", pv_bytes_u32(&x->c));
        if (!pv_feature_key_string(x, "type") || !pv_feature_key_string(x, "size") ||
            !pv_feature_key_string(x, "map"))
            return pv_feature_truncated(x);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* sample_time: u64 first; u64 last (perf clock ns of the first and last sample) */
static int decode_sample_time(feature_ctx *x)
{
    pv_json_object_begin(&x->w);
    pv_feature_key_u64(x, "first", pv_bytes_u64(&x->c));
    pv_feature_key_u64(x, "last", pv_bytes_u64(&x->c));
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* A bitmap of nbits bits in u64 words as a string listing ranges,
 * "0-23,32-199": digits, commas and dashes, which need no escaping. */
static void bitmap_ranges(feature_ctx *x, pv_byte_reader words, uint64_t nbits)
{
    bool first = true;
    uint64_t word = 0;
    uint64_t start = 0;
    bool in_range = false;
    pv_strbuf *out = pv_json_raw_begin(&x->w);
    pv_strbuf_puts(out, "\"");
    for (uint64_t bit = 0; bit <= nbits; bit++) {
        bool set = false;
        if (bit < nbits) {
            if (bit % 64 == 0)
                word = pv_bytes_u64(&words);
            set = (word >> (bit % 64)) & 1;
        }
        if (set && !in_range) {
            start = bit;
            in_range = true;
        } else if (!set && in_range) {
            pv_strbuf_printf(out, "%s%llu", first ? "" : ",", (unsigned long long)start);
            if (bit - 1 > start)
                pv_strbuf_printf(out, "-%llu", (unsigned long long)(bit - 1));
            first = false;
            in_range = false;
        }
    }
    pv_strbuf_puts(out, "\"");
}

/*
 * mem_topology:
 *   u64 version (1); u64 block_size (bytes per memory block); u64 nr;
 *   nr times: u64 node; u64 size (bits in the bitmap);
 *             u64 nbits (size again); u64 words[(nbits + 63) / 64]
 *             bit i set: memory block i belongs to the node
 */
static int decode_mem_topology(feature_ctx *x)
{
    pv_json_object_begin(&x->w);
    pv_feature_key_u64(x, "version", pv_bytes_u64(&x->c));
    pv_feature_key_u64(x, "block_size", pv_bytes_u64(&x->c));
    uint64_t nr;
    if (read_count64(x, 24, "node", &nr))
        return -1;
    pv_json_key(&x->w, "nodes");
    pv_json_array_begin(&x->w);
    for (uint64_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        pv_feature_key_u64(x, "node", pv_bytes_u64(&x->c));
        pv_feature_key_u64(x, "size", pv_bytes_u64(&x->c));
        uint64_t nbits_at = pv_bytes_offset(&x->c);
        uint64_t nbits = pv_bytes_u64(&x->c);
        uint64_t nwords = nbits / 64 + (nbits % 64 != 0);
        if (check_count(x, nwords, 8, nbits_at, "bitmap word"))
            return -1;
        pv_byte_reader words = x->c;
        pv_bytes_skip(&x->c, nwords * 8);
        pv_json_key(&x->w, "set");
        bitmap_ranges(x, words, nbits);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* dir_format: u64 version (1: data.N files of raw records) */
static int decode_dir_format(feature_ctx *x)
{
    pv_json_object_begin(&x->w);
    pv_feature_key_u64(x, "version", pv_bytes_u64(&x->c));
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/*
 * bpf_prog_info: summarised (id, type, tag and sizes; the info and its
 * arrays are kernel-version dependent):
 *   u32 nr;
 *   nr times: u32 info_len; u32 data_len; u64 arrays;
 *             u8 info[info_len]   (struct bpf_prog_info: u32 type; u32 id;
 *                                  u8 tag[8]; ...)
 *             u8 data[data_len]
 */
static int decode_bpf_prog_info(feature_ctx *x)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 16, "program", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t info_len = pv_bytes_u32(&x->c);
        uint32_t data_len = pv_bytes_u32(&x->c);
        pv_bytes_u64(&x->c);
        const uint8_t *info = pv_bytes_take(&x->c, info_len);
        if (!info || !pv_bytes_skip(&x->c, data_len))
            return pv_feature_truncated(x);
        pv_json_object_begin(&x->w);
        if (info_len >= 8) {
            pv_feature_key_u64(x, "type", pv_load_u32(info, x->f->swap));
            pv_feature_key_u64(x, "id", pv_load_u32(info + 4, x->f->swap));
            if (info_len >= 16) {
                pv_json_key(&x->w, "tag");
                pv_json_hex(&x->w, info + 8, 8);
            }
        }
        pv_feature_key_u64(x, "info_len", info_len);
        pv_feature_key_u64(x, "data_len", data_len);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* bpf_btf: u32 nr; nr times: u32 id; u32 data_size; u8 data[data_size] (BTF, not decoded) */
static int decode_bpf_btf(feature_ctx *x)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 8, "BTF", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t id = pv_bytes_u32(&x->c);
        uint32_t data_size = pv_bytes_u32(&x->c);
        if (!pv_bytes_skip(&x->c, data_size))
            return pv_feature_truncated(x);
        pv_json_object_begin(&x->w);
        pv_feature_key_u64(x, "id", id);
        pv_feature_key_u64(x, "data_size", data_size);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* compressed: u32 version; u32 type (1: zstd); u32 level; u32 ratio; u32 mmap_len */
static int decode_compressed(feature_ctx *x)
{
    static const char *const names[] = {"version", "type", "level", "ratio", "mmap_len"};
    pv_json_object_begin(&x->w);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        pv_feature_key_u64(x, names[i], pv_bytes_u32(&x->c));
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* {u32 nr; nr times: perf_header_string name, value} as a JSON object */
static int caps_object(feature_ctx *x)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 8, "capability", &nr))
        return -1;
    pv_json_object_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t len;
        const char *name = pv_read_header_string(&x->c, &len);
        if (!name)
            return pv_feature_truncated(x);
        pv_json_key_len(&x->w, name, (size_t)len);
        if (!pv_feature_json_header_string(x))
            return pv_feature_truncated(x);
    }
    pv_json_object_end(&x->w);
    return 0;
}

/* cpu_pmu_caps: u32 nr; nr times: perf_header_string name; perf_header_string value */
static int decode_cpu_pmu_caps(feature_ctx *x)
{
    if (caps_object(x))
        return -1;
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* clock_data: u32 version (1); u32 clockid; u64 wall_clock_ns; u64 clockid_time_ns */
static int decode_clock_data(feature_ctx *x)
{
    uint64_t version_at = pv_bytes_offset(&x->c);
    uint32_t version = pv_bytes_u32(&x->c);
    if (!x->c.failed && version != 1)
        return pv_feature_fail(x, "version %u at offset 0x%llx is not 1, the only layout known",
                    version, (unsigned long long)version_at);
    pv_json_object_begin(&x->w);
    pv_feature_key_u64(x, "version", version);
    pv_feature_key_u64(x, "clockid", pv_bytes_u32(&x->c));
    pv_feature_key_u64(x, "wall_clock_ns", pv_bytes_u64(&x->c));
    pv_feature_key_u64(x, "clockid_time_ns", pv_bytes_u64(&x->c));
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* hybrid_topology: u32 nr; nr times: perf_header_string pmu_name; perf_header_string cpus */
static int decode_hybrid_topology(feature_ctx *x)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 8, "pmu", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        if (!pv_feature_key_string(x, "pmu_name") || !pv_feature_key_string(x, "cpus"))
            return pv_feature_truncated(x);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/*
 * pmu_caps (hybrid_cpu_pmu_caps before perf 6.0, same layout):
 *   u32 nr_pmu;
 *   nr_pmu times: u32 nr_caps; {perf_header_string name, value}[nr_caps];
 *                 perf_header_string pmu_name
 */
static int decode_pmu_caps(feature_ctx *x)
{
    uint32_t nr;
    if (pv_feature_read_count32(x, 8, "pmu", &nr))
        return -1;
    pv_json_array_begin(&x->w);
    for (uint32_t i = 0; i < nr; i++) {
        pv_json_object_begin(&x->w);
        pv_json_key(&x->w, "caps");
        if (caps_object(x))
            return -1;
        if (!pv_feature_key_string(x, "pmu_name"))
            return pv_feature_truncated(x);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

static const struct {
    const char *name;
    feature_decoder decode;
} features[PV_FEATURE_LAST_KNOWN + 1] = {
    [PV_FEATURE_TRACING_DATA] = {"tracing_data", decode_tracing_data},
    [PV_FEATURE_BUILD_ID] = {"build_id", decode_build_id},
    [PV_FEATURE_HOSTNAME] = {"hostname", decode_string},
    [PV_FEATURE_OSRELEASE] = {"osrelease", decode_string},
    [PV_FEATURE_VERSION] = {"version", decode_string},
    [PV_FEATURE_ARCH] = {"arch", decode_string},
    [PV_FEATURE_NRCPUS] = {"nrcpus", decode_nrcpus},
    [PV_FEATURE_CPUDESC] = {"cpudesc", decode_string},
    [PV_FEATURE_CPUID] = {"cpuid", decode_string},
    [PV_FEATURE_TOTAL_MEM] = {"total_mem", decode_u64_integer},
    [PV_FEATURE_CMDLINE] = {"cmdline", decode_cmdline},
    [PV_FEATURE_EVENT_DESC] = {"event_desc", decode_event_desc},
    [PV_FEATURE_CPU_TOPOLOGY] = {"cpu_topology", decode_cpu_topology},
    [PV_FEATURE_NUMA_TOPOLOGY] = {"numa_topology", decode_numa_topology},
    [PV_FEATURE_BRANCH_STACK] = {"branch_stack", decode_flag},
    [PV_FEATURE_PMU_MAPPINGS] = {"pmu_mappings", decode_pmu_mappings},
    [PV_FEATURE_GROUP_DESC] = {"group_desc", decode_group_desc},
    [PV_FEATURE_AUXTRACE] = {"auxtrace", decode_auxtrace},
    [PV_FEATURE_STAT] = {"stat", decode_flag},
    [PV_FEATURE_CACHE] = {"cache", decode_cache},
    [PV_FEATURE_SAMPLE_TIME] = {"sample_time", decode_sample_time},
    [PV_FEATURE_MEM_TOPOLOGY] = {"mem_topology", decode_mem_topology},
    [PV_FEATURE_CLOCKID] = {"clockid", decode_u64_integer},
    [PV_FEATURE_DIR_FORMAT] = {"dir_format", decode_dir_format},
    [PV_FEATURE_BPF_PROG_INFO] = {"bpf_prog_info", decode_bpf_prog_info},
    [PV_FEATURE_BPF_BTF] = {"bpf_btf", decode_bpf_btf},
    [PV_FEATURE_COMPRESSED] = {"compressed", decode_compressed},
    [PV_FEATURE_CPU_PMU_CAPS] = {"cpu_pmu_caps", decode_cpu_pmu_caps},
    [PV_FEATURE_CLOCK_DATA] = {"clock_data", decode_clock_data},
    [PV_FEATURE_HYBRID_TOPOLOGY] = {"hybrid_topology", decode_hybrid_topology},
    [PV_FEATURE_PMU_CAPS] = {"pmu_caps", decode_pmu_caps},
    [PV_FEATURE_CPU_DOMAIN_INFO] = {"cpu_domain_info", pv_feature_decode_cpu_domain_info},
    [PV_FEATURE_E_MACHINE] = {"e_machine", pv_feature_decode_e_machine},
    [PV_FEATURE_CLN_SIZE] = {"cln_size", pv_feature_decode_cln_size},
};

const char *pv_feature_name(unsigned id)
{
    return id <= PV_FEATURE_LAST_KNOWN ? features[id].name : NULL;
}

int pv_feature_decode(pv_file *f, unsigned id, pv_feature_value_kind *kind, int64_t *integer,
                      pv_strbuf *out, pv_error *err)
{
    *kind = PV_FEATURE_VALUE_NULL;
    *integer = 0;
    pv_strbuf_reset(out);
    if (id > PV_FEATURE_LAST_KNOWN || !features[id].decode || !pv_file_has_feature(f, id))
        return 0;
    const uint8_t *bytes;
    uint64_t size, offset;
    pv_error inner;
    if (pv_file_feature_bytes(f, id, &bytes, &size, &offset, &inner))
        return pv_error_set(err, "%s (the %s feature)", inner.msg, features[id].name);
    feature_ctx x = {
        .f = f, .name = features[id].name, .offset = offset, .out = out, .err = err,
        .kind = PV_FEATURE_VALUE_NULL,
    };
    pv_json_init(&x.w, out);
    pv_byte_reader_init(&x.c, bytes, size, offset, f->swap);
    if (features[id].decode(&x)) {
        pv_strbuf_reset(out);
        return -1;
    }
    if (out->failed)
        return pv_error_set(err, "%s: %s feature at offset 0x%llx: out of memory",
                            f->data_path, x.name, (unsigned long long)offset);
    if (x.kind == PV_FEATURE_VALUE_JSON && !pv_json_complete(&x.w))
        return pv_error_set(err, "%s: %s feature at offset 0x%llx: its decoder left the JSON "
                            "unfinished (a bug)", f->data_path, x.name, (unsigned long long)offset);
    *kind = x.kind;
    *integer = x.integer;
    return 0;
}
