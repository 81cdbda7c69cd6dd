#include "analysis/diagnostics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/build_ids.h"
#include "format/event_names.h"
#include "format/features.h"
#include "format/perf_abi.h"
#include "format/user_records.h"
#include "base/pv_strbuf.h"
#include "decode/record_fields.h"
#include "decode/deferred_chains.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
#include "decode/sample.h"
#include "decode/tracepoint.h"
#include "base/pv_alloc.h"
#include "symbols/jitdump.h"

/* Per-type rows (unknown and malformed types): beyond this many distinct
 * types, the rest are counted in one row, so a file of random types cannot
 * make the table grow without bound. */
#define MAX_TYPE_ROWS 64
#define OTHER_TYPES UINT32_MAX
/* perf 6.16+ rounds COMPRESSED2 data_size up past the record's padding */
#define COMPRESSED2_PADDING 7

/* Records of one type, counted, with the first one's place and message. */
typedef struct type_tally {
    uint32_t type;
    uint64_t count;
    uint64_t first_record, first_offset;
    char *first_message;
} type_tally;

typedef struct type_tallies {
    type_tally items[MAX_TYPE_ROWS + 1];
    size_t nr;
} type_tallies;

/* Records of one kind, counted and summed. */
typedef struct tally {
    uint64_t count, sum, max;
    uint64_t first_record, first_offset;
} tally;

typedef struct collector {
    pv_file *f;
    pv_diagnostics *out;
    bool failed;                /* out of memory */
    type_tallies unknown_types, malformed;
    tally unknown_ids, lost, lost_samples, overstated, out_of_order, short_mmap2;
    /* COMPRESSED2 records the walk sized otherwise than header.size says,
     * and the first one's sizes */
    tally resized;
    uint64_t resized_written, resized_data_size, resized_size, resized_data_len;
    /* perf's ordered-events flush (see diagnostics.h) */
    uint64_t max_time;          /* largest time seen so far */
    uint64_t round_max_time;    /* max_time at the last FINISHED_ROUND */
    uint64_t flushed_up_to;     /* what the last FINISHED_ROUND flushed */
    uint64_t rounds;
    uint64_t first_late_time;
    uint64_t first_late_limit;  /* what was flushed when it came */
    uint64_t *samples_per_attr; /* f->nr_attrs counts, or NULL */
    bool deferred_chains;       /* a sample waits for a deferred callchain */
    const char *sysroot, *symdir;   /* where jitdumps are looked for too */
    int32_t *jit_pids;          /* processes whose jitdump was checked */
    size_t nr_jit_pids;
    tally offcpu_unreadable;    /* perf 6.14+ offcpu-time samples, raw data unread */
    const char *offcpu_problem; /* the first one's (static text) */
} collector;

