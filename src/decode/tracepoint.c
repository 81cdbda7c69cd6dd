#include "decode/tracepoint.h"
#include "decode/trace_format_check.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/json_writer.h"
#include "format/perf_abi.h"
#include "format/user_records.h"
#include "base/byte_reader.h"
#include "stream/record_walk.h"
#include "base/pv_alloc.h"

/* perf_event_attr.type of a tracepoint; attr.config is its format id. */
#define ATTR_TYPE_TRACEPOINT 2
/* simpleperf's own record carrying the tracing data inside the record. */
#define SIMPLEPERF_RECORD_TRACING_DATA 32777
/* Bytes of a pipe-mode HEADER_TRACING_DATA record: header, u32 size, pad. */
#define PIPE_TRACING_RECORD_SIZE 16
/* A tracing-data blob (formats, kallsyms, printk strings) is some MB at
 * most; a larger size field is a damaged file, not a reason to allocate. */
#define MAX_TRACING_DATA (256u << 20)

struct pv_trace {
    struct tep_handle *tep;
    size_t nr_attrs;
    struct tep_event **events;  /* per attr: its format, or NULL */
    char **names;               /* per attr: "system:name", or NULL */
};

void pv_trace_free(pv_trace *t)
{
    if (!t)
        return;
    /* names is NULL when allocating it failed (name_events) */
    for (size_t i = 0; t->names && i < t->nr_attrs; i++)
        free(t->names[i]);
    free(t->names);
    free(t->events);
    if (t->tep)
        tep_free(t->tep);
    free(t);
}

/* ---- finding the tracing data ------------------------------------------ */

/* The bytes of the tracing data and where they start in the file; *data is
 * malloc'ed (freed by the caller), NULL when the file has none. */
typedef struct tracing_blob {
    uint8_t *data;
    uint64_t size;
    uint64_t offset;
} tracing_blob;

static int copy_blob(tracing_blob *b, const uint8_t *p, uint64_t size, uint64_t offset,
                     const pv_file *f, pv_error *err)
{
    if (size > MAX_TRACING_DATA)
        return pv_error_set(err, "%s: tracing data at offset 0x%llx claims %llu bytes (more than "
                            "%u): damaged file", f->data_path, (unsigned long long)offset,
                            (unsigned long long)size, MAX_TRACING_DATA);
    b->data = pv_malloc(size ? size : 1);
    if (!b->data)
        return pv_error_set(err, "%s: out of memory for %llu bytes of tracing data",
                            f->data_path, (unsigned long long)size);
    if (size)
        memcpy(b->data, p, size);
    b->size = size;
    b->offset = offset;
    return 0;
}

/* A pipe's tracing data follows its record in the stream: read from the
 * file itself, since pv_record.bytes covers only header.size. */
static int read_pipe_payload(tracing_blob *b, const pv_file *f, const pv_record *rec,
                             pv_error *err)
{
    uint64_t at = rec->file_offset;
    if (rec->compressed || rec->segment != 0 || rec->size < PIPE_TRACING_RECORD_SIZE)
        return pv_error_set(err, "%s: HEADER_TRACING_DATA record at offset 0x%llx: size %u, "
                            "not the 16-byte record of a pipe stream", f->data_path,
                            (unsigned long long)at, rec->size);
    pv_rec_tracing_data td;
    if (pv_rec_tracing_data_decode(f, rec, &td, err))
        return -1;
    uint64_t size = td.size;
    if (size > MAX_TRACING_DATA)
        return pv_error_set(err, "%s: HEADER_TRACING_DATA record at offset 0x%llx claims %llu "
                            "bytes of tracing data (more than %u): damaged file", f->data_path,
                            (unsigned long long)at, (unsigned long long)size, MAX_TRACING_DATA);
    uint64_t start = at + rec->size;
    b->data = pv_malloc(size ? size : 1);
    if (!b->data)
        return pv_error_set(err, "%s: out of memory for %llu bytes of tracing data",
                            f->data_path, (unsigned long long)size);
    if (pv_file_read(f, 0, start, b->data, size, err))
        return -1;
    b->size = size;
    b->offset = start;
    return 0;
}

/* simpleperf: {header; u32 size; data[size]} with the data inside the record. */
static int read_inner_payload(tracing_blob *b, const pv_file *f, const pv_record *rec,
                              pv_error *err)
{
    pv_rec_tracing_data td;
    if (pv_rec_tracing_data_decode(f, rec, &td, err))
        return -1;
    if (td.size > td.inside_len)
        return pv_error_set(err, "%s: tracing data record at offset 0x%llx (size %u) is too "
                            "short for its %u bytes of data", f->data_path,
                            (unsigned long long)rec->file_offset, rec->size, td.size);
    return copy_blob(b, td.inside, td.size, td.inside_offset, f, err);
}

