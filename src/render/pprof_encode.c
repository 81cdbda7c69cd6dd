#include "render/pprof_encode.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "base/pv_alloc.h"
#include "base/pv_array.h"
#include "render/varint.h"

/*
 * The profile is written field by field as protobuf-c packs a message
 * (fields in number order; a proto3 scalar that is 0 left out; a packed
 * repeated field without elements left out; every element of a repeated
 * field written, an empty message as its tag and a length of 0), straight
 * into deflate through a small buffer: neither the message's structs nor
 * its uncompressed bytes are ever whole in memory.  t_pprof_bytes.sh holds
 * the output to the bytes protobuf-c's packing made before.
 */

enum { WIRE_VARINT = 0, WIRE_BYTES = 2 };

/* Profile's fields (profile.proto) */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5, PROFILE_STRING = 6, PROFILE_DURATION = 10, PROFILE_PERIOD_TYPE = 11,
    PROFILE_PERIOD = 12, PROFILE_COMMENT = 13, PROFILE_DEFAULT_TYPE = 14,
};

void pv_pprof_tables_free(pv_pprof_tables *t)
{
    pv_key_table_free(&t->strings);
    pv_key_table_free(&t->functions);
    pv_key_table_free(&t->mappings);
    pv_key_table_free(&t->locations);
    pv_key_table_free(&t->samples);
    free(t->counts);
    free(t->periods);
    memset(t, 0, sizeof *t);
}

/* A message being put together, to be written after its length. */
typedef struct message {
    uint8_t *bytes;
    size_t nr, cap;
    bool failed;        /* out of memory */
} message;

static void message_bytes(message *m, const void *p, size_t n)
{
    /* the room checked here first: most fields fit, and the call costs more than they do */
    if (m->failed ||
        (m->cap - m->nr <= n && !pv_array_grow((void **)&m->bytes, &m->cap, m->nr + n + 1, 1))) {
        m->failed = true;
        return;
    }
    if (n)
        memcpy(m->bytes + m->nr, p, n);
    m->nr += n;
}

static void message_varint(message *m, uint64_t v)
{
    uint8_t b[PV_VARINT_MAX];
    message_bytes(m, b, pv_varint_put(b, v));
}

/* A scalar field, left out when 0 (proto3). */
static void message_field(message *m, unsigned field, uint64_t v)
{
    if (!v)
        return;
    message_varint(m, (uint64_t)field << 3 | WIRE_VARINT);
    message_varint(m, v);
}

/* The tag and length of a length-delimited field ... */
static void message_delimited_head(message *m, unsigned field, size_t n)
{
    message_varint(m, (uint64_t)field << 3 | WIRE_BYTES);
    message_varint(m, n);
}

/* ... and the whole field: a packed array, a string, a message. */
static void message_delimited(message *m, unsigned field, const void *p, size_t n)
{
    message_delimited_head(m, field, n);
    message_bytes(m, p, n);
}

/* The profile's bytes on their way into deflate. */
typedef struct writer {
    z_stream z;
    uint8_t *out;               /* the gzip so far: z.total_out bytes */
    size_t cap_out;
    uint8_t buf[1 << 16];       /* the bytes not yet handed to deflate */
    size_t nr;
    message scratch;            /* the message being put together */
    message field;              /* a field of the profile (or its tag and length) */
    const pv_stop *stop;
    size_t until_check;         /* entries written before stop is asked again */
    const char *why;            /* set when it failed */
    pv_error *err;              /* set when stopped (why is then "stopped") */
} writer;

/* Asks stop every few thousand entries; false when the work must stop. */
static bool go_on(writer *w)
{
    if (w->why)
        return false;
    if (w->until_check > 0) {
        w->until_check--;
        return true;
    }
    w->until_check = 4096;
    if (pv_stop_check_point(w->stop, "writing the profile", w->err) == 0)
        return true;
    w->why = "stopped";
    return false;
}

/* Hands the buffer to deflate (flush: Z_NO_FLUSH or Z_FINISH), its output
 * growing as it needs. */
static bool drain(writer *w, int flush)
{
    if (w->why)
        return false;
    w->z.next_in = w->buf;
    w->z.avail_in = (uInt)w->nr;
    for (;;) {
        if (w->cap_out - w->z.total_out < 4096 &&
            !pv_array_grow((void **)&w->out, &w->cap_out, w->z.total_out + 65536, 1)) {
            w->why = "out of memory";
            return false;
        }
        size_t room = w->cap_out - w->z.total_out;
        w->z.next_out = w->out + w->z.total_out;
        w->z.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
        int rc = deflate(&w->z, flush);
        if (rc == Z_STREAM_END)
            break;
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            w->why = "zlib: deflate failed";
            return false;
        }
        /* everything taken, and deflate stopped for want of input, not of room */
        if (flush == Z_NO_FLUSH && w->z.avail_in == 0 && w->z.avail_out > 0)
            break;
    }
    w->nr = 0;
    return true;
}