static pv_diagnostic *add_row(collector *c, const char *kind, const char *severity,
                              const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static pv_diagnostic *add_row(collector *c, const char *kind, const char *severity,
                              const char *fmt, ...)
{
    pv_diagnostics *d = c->out;
    if (c->failed)
        return NULL;
    if (d->nr == d->capacity) {
        size_t capacity = d->capacity ? d->capacity * 2 : 16;
        pv_diagnostic *grown = pv_realloc(d->items, capacity * sizeof *grown);
        if (!grown) {
            c->failed = true;
            return NULL;
        }
        d->items = grown;
        d->capacity = capacity;
    }
    va_list ap;
    va_start(ap, fmt);
    char *message = NULL;
    int n = pv_vasprintf(&message, fmt, ap);
    va_end(ap);
    if (n < 0) {
        c->failed = true;
        return NULL;
    }
    pv_diagnostic *row = &d->items[d->nr++];
    memset(row, 0, sizeof *row);
    row->kind = kind;
    row->severity = severity;
    row->count = 1;
    row->message = message;
    return row;
}

static void set_place(pv_diagnostic *row, uint64_t record, uint64_t offset)
{
    if (!row)
        return;
    row->has_record = true;
    row->record = record;
    row->has_offset = true;
    row->file_offset = offset;
}

/* The offset an error message names ("offset 0x..."), for the row. */
static bool offset_in_message(const char *msg, uint64_t *offset)
{
    const char *at = strstr(msg, "offset 0x");
    if (!at)
        return false;
    *offset = strtoull(at + strlen("offset "), NULL, 16);
    return true;
}

/* ---- features ---- */

static void check_features(collector *c)
{
    pv_file *f = c->f;
    pv_strbuf text = {0};
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++) {
        if (!pv_file_has_feature(f, id))
            continue;
        const pv_section *s = &f->feature_sections[id];
        const char *name = pv_feature_name(id);
        pv_error err;
        const uint8_t *bytes;
        uint64_t size, offset;
        pv_feature_value_kind kind;
        int64_t integer;
        pv_diagnostic *row = NULL;
        /* the decoder's error names the feature, as perf_features.value's */
        if (name && pv_feature_decode(f, id, &kind, &integer, &text, &err)) {
            row = add_row(c, "damaged_feature", "error", "%s", err.msg);
        } else if (pv_file_feature_bytes(f, id, &bytes, &size, &offset, &err)) {
            row = add_row(c, "damaged_feature", "error", "%s", err.msg);
        } else if (!name) {
            row = add_row(c, "unknown_feature", "info",
                          "feature bit %u is set but this reader has no decoder for it; its %llu "
                          "bytes at offset 0x%llx are perf_features.raw", id,
                          (unsigned long long)s->size, (unsigned long long)s->offset);
            if (row) {
                row->has_value = true;
                row->value = s->size;
            }
        }
        if (row) {
            row->has_offset = true;
            row->file_offset = s->offset;
        }
    }
    pv_strbuf_free(&text);
}

/* ---- records ---- */

static void count_type(collector *c, type_tallies *t, const pv_record *rec, const char *message)
{
    size_t i = 0;
    while (i < t->nr && t->items[i].type != rec->type && t->items[i].type != OTHER_TYPES)
        i++;
    if (i == t->nr) {
        t->nr++;
        type_tally *slot = &t->items[i];
        memset(slot, 0, sizeof *slot);
        slot->type = i == MAX_TYPE_ROWS ? OTHER_TYPES : rec->type;
        slot->first_record = rec->index;
        slot->first_offset = rec->file_offset;
        if (message) {
            slot->first_message = pv_strdup(message);
            if (!slot->first_message)
                c->failed = true;
        }
    }
    t->items[i].count++;
}

static void count(tally *t, const pv_record *rec, uint64_t amount)
{
    if (t->count == 0) {
        t->first_record = rec->index;
        t->first_offset = rec->file_offset;
    }
    t->count++;
    t->sum += amount;
    if (amount > t->max)
        t->max = amount;
}

static void observe_time(collector *c, const pv_record *rec, uint64_t time)
{
    /* perf does not queue events without a time (0 or all ones) */
    if (time == 0 || time == UINT64_MAX)
        return;
    if (time < c->flushed_up_to) {
        if (c->out_of_order.count == 0) {
            c->first_late_time = time;
            c->first_late_limit = c->flushed_up_to;
        }
        count(&c->out_of_order, rec, 1);
    }
    if (time > c->max_time)
        c->max_time = time;
}

static void finished_round(collector *c)
{
    /* round k hands on what was queued up to round k-1's largest time */
    if (c->rounds > 0)
        c->flushed_up_to = c->round_max_time;
    c->round_max_time = c->max_time;
    c->rounds++;
}