/* Records that carry the tracing data come before the first sample. */
static int find_tracing_record(pv_file *f, tracing_blob *b, pv_error *err)
{
    pv_walk w;
    pv_record rec;
    int rc;
    pv_walk_start(&w, f);
    while ((rc = pv_walk_next(&w, &rec, err)) == 1) {
        if (rec.type == PV_RECORD_SAMPLE)
            break;
        if (rec.type == PV_RECORD_HEADER_TRACING_DATA) {
            rc = f->pipe ? read_pipe_payload(b, f, &rec, err) : read_inner_payload(b, f, &rec, err);
            break;
        }
        if (rec.type == SIMPLEPERF_RECORD_TRACING_DATA) {
            rc = read_inner_payload(b, f, &rec, err);
            break;
        }
    }
    pv_walk_end(&w);
    return rc < 0 ? -1 : 0;
}

static int find_tracing_data(pv_file *f, tracing_blob *b, pv_error *err)
{
    memset(b, 0, sizeof *b);
    if (!f->pipe && pv_file_has_feature(f, 1 /* HEADER_TRACING_DATA */)) {
        const uint8_t *p;
        uint64_t size, offset;
        if (pv_file_feature_bytes(f, 1, &p, &size, &offset, err))
            return -1;
        return copy_blob(b, p, size, offset, f, err);
    }
    return find_tracing_record(f, b, err);
}

/* ---- parsing it ----------------------------------------------------------
 *
 * The tracing data (trace-cmd's format; integers in the byte order its own
 * big_endian byte names, which is the recording machine's):
 *
 *   char magic[10]      "\027\010\104tracing"
 *   char version[]      NUL-terminated, e.g. "0.6"
 *   u8   big_endian
 *   u8   long_size      bytes of a kernel long
 *   u32  page_size
 *   char "header_page\0";  u64 size; text[size]  (ring-buffer page header format)
 *   char "header_event\0"; u64 size; text[size]  (unused)
 *   u32  count; count x {u64 size; text[size]}    ftrace's own event formats
 *   u32  systems; systems x {char system[] (NUL-terminated); u32 count;
 *                            count x {u64 size; text[size]}}   event formats
 *   u32  size; text[size]   kallsyms (empty in recent perf)
 *   u32  size; text[size]   printk formats "addr : \"fmt\"" lines
 *   version >= 0.6: u64 size; text[size]   saved cmdlines "pid comm" lines
 */

typedef struct blob_reader {
    pv_byte_reader c;
    const pv_file *f;
    pv_error *err;
} blob_reader;

static int truncated(blob_reader *r, const char *what)
{
    return pv_error_set(r->err, "%s: tracing data ends inside its %s at offset 0x%llx",
                        r->f->data_path, what, (unsigned long long)r->c.fail_offset);
}

/* size bytes of text as a NUL-terminated copy (libtraceevent wants one). */
static char *take_text(blob_reader *r, uint64_t size, const char *what)
{
    const uint8_t *p = pv_bytes_take(&r->c, size);
    if (!p) {
        truncated(r, what);
        return NULL;
    }
    char *s = pv_malloc(size + 1);
    if (!s) {
        pv_error_set(r->err, "%s: out of memory", r->f->data_path);
        return NULL;
    }
    memcpy(s, p, size);
    s[size] = '\0';
    return s;
}

/* A NUL-terminated string in the blob. */
static const char *take_cstring(blob_reader *r, const char *what)
{
    uint64_t left = pv_bytes_left(&r->c);
    const uint8_t *p = r->c.data + r->c.pos;
    const uint8_t *nul = left ? memchr(p, 0, (size_t)left) : NULL;
    if (!nul) {
        pv_error_set(r->err, "%s: tracing data: the %s at offset 0x%llx is not NUL-terminated",
                     r->f->data_path, what, (unsigned long long)pv_bytes_offset(&r->c));
        return NULL;
    }
    pv_bytes_skip(&r->c, (uint64_t)(nul - p) + 1);
    return (const char *)p;
}

static int expect_tag(blob_reader *r, const char *tag)
{
    size_t n = strlen(tag) + 1;
    uint64_t at = pv_bytes_offset(&r->c);
    const uint8_t *p = pv_bytes_take(&r->c, n);
    if (!p || memcmp(p, tag, n) != 0)
        return pv_error_set(r->err, "%s: tracing data: expected \"%s\" at offset 0x%llx",
                            r->f->data_path, tag, (unsigned long long)at);
    return 0;
}