static void put_bytes(writer *w, const void *p, size_t n)
{
    const uint8_t *from = p;
    while (n > 0 && !w->why) {
        if (w->nr == sizeof w->buf && !drain(w, Z_NO_FLUSH))
            return;
        size_t take = sizeof w->buf - w->nr < n ? sizeof w->buf - w->nr : n;
        memcpy(w->buf + w->nr, from, take);
        w->nr += take;
        from += take;
        n -= take;
    }
}

/* Writes the field put together in w->field, which it empties. */
static void flush_field(writer *w)
{
    if (w->field.failed) {
        w->why = "out of memory";
        return;
    }
    put_bytes(w, w->field.bytes, w->field.nr);
    w->field.nr = 0;
}

/* A field of the profile that is a scalar (left out when 0) */
static void put_field(writer *w, unsigned field, uint64_t v)
{
    message_field(&w->field, field, v);
    flush_field(w);
}

/* ... or one that is bytes (a string, a message): its tag and length,
 * then the bytes where they are */
static void put_delimited(writer *w, unsigned field, const void *p, size_t n)
{
    message_delimited_head(&w->field, field, n);
    flush_field(w);
    put_bytes(w, p, n);
}

/* ... or the message in w->scratch, which it empties */
static void put_message(writer *w, unsigned field)
{
    if (w->scratch.failed) {
        w->why = "out of memory";
        return;
    }
    put_delimited(w, field, w->scratch.bytes, w->scratch.nr);
    w->scratch.nr = 0;
}

/* Key i of a table of uint64 arrays (functions, mappings). */
static const uint64_t *words(const pv_key_table *t, size_t i)
{
    size_t len;
    return pv_key_table_key(t, i, &len);  /* whole words, so aligned */
}

static void put_value_type(writer *w, unsigned field, const int64_t type[2])
{
    message_field(&w->scratch, 1, (uint64_t)type[0]);
    message_field(&w->scratch, 2, (uint64_t)type[1]);
    put_message(w, field);
}

/* A sample key: its labels' string indexes, then its location ids
 * (pprof_encode.h), written as Sample {location_id, value, label}. */
static void put_samples(writer *w, const pv_pprof_tables *t)
{
    message *m = &w->scratch;
    for (size_t i = 0; i < t->samples.nr && go_on(w); i++) {
        size_t len;
        const uint8_t *p = pv_key_table_key(&t->samples, i, &len), *end = p + len;
        uint64_t labels[PV_PPROF_SAMPLE_LABEL_WORDS];
        for (int k = 0; k < PV_PPROF_SAMPLE_LABEL_WORDS; k++)
            if (!pv_varint_get(&p, end, &labels[k]))
                labels[k] = 0;      /* not reached: the builder wrote four */
        /* the location ids as varints are the packed field's content */
        if (end > p)
            message_delimited(m, 1, p, (size_t)(end - p));
        uint8_t values[2 * PV_VARINT_MAX];
        size_t n = pv_varint_put(values, (uint64_t)t->counts[i]);
        n += pv_varint_put(values + n, (uint64_t)t->periods[i]);
        message_delimited(m, 2, values, n);
        for (int k = 0; k < PV_PPROF_SAMPLE_LABEL_WORDS; k++) {
            if (!labels[k])
                continue;
            uint8_t label[4 + 2 * PV_VARINT_MAX];
            size_t l = 0;
            label[l++] = 1 << 3 | WIRE_VARINT;
            l += pv_varint_put(label + l, (uint64_t)t->label_keys[k]);
            label[l++] = 2 << 3 | WIRE_VARINT;
            l += pv_varint_put(label + l, labels[k]);
            message_delimited(m, 3, label, l);
        }
        put_message(w, PROFILE_SAMPLE);
    }
}

static void put_mappings(writer *w, const pv_pprof_tables *t)
{
    message *m = &w->scratch;
    for (size_t i = 0; i < t->mappings.nr && go_on(w); i++) {
        const uint64_t *k = words(&t->mappings, i);
        message_field(m, 1, i + 1);
        message_field(m, 2, k[0]);      /* start, limit, file offset */
        message_field(m, 3, k[1]);
        message_field(m, 4, k[2]);
        message_field(m, 5, k[3]);      /* file name, build-id */
        message_field(m, 6, k[4]);
        message_field(m, 7, (k[5] & PV_PPROF_MAPPING_FUNCTIONS) != 0);
        message_field(m, 8, (k[5] & PV_PPROF_MAPPING_FILENAMES) != 0);
        message_field(m, 9, (k[5] & PV_PPROF_MAPPING_LINES) != 0);
        message_field(m, 10, (k[5] & PV_PPROF_MAPPING_INLINES) != 0);
        put_message(w, PROFILE_MAPPING);
    }
}

/* A location key: mapping id, address, then per Line a function id and a
 * line, as varints (pprof_encode.h). */