/* A jitdump a process maps (once per process): found, read whole? */
static void check_jitdump(collector *c, const pv_record *rec, const pv_rec_mmap *m)
{
    int32_t pid = (int32_t)m->pid;
    if ((rec->misc & PV_MISC_CPUMODE_MASK) == 1 /* kernel */ ||
        !pv_jitdump_path_matches(m->filename, (size_t)m->filename_len, pid))
        return;
    for (size_t i = 0; i < c->nr_jit_pids; i++)
        if (c->jit_pids[i] == pid)
            return;
    int32_t *pids = pv_realloc(c->jit_pids, (c->nr_jit_pids + 1) * sizeof *pids);
    char *recorded = pv_strndup(m->filename, (size_t)m->filename_len);
    if (!pids || !recorded) {
        if (pids)
            c->jit_pids = pids;
        free(recorded);
        c->failed = true;
        return;
    }
    c->jit_pids = pids;
    c->jit_pids[c->nr_jit_pids++] = pid;
    pv_jitdump j;
    char path[4096], why[1200];
    pv_error err;
    int rc = pv_jitdump_find(c->f->path, c->sysroot, c->symdir, recorded, pid, pv_file_stop(c->f),
                             &j, path, sizeof path, why, sizeof why, &err);
    pv_diagnostic *row = NULL;
    if (rc == -3) {
        /* interrupted: the walk's next read stops the statement */
    } else if (rc == -2) {
        c->failed = true;
    } else if (rc == -1) {
        row = add_row(c, "jitdump_missing", "warning",
                      "process %d maps %s, but no jitdump of it can be read: %s; its JIT frames "
                      "stay unnamed", (int)pid, recorded, why);
        set_place(row, rec->index, rec->file_offset);
    } else {
        if (j.damage) {
            row = add_row(c, "jitdump_damaged", "warning", "%s: read up to the damage (%zu code "
                          "loads), where %s", path, j.nr_codes, j.damage);
            set_place(row, rec->index, rec->file_offset);
            if (row) {
                row->has_value = true;
                row->value = j.nr_codes;
            }
        }
        if (j.nr_bad_files) {
            row = add_row(c, "jitdump_file_names", "info", "%s: %llu debug entries name their "
                          "file with bytes that are not text: no source line for them", path,
                          (unsigned long long)j.nr_bad_files);
            set_place(row, rec->index, rec->file_offset);
            if (row) {
                row->count = j.nr_bad_files;
                row->has_value = true;
                row->value = j.nr_bad_files;
            }
        }
        pv_jitdump_free(&j);
    }
    free(recorded);
}

static void check_record(collector *c, const pv_record *rec, pv_strbuf *text)
{
    pv_file *f = c->f;
    pv_error err;
    if (!pv_record_type_name(rec->type)) {
        count_type(c, &c->unknown_types, rec, NULL);
        /* a kernel-range type still has a sample_id_all trailer, which
         * perf_records' time, pid, ... columns read */
        pv_sample_id trailer;
        if (rec->type < PV_RECORD_KERNEL_TYPE_END && pv_sample_id_decode(f, rec, &trailer, &err))
            count_type(c, &c->malformed, rec, err.msg);
        return;
    }
    if (rec->type == PV_RECORD_SAMPLE) {
        int attr_index = pv_record_attr_index(f, rec);
        if (attr_index < 0) {
            count(&c->unknown_ids, rec, 1);
            return;
        }
        if (c->samples_per_attr && (size_t)attr_index < f->nr_attrs)
            c->samples_per_attr[attr_index]++;
        pv_sample s;
        if (pv_sample_decode(f, rec, &s, &err)) {
            count_type(c, &c->malformed, rec, err.msg);
            return;
        }
        if (s.offcpu == PV_SAMPLE_OFFCPU_UNREADABLE) {
            if (c->offcpu_unreadable.count == 0)
                c->offcpu_problem = s.offcpu_problem;
            count(&c->offcpu_unreadable, rec, 1);
        }
        if (s.sample_type & PV_SAMPLE_TIME)
            observe_time(c, rec, s.time);
        uint64_t cookie;
        c->deferred_chains = c->deferred_chains || pv_sample_deferred_cookie(&s, &cookie);
        return;
    }
    pv_strbuf_reset(text);
    if (pv_record_fields_json(f, rec, text, &err)) {
        count_type(c, &c->malformed, rec, err.msg);
        return;
    }
    if (rec->type < PV_RECORD_KERNEL_TYPE_END) {
        pv_sample_id trailer;
        if (pv_sample_id_decode(f, rec, &trailer, &err) == 0 && (trailer.fields & PV_SAMPLE_TIME))
            observe_time(c, rec, trailer.time);
    }
    switch (rec->type) {
    case PV_RECORD_FINISHED_ROUND:
        finished_round(c);
        break;
    case PV_RECORD_LOST:
    case PV_RECORD_LOST_SAMPLES: {
        pv_rec_lost l;
        /* the fields JSON above decoded it, so this cannot fail */
        uint64_t lost = pv_rec_lost_decode(f, rec, &l, &err) == 0 ? l.lost : 0;
        count(rec->type == PV_RECORD_LOST ? &c->lost : &c->lost_samples, rec, lost);
        break;
    }
    case PV_RECORD_MMAP:
    case PV_RECORD_MMAP2: {
        pv_rec_mmap m;
        /* the fields JSON above decoded it, so this cannot fail */
        if (pv_rec_mmap_decode(f, rec, &m, &err) == 0) {
            if (m.short_layout)
                count(&c->short_mmap2, rec, 1);
            check_jitdump(c, rec, &m);
        }
        break;
    }
    case PV_RECORD_COMPRESSED2: {
        pv_rec_compressed z;
        /* the fields JSON above decoded it, so this cannot fail */
        if (pv_rec_compressed_decode(f, rec, &z, &err) != 0)
            break;
        /* sized from the bytes after it, or data_size short of header.size
         * by more than perf's padding: perf reads data_size bytes */
        bool understated = rec->size_repair == PV_SIZE_AS_WRITTEN &&
                           z.data_size < rec->size - 16u && rec->size - 16u - z.data_size > 7;
        if (rec->size_repair == PV_SIZE_FROM_DATA || understated) {
            if (c->resized.count == 0) {
                c->resized_written = z.written_size;
                c->resized_data_size = z.data_size;
                c->resized_size = rec->size;
                c->resized_data_len = z.data_len;
            }
            count(&c->resized, rec, 1);
        } else if (z.overstated) {
            count(&c->overstated, rec, z.overstated);
        }
        break;
    }
    default:
        break;
    }
}