/* Formats libtraceevent rejects are skipped, as perf skips them: their
 * samples get no fields, the rest of the file still does.  So are formats
 * it would crash on (trace_format_check.h). */
static int parse_format(blob_reader *r, struct tep_handle *tep, const char *system,
                        const char *what)
{
    uint64_t size = pv_bytes_u64(&r->c);
    if (r->c.failed)
        return truncated(r, what);
    char *text = take_text(r, size, what);
    if (!text)
        return -1;
    /* libtraceevent reads past a NUL; the check does not: both stop there */
    if (pv_trace_format_is_safe(text))
        tep_parse_event(tep, text, (unsigned long)strlen(text), system);
    free(text);
    return 0;
}

/* A u32 count that the bytes left can hold (each entry takes min_entry). */
static int take_count(blob_reader *r, uint32_t *count, uint64_t min_entry, const char *what)
{
    uint64_t at = pv_bytes_offset(&r->c);
    *count = pv_bytes_u32(&r->c);
    if (r->c.failed)
        return truncated(r, what);
    if (*count > pv_bytes_left(&r->c) / min_entry)
        return pv_error_set(r->err, "%s: tracing data: %u %s at offset 0x%llx cannot fit in the "
                            "%llu bytes left", r->f->data_path, *count, what,
                            (unsigned long long)at, (unsigned long long)pv_bytes_left(&r->c));
    return 0;
}