static void put_locations(writer *w, const pv_pprof_tables *t)
{
    message *m = &w->scratch;
    for (size_t i = 0; i < t->locations.nr && go_on(w); i++) {
        size_t len;
        const uint8_t *p = pv_key_table_key(&t->locations, i, &len), *end = p + len;
        uint64_t mapping = 0, address = 0, function, line;
        if (!pv_varint_get(&p, end, &mapping) || !pv_varint_get(&p, end, &address))
            p = end;        /* not reached: the builder wrote both */
        message_field(m, 1, i + 1);
        message_field(m, 2, mapping);
        message_field(m, 3, address);
        while (pv_varint_get(&p, end, &function) && pv_varint_get(&p, end, &line)) {
            uint8_t body[2 + 2 * PV_VARINT_MAX];
            size_t n = 0;
            if (function) {
                body[n++] = 1 << 3 | WIRE_VARINT;
                n += pv_varint_put(body + n, function);
            }
            if (line) {
                body[n++] = 2 << 3 | WIRE_VARINT;
                n += pv_varint_put(body + n, line);
            }
            message_delimited(m, 4, body, n);
        }
        put_message(w, PROFILE_LOCATION);
    }
}

static void put_functions(writer *w, const pv_pprof_tables *t)
{
    message *m = &w->scratch;
    for (size_t i = 0; i < t->functions.nr && go_on(w); i++) {
        const uint64_t *k = words(&t->functions, i);
        message_field(m, 1, i + 1);
        message_field(m, 2, k[0]);      /* name, as system_name too */
        message_field(m, 3, k[0]);
        message_field(m, 4, k[1]);
        put_message(w, PROFILE_FUNCTION);
    }
}

static void put_strings(writer *w, const pv_pprof_tables *t)
{
    for (size_t i = 0; i < t->strings.nr && go_on(w); i++) {
        size_t len;
        const char *s = pv_key_table_key(&t->strings, i, &len);
        put_delimited(w, PROFILE_STRING, s, strlen(s));
    }
}

/* Writes t; owned (NULL, or t itself) has each table freed once written:
 * its memory goes back before the output grows with the next. */
static void put_profile(writer *w, const pv_pprof_tables *t, pv_pprof_tables *owned)
{
    put_value_type(w, PROFILE_SAMPLE_TYPE, t->count_type);
    put_value_type(w, PROFILE_SAMPLE_TYPE, t->period_type);
    put_samples(w, t);
    if (owned) {
        pv_key_table_free(&owned->samples);
        free(owned->counts);
        free(owned->periods);
        owned->counts = owned->periods = NULL;
        owned->cap_counts = owned->cap_periods = 0;
    }
    put_mappings(w, t);
    put_locations(w, t);
    if (owned)
        pv_key_table_free(&owned->locations);
    put_functions(w, t);
    put_strings(w, t);
    put_field(w, PROFILE_DURATION, (uint64_t)t->duration_nanos);
    put_value_type(w, PROFILE_PERIOD_TYPE, t->period_type);
    put_field(w, PROFILE_PERIOD, (uint64_t)t->period);
    if (t->comment) {
        uint8_t b[PV_VARINT_MAX];
        put_delimited(w, PROFILE_COMMENT, b, pv_varint_put(b, (uint64_t)t->comment));
    }
    /* the period is pprof's default (the last type, said again): perf
     * report's percentages are of the period */
    put_field(w, PROFILE_DEFAULT_TYPE, (uint64_t)t->period_type[0]);
}

static int encode(const pv_pprof_tables *t, pv_pprof_tables *owned, const pv_stop *stop,
                  uint8_t **out, size_t *out_len, pv_error *err)
{
    *out = NULL;
    *out_len = 0;
    writer *w = pv_calloc(1, sizeof *w);
    if (!w)
        return pv_error_set(err, "out of memory");
    /* 15 + 16: a 32 KiB window with the gzip header and trailer */
    if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(w);
        return pv_error_set(err, "zlib: deflateInit2 failed");
    }
    w->stop = stop;
    w->err = err;
    put_profile(w, t, owned);
    int rc = -1;
    if (drain(w, Z_FINISH)) {
        *out = w->out;
        *out_len = w->z.total_out;
        w->out = NULL;
        rc = 0;
    } else if (err->kind != PV_ERROR_STOPPED) {
        pv_error_set(err, "%s", w->why);
    }
    deflateEnd(&w->z);
    free(w->out);
    free(w->scratch.bytes);
    free(w->field.bytes);
    free(w);
    return rc;
}

int pv_pprof_encode(const pv_pprof_tables *t, const pv_stop *stop, uint8_t **out,
                    size_t *out_len, pv_error *err)
{
    return encode(t, NULL, stop, out, out_len, err);
}

int pv_pprof_encode_consuming(pv_pprof_tables *t, const pv_stop *stop, uint8_t **out,
                              size_t *out_len, pv_error *err)
{
    int rc = encode(t, t, stop, out, out_len, err);
    pv_pprof_tables_free(t);
    return rc;
}