static void emit_type_rows(collector *c, type_tallies *t, bool unknown)
{
    for (size_t i = 0; i < t->nr; i++) {
        type_tally *x = &t->items[i];
        pv_diagnostic *row;
        char type_text[32];
        if (x->type == OTHER_TYPES)
            snprintf(type_text, sizeof type_text, "other types");
        else
            snprintf(type_text, sizeof type_text, "type %u", x->type);
        /* a type no writer uses is a damaged record, maybe a sample lost;
         * perf stops reading there, this reader steps over it by its size */
        if (unknown && x->type >= PV_RECORD_TYPE_LIMIT)
            row = add_row(c, "unknown_record_type", "warning",
                          "%llu records of %s, which no perf.data writer uses (a damaged "
                          "record: perhaps a sample lost), first at offset 0x%llx: skipped "
                          "by its size by every table but perf_records; perf stops reading "
                          "there", (unsigned long long)x->count, type_text,
                          (unsigned long long)x->first_offset);
        else if (unknown) {
            /* name the release that brought the type, where it is known */
            const char *name, *since;
            char origin[96] = "";
            if (x->type != OTHER_TYPES && pv_record_type_origin(x->type, &name, &since))
                snprintf(origin, sizeof origin, " (%s, added in %s)", name, since);
            row = add_row(c, "unknown_record_type", "info",
                          "%llu records of %s%s, which this reader does not know, first at "
                          "offset 0x%llx: skipped by every table but perf_records",
                          (unsigned long long)x->count, type_text, origin,
                          (unsigned long long)x->first_offset);
        } else
            row = add_row(c, "malformed_record", "error",
                          "%llu %s records (%s) do not decode; the first: %s",
                          (unsigned long long)x->count,
                          x->type == OTHER_TYPES ? "other"
                          : pv_record_type_name(x->type) ? pv_record_type_name(x->type) : "unknown",
                          type_text, x->first_message ? x->first_message : "?");
        set_place(row, x->first_record, x->first_offset);
        if (row) {
            row->count = x->count;
            if (x->type != OTHER_TYPES) {
                row->has_value = true;
                row->value = x->type;
            }
        }
        free(x->first_message);
        x->first_message = NULL;
    }
}