static int parse_tracing_data(blob_reader *r, struct tep_handle *tep)
{
    static const uint8_t magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
    const uint8_t *m = pv_bytes_take(&r->c, sizeof magic);
    if (!m || memcmp(m, magic, sizeof magic) != 0)
        return pv_error_set(r->err, "%s: tracing data at offset 0x%llx does not start with "
                            "\"\\027\\010\\104tracing\"", r->f->data_path,
                            (unsigned long long)r->c.file_offset);
    const char *version = take_cstring(r, "version string");
    if (!version)
        return -1;
    uint8_t big_endian = pv_bytes_u8(&r->c);
    uint8_t long_size = pv_bytes_u8(&r->c);
    bool host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
    r->c.swap = (big_endian != 0) != host_big;
    uint32_t page_size = pv_bytes_u32(&r->c);
    if (r->c.failed)
        return truncated(r, "header");
    tep_set_file_bigendian(tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(tep, host_big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_long_size(tep, long_size);
    tep_set_page_size(tep, (int)page_size);

    if (expect_tag(r, "header_page"))
        return -1;
    uint64_t size = pv_bytes_u64(&r->c);
    char *text = take_text(r, size, "header_page");
    if (!text)
        return -1;
    /* The page header's commit field is a kernel long: trust it over the
     * long_size byte, as perf does. */
    if (tep_parse_header_page(tep, text, (unsigned long)size, long_size) == 0)
        tep_set_long_size(tep, tep_get_header_page_size(tep));
    free(text);
    if (expect_tag(r, "header_event"))
        return -1;
    size = pv_bytes_u64(&r->c);
    if (r->c.failed || !pv_bytes_skip(&r->c, size))
        return truncated(r, "header_event");

    uint32_t count;
    if (take_count(r, &count, 8, "ftrace formats"))
        return -1;
    for (uint32_t i = 0; i < count; i++)
        if (parse_format(r, tep, "ftrace", "ftrace format"))
            return -1;
    uint32_t systems;
    if (take_count(r, &systems, 5, "event systems"))
        return -1;
    for (uint32_t s = 0; s < systems; s++) {
        const char *system = take_cstring(r, "system name");
        if (!system || take_count(r, &count, 8, "event formats"))
            return -1;
        for (uint32_t i = 0; i < count; i++)
            if (parse_format(r, tep, system, "event format"))
                return -1;
    }

    /* kallsyms, printk formats and saved cmdlines only serve to print an
     * event as text (symbol names, trace_printk strings, comms); the fields
     * do not need them, so they are stepped over, not parsed. */
    size = pv_bytes_u32(&r->c);
    if (r->c.failed || !pv_bytes_skip(&r->c, size))
        return truncated(r, "kallsyms");
    size = pv_bytes_u32(&r->c);
    if (r->c.failed || !pv_bytes_skip(&r->c, size))
        return truncated(r, "printk formats");
    return 0;
}

static int name_events(pv_trace *t, const pv_file *f, pv_error *err)
{
    t->nr_attrs = f->nr_attrs;
    t->events = pv_calloc(f->nr_attrs ? f->nr_attrs : 1, sizeof *t->events);
    t->names = pv_calloc(f->nr_attrs ? f->nr_attrs : 1, sizeof *t->names);
    if (!t->events || !t->names)
        return pv_error_set(err, "%s: out of memory", f->data_path);
    for (size_t i = 0; i < f->nr_attrs; i++) {
        const pv_attr *a = &f->attrs[i];
        if (!pv_attr_is_tracepoint(a) || a->config > INT32_MAX)
            continue;
        struct tep_event *e = tep_find_event(t->tep, (int)a->config);
        if (!e)
            continue;
        t->events[i] = e;
        if (pv_asprintf(&t->names[i], "%s:%s", e->system, e->name) < 0) {
            t->names[i] = NULL;
            return pv_error_set(err, "%s: out of memory", f->data_path);
        }
    }
    return 0;
}

static int load(pv_file *f, pv_trace **out, pv_error *err)
{
    tracing_blob b;
    *out = NULL;
    if (find_tracing_data(f, &b, err)) {
        free(b.data);
        return -1;
    }
    if (!b.data)
        return 0;
    pv_trace *t = pv_calloc(1, sizeof *t);
    if (!t || !(t->tep = tep_alloc())) {
        free(t);
        free(b.data);
        return pv_error_set(err, "%s: out of memory", f->data_path);
    }
    blob_reader r = {.f = f, .err = err};
    pv_byte_reader_init(&r.c, b.data, b.size, b.offset, false);
    int rc = parse_tracing_data(&r, t->tep);
    free(b.data);
    if (rc || name_events(t, f, err)) {
        pv_trace_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

/* The key of the parsed formats among the file's derived state. */
static const char trace_key;

static void free_trace(void *t)
{
    pv_trace_free(t);
}

int pv_trace_get(pv_file *f, pv_trace **out, pv_error *err)
{
    void *kept;
    if (!pv_file_state_get(f, &trace_key, &kept)) {
        pv_trace *t = NULL;
        if (load(f, &t, err))
            return -1;
        /* NULL too is kept: a file without tracing data is asked once. */
        if (pv_file_state_set(f, &trace_key, t, free_trace, err))
            return -1;
        kept = t;
    }
    *out = kept;
    return 0;
}

bool pv_attr_is_tracepoint(const pv_attr *a)
{
    return a->type == ATTR_TYPE_TRACEPOINT;
}

const char *pv_trace_event_name(const pv_trace *t, int attr_index)
{
    if (!t || attr_index < 0 || (size_t)attr_index >= t->nr_attrs)
        return NULL;
    return t->names[attr_index];
}

/* ---- one sample's fields ------------------------------------------------ */

static uint64_t load_number(const uint8_t *p, unsigned size, bool swap)
{
    switch (size) {
    case 1: return p[0];
    case 2: return pv_load_u16(p, swap);
    case 4: return pv_load_u32(p, swap);
    case 8: return pv_load_u64(p, swap);
    default: return 0;
    }
}

static void put_number(pv_json_writer *w, uint64_t v, unsigned size, bool is_signed)
{
    if (is_signed && size < 8) {
        unsigned shift = 64 - 8 * size;
        v = (uint64_t)((int64_t)(v << shift) >> shift);
    }
    if (is_signed)
        pv_json_i64(w, (int64_t)v);
    else
        pv_json_u64(w, v);
}

/* Text up to its NUL: a string when the array ends in a NUL and what
 * precedes the first NUL is printable. */
static bool is_printable_text(const uint8_t *p, uint64_t n)
{
    if (n == 0 || p[n - 1] != 0)
        return false;
    for (uint64_t i = 0; i < n && p[i]; i++)
        if (!isprint(p[i]) && !isspace(p[i]))
            return false;
    return true;
}

static int put_field(pv_json_writer *w, const struct tep_format_field *fd, const uint8_t *raw,
                     uint64_t raw_size, bool swap)
{
    uint64_t off = (unsigned)fd->offset, len = (unsigned)fd->size;
    if (off > raw_size || raw_size - off < len)
        return -1;
    if (fd->flags & TEP_FIELD_IS_DYNAMIC) {
        /* __data_loc: a u32 {u16 offset; u16 len} to the data; __rel_loc:
         * the offset counts from the end of the field. */
        if (len < 4)
            return -1;
        uint32_t loc = pv_load_u32(raw + off, swap);
        uint64_t at = loc & 0xffff;
        if (fd->flags & TEP_FIELD_IS_RELATIVE)
            at += off + len;
        off = at;
        len = loc >> 16;
        if (off > raw_size || raw_size - off < len)
            return -1;
    }
    const uint8_t *p = raw + off;
    if ((fd->flags & TEP_FIELD_IS_STRING) && is_printable_text(p, len)) {
        pv_json_cstring(w, (const char *)p);
        return 0;
    }
    bool is_signed = fd->flags & TEP_FIELD_IS_SIGNED;
    if (!(fd->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))) {
        put_number(w, load_number(p, (unsigned)len, swap), (unsigned)len, is_signed);
        return 0;
    }
    unsigned element = fd->elementsize;
    if ((fd->flags & TEP_FIELD_IS_STRING) || element == 0 || element > 8 ||
        (element & (element - 1)) != 0)
        element = 1;
    pv_json_array_begin(w);
    for (uint64_t i = 0; i + element <= len; i += element)
        put_number(w, load_number(p + i, element, swap), element, is_signed);
    pv_json_array_end(w);
    return 0;
}

int pv_trace_fields_json(pv_trace *t, const pv_file *f, const pv_record *rec,
                         const pv_sample *s, pv_strbuf *out, pv_error *err)
{
    if (!t || s->attr_index < 0 || (size_t)s->attr_index >= t->nr_attrs ||
        !(s->sample_type & PV_SAMPLE_RAW))
        return 0;
    struct tep_event *e = t->events[s->attr_index];
    if (!e)
        return 0;
    bool swap = tep_is_file_bigendian(t->tep) != tep_is_local_bigendian(t->tep);
    pv_json_writer w;
    pv_json_init(&w, out);
    pv_json_object_begin(&w);
    for (const struct tep_format_field *fd = e->format.fields; fd; fd = fd->next) {
        pv_json_key(&w, fd->name);
        if (put_field(&w, fd, s->raw, s->raw_size, swap))
            return pv_error_set(err, "%s: sample at offset 0x%llx: its %u-byte RAW payload is too "
                                "short for field %s of %s:%s", f->data_path,
                                (unsigned long long)rec->file_offset, s->raw_size, fd->name,
                                e->system, e->name);
    }
    pv_json_object_end(&w);
    return 1;
}

/* ---- single fields ------------------------------------------------------- */

static struct tep_event *event_of(const pv_trace *t, const pv_sample *s)
{
    if (!t || s->attr_index < 0 || (size_t)s->attr_index >= t->nr_attrs ||
        !(s->sample_type & PV_SAMPLE_RAW))
        return NULL;
    return t->events[s->attr_index];
}

int pv_trace_field_int(const pv_trace *t, const pv_sample *s, const char *name, int64_t *out)
{
    struct tep_event *e = event_of(t, s);
    struct tep_format_field *fd = e ? tep_find_field(e, name) : NULL;
    if (!fd || (fd->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)))
        return 0;
    uint64_t off = (unsigned)fd->offset, len = (unsigned)fd->size;
    if (len == 0 || len > 8 || (len & (len - 1)) != 0)
        return 0;
    if (off > s->raw_size || s->raw_size - off < len)
        return -1;
    bool swap = tep_is_file_bigendian(t->tep) != tep_is_local_bigendian(t->tep);
    uint64_t v = load_number(s->raw + off, (unsigned)len, swap);
    if ((fd->flags & TEP_FIELD_IS_SIGNED) && len < 8) {
        unsigned shift = 64 - 8 * (unsigned)len;
        v = (uint64_t)((int64_t)(v << shift) >> shift);
    }
    *out = (int64_t)v;
    return 1;
}

bool pv_trace_printed_field(const pv_trace *t, const pv_sample *s, const char *name, char *buf,
                            size_t size)
{
    struct tep_event *e = event_of(t, s);
    if (!e || size == 0 || s->raw_size > INT32_MAX)
        return false;
    /* libtraceevent reads the payload through a non-const pointer but does
     * not write it */
    struct tep_record record = {
        .size = (int)s->raw_size,
        .data = (void *)(uintptr_t)s->raw,
    };
    struct trace_seq seq;
    trace_seq_init(&seq);
    tep_print_event(t->tep, &seq, &record, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(&seq);
    bool found = false;
    size_t key_len = strlen(name);
    for (const char *p = seq.buffer; p && (p = strstr(p, name)) != NULL; p += key_len) {
        if ((p != seq.buffer && p[-1] != ' ') || p[key_len] != '=')
            continue;
        const char *v = p + key_len + 1;
        size_t n = strcspn(v, " ");
        if (n >= size)
            n = size - 1;
        memcpy(buf, v, n);
        buf[n] = '\0';
        found = true;
        break;
    }
    trace_seq_destroy(&seq);
    return found;
}