static pv_diagnostic *tally_row(collector *c, const tally *t, const char *kind,
                                const char *severity, uint64_t value, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static pv_diagnostic *tally_row(collector *c, const tally *t, const char *kind,
                                const char *severity, uint64_t value, const char *fmt, ...)
{
    if (t->count == 0 || c->failed)
        return NULL;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    pv_diagnostic *row = add_row(c, kind, severity, "%s", message);
    set_place(row, t->first_record, t->first_offset);
    if (row) {
        row->count = t->count;
        row->has_value = true;
        row->value = value;
    }
    return row;
}

static void emit_record_rows(collector *c)
{
    emit_type_rows(c, &c->malformed, false);
    emit_type_rows(c, &c->unknown_types, true);
    tally_row(c, &c->unknown_ids, "unknown_sample_id", "warning", c->unknown_ids.count,
              "%llu samples carry an id that belongs to no event, first at offset 0x%llx: "
              "perf_samples shows them with event NULL", (unsigned long long)c->unknown_ids.count,
              (unsigned long long)c->unknown_ids.first_offset);
    tally_row(c, &c->out_of_order, "out_of_order", "warning", c->first_late_limit,
              "%llu events are timed before what an earlier FINISHED_ROUND already flushed "
              "(the first, at offset 0x%llx, has time %llu, after events up to %llu were "
              "flushed): perf reports \"%llu out of order events recorded\" and cannot sort "
              "them in", (unsigned long long)c->out_of_order.count,
              (unsigned long long)c->out_of_order.first_offset,
              (unsigned long long)c->first_late_time, (unsigned long long)c->first_late_limit,
              (unsigned long long)c->out_of_order.count);
    tally_row(c, &c->lost, "lost", "warning", c->lost.sum,
              "%llu LOST records: the kernel dropped %llu events when the ring buffer was full",
              (unsigned long long)c->lost.count, (unsigned long long)c->lost.sum);
    tally_row(c, &c->lost_samples, "lost_samples", "warning", c->lost_samples.sum,
              "%llu LOST_SAMPLES records: the kernel dropped %llu samples",
              (unsigned long long)c->lost_samples.count, (unsigned long long)c->lost_samples.sum);
    tally_row(c, &c->overstated, "compressed_size_overstated",
              c->overstated.max > COMPRESSED2_PADDING ? "warning" : "info", c->overstated.max,
              "%llu COMPRESSED2 records declare more data than they hold (by up to %llu bytes); "
              "the record size is trusted", (unsigned long long)c->overstated.count,
              (unsigned long long)c->overstated.max);
    tally_row(c, &c->resized, "compressed2_size_mismatch", "warning", c->resized.count,
              "%llu COMPRESSED2 records have a header.size and a data_size that disagree (perf "
              "6.16's writer leaves them so when it compresses a push into several records, "
              "hotspot #736): the first, at offset 0x%llx, says header.size %llu and data_size "
              "%llu, and is read as a record of %llu bytes, where the next record starts, with "
              "%llu bytes of zstd data", (unsigned long long)c->resized.count,
              (unsigned long long)c->resized.first_offset, (unsigned long long)c->resized_written,
              (unsigned long long)c->resized_data_size, (unsigned long long)c->resized_size,
              (unsigned long long)c->resized_data_len);
    tally_row(c, &c->short_mmap2, "short_mmap2", "info", c->short_mmap2.count,
              "%llu MMAP2 records have the short layout of Linux 3.12-3.15 and RHEL 7's 3.10 "
              "(no prot and flags, the name 8 bytes earlier), first at offset 0x%llx: their "
              "names are read where they are, their prot and flags are NULL; perf 6.1 reads "
              "these names 8 bytes late", (unsigned long long)c->short_mmap2.count,
              (unsigned long long)c->short_mmap2.first_offset);
}

/* One row for a recording perf record never finished (pv_file.unfinished). */
static void unfinished_row(collector *c, const pv_file_walk *w)
{
    const pv_file *f = c->f;
    char cut[512] = "";
    if (w->cut_bytes > 0)
        snprintf(cut, sizeof cut, "; %llu bytes from offset 0x%llx%s%s on, which hold no whole "
                 "record (one cut short, or bytes that cannot be one), are dropped",
                 (unsigned long long)w->cut_bytes, (unsigned long long)w->cut_offset,
                 w->cut_segment > 0 ? " of " : "",
                 w->cut_segment > 0 ? f->segments[w->cut_segment - 1].path : "");
    pv_diagnostic *row = add_row(c, "unfinished_recording", "warning",
        "the header's data size is 0 and no index of its %u feature sections follows: perf "
        "record was stopped before it finished (killed, out of memory, a time-out); the records "
        "are read to the end of the file, as perf reads a copy whose header is repaired%s",
        f->unwritten_features, cut);
    if (row) {
        row->has_value = true;
        row->value = w->cut_bytes;
        if (w->cut_bytes > 0) {
            row->has_offset = true;
            row->file_offset = w->cut_offset;
        }
    }
}

/* One row for a recording read from a stream (pv_file.spool): said once it
 * was read to its end, with the bytes it brought. */
static void stream_row(collector *c)
{
    const pv_file *f = c->f;
    if (!pv_file_is_stream(f))
        return;
    pv_diagnostic *row = add_row(c, "stream_spooled", "info",
                                 "the input is a stream (a pipe, a FIFO or a terminal), read in "
                                 "one pass as it arrived and spooled to an unlinked temporary file "
                                 "in $TMPDIR (else /tmp), which later scans read: %llu bytes",
                                 (unsigned long long)f->file_size);
    if (row) {
        row->has_value = true;
        row->value = f->file_size;
    }
}

static void walk_records(collector *c)
{
    pv_file *f = c->f;
    pv_walk w;
    pv_record rec;
    pv_error err;
    pv_strbuf text = {0};
    pv_walk_start(&w, f);
    int rc;
    while ((rc = pv_walk_next(&w, &rec, &err)) == 1 && !c->failed)
        check_record(c, &rec, &text);
    uint64_t next_index = w.next_index;
    pv_walk_end(&w);
    pv_strbuf_free(&text);
    emit_record_rows(c);
    if (f->unfinished)
        unfinished_row(c, &w.files);
    if (rc < 0) {
        pv_diagnostic *row = add_row(c, "unreadable_records", "error",
                                     "%s; the records after it are not read", err.msg);
        uint64_t offset;
        if (row) {
            row->has_record = true;
            row->record = next_index;
            row->has_offset = offset_in_message(err.msg, &offset);
            row->file_offset = row->has_offset ? offset : 0;
        }
    }
    stream_row(c);
    if (f->pipe && f->trailing_garbage_offset) {
        uint64_t bytes = f->file_size > f->trailing_garbage_offset
                             ? f->file_size - f->trailing_garbage_offset : 0;
        pv_diagnostic *row = add_row(c, "trailing_garbage", "warning",
                                     "the stream ends with %llu bytes at offset 0x%llx that do not "
                                     "form a record: ignored", (unsigned long long)bytes,
                                     (unsigned long long)f->trailing_garbage_offset);
        if (row) {
            row->has_offset = true;
            row->file_offset = f->trailing_garbage_offset;
            row->has_value = true;
            row->value = bytes;
        }
    }
}

/* Samples of --call-graph fp,defer whose CALLCHAIN_DEFERRED record never
 * came (decode/deferred_chains.h): their stacks are kernel-only. */
static int deferred_chain_rows(collector *c, pv_error *err)
{
    const pv_deferred_chains *dc;
    if (pv_deferred_chains_get(c->f, &dc, err)) {
        /* an interrupt or no memory stops the query; damage is a row */
        if (err->kind != PV_ERROR_FAILED)
            return -1;
        add_row(c, "unreadable_deferred_callchains", "error", "%s", err->msg);
        return 0;
    }
    if (dc->unmatched == 0)
        return 0;
    pv_diagnostic *row = add_row(c, "deferred_callchain_missing", "warning",
        "%llu of %llu samples recorded with deferred user callchains (--call-graph fp,defer) "
        "wait for a CALLCHAIN_DEFERRED record of their task and cookie that never comes, first "
        "at offset 0x%llx: their stacks are kernel-only", (unsigned long long)dc->unmatched,
        (unsigned long long)dc->waiting, (unsigned long long)dc->first_unmatched_offset);
    set_place(row, dc->first_unmatched_record, dc->first_unmatched_offset);
    if (row) {
        row->count = dc->unmatched;
        row->has_value = true;
        row->value = dc->unmatched;
    }
    return 0;
}

/* Tracepoint samples whose event has no parsed format: their trace_fields
 * are NULL.  The format may be missing, rejected by libtraceevent, or one
 * it would crash on (trace_format_check.h). */
static void undescribed_tracepoint_rows(collector *c)
{
    pv_file *f = c->f;
    bool any = false;
    for (size_t i = 0; c->samples_per_attr && i < f->nr_attrs; i++)
        any |= c->samples_per_attr[i] > 0 && pv_attr_is_tracepoint(&f->attrs[i]);
    if (!any)
        return;
    pv_trace *trace = NULL;
    pv_error err;
    bool unreadable = pv_trace_get(f, &trace, &err) != 0;
    for (size_t i = 0; i < f->nr_attrs; i++) {
        uint64_t samples = c->samples_per_attr[i];
        if (samples == 0 || !pv_attr_is_tracepoint(&f->attrs[i]) ||
            pv_trace_event_name(trace, (int)i))
            continue;
        pv_diagnostic *row = add_row(c, "undescribed_tracepoint", "warning",
            "%llu samples of tracepoint event %s (id %llu) have no trace_fields: %s",
            (unsigned long long)samples, pv_file_event_name(f, i),
            (unsigned long long)f->attrs[i].config,
            unreadable ? err.msg
            : !trace ? "the recording has no tracing data"
                     : "the tracing data has no format for it that could be parsed (missing, "
                       "rejected by libtraceevent, or one libtraceevent would crash on)");
        if (row) {
            row->count = samples;
            row->has_value = true;
            row->value = f->attrs[i].config;
        }
    }
}

/* perf 6.14+'s offcpu-time samples whose raw data holds not the fields
 * perf writes there: left as recorded, and no perf_offcpu rows. */
static void offcpu_unreadable_row(collector *c)
{
    const tally *t = &c->offcpu_unreadable;
    tally_row(c, t, "offcpu_raw_unreadable", "warning", t->count,
              "%llu offcpu-time samples of perf 6.14+, first at offset 0x%llx: %s; perf_samples "
              "shows them as recorded (the BPF output's task and period) and perf_offcpu leaves "
              "them out", (unsigned long long)t->count, (unsigned long long)t->first_offset,
              c->offcpu_problem ? c->offcpu_problem : "");
}

static int compare_rows(const void *a, const void *b)
{
    const pv_diagnostic *x = a, *y = b;
    if (x->has_offset != y->has_offset)
        return x->has_offset ? -1 : 1;
    if (x->file_offset != y->file_offset)
        return x->file_offset < y->file_offset ? -1 : 1;
    return strcmp(x->kind, y->kind);
}

int pv_diagnostics_collect(pv_file *f, pv_diagnostics *out, pv_error *err)
{
    return pv_diagnostics_collect_paths(f, NULL, NULL, out, err);
}

int pv_diagnostics_collect_paths(pv_file *f, const char *sysroot, const char *symdir,
                                 pv_diagnostics *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    collector *c = pv_calloc(1, sizeof *c);
    if (!c)
        return pv_error_set(err, "%s: out of memory", f->data_path);
    c->f = f;
    c->sysroot = sysroot && *sysroot ? sysroot : NULL;
    c->symdir = symdir && *symdir ? symdir : NULL;
    c->out = out;
    check_features(c);
    c->samples_per_attr = pv_calloc(f->nr_attrs ? f->nr_attrs : 1, sizeof *c->samples_per_attr);
    if (!c->samples_per_attr)
        c->failed = true;
    walk_records(c);
    if (!c->failed) {
        undescribed_tracepoint_rows(c);
        offcpu_unreadable_row(c);
    }
    bool stopped = !c->failed && c->deferred_chains && deferred_chain_rows(c, err);
    bool failed = c->failed;
    free(c->samples_per_attr);
    free(c->jit_pids);
    for (size_t i = 0; i < c->malformed.nr; i++)
        free(c->malformed.items[i].first_message);
    free(c);
    if (failed || stopped) {
        pv_diagnostics_free(out);
        return stopped ? -1 : pv_error_set(err, "%s: out of memory", f->data_path);
    }
    if (out->nr > 1)
        qsort(out->items, out->nr, sizeof *out->items, compare_rows);
    return 0;
}

void pv_diagnostics_free(pv_diagnostics *d)
{
    for (size_t i = 0; i < d->nr; i++)
        free(d->items[i].message);
    free(d->items);
    memset(d, 0, sizeof *d);
}
