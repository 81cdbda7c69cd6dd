/*
 * sweep: damages a good perf.data file in thousands of systematic ways and
 * reads every damaged copy completely (open, every record, every sample and
 * record field, every feature, every build id), checking that each case is
 * either an error naming the file and `offset 0x`, or well-defined rows.
 *
 *   sweep [-r RANDOM_TRUNCATIONS] [-s SEED] [-m MAX_RECORDS] TMPDIR FILE...
 *
 * Prints one line per FILE, "ok - sweep NAME: ..." or "not ok - sweep NAME:
 * case ...: why" (the first failures, then a count).  The damaged copy is
 * TMPDIR/sweep.data, patched in place between cases.
 *
 * Cases and what they must give (file mode; data_end = data.offset + data.size):
 *
 *   truncation at T < data_end     an error; the records read before it are
 *                                  the original's first records, including
 *                                  every record that ends at or before T
 *   truncation at T >= data_end    (unless T cuts the feature index, which
 *                                  may fail to open) exactly the original
 *                                  records; a feature whose section ends by T
 *                                  has its original value, one cut by T is an
 *                                  error
 *   pipe mode, truncation at T     the original's first records, at least
 *                                  every record that ends by T; a cut-off
 *                                  record at the end ends the stream
 *   data.size = 0                  read as an unfinished recording (perf
 *                                  killed before it wrote the size): no
 *                                  error, every original record; the
 *                                  feature sections after them may read
 *                                  as records up to one that cannot be
 *   data.size = 7, past the end    an error
 *   data.offset past the end       an error
 *   attrs.size = 0                 an error
 *   record size = 0, 7             an error, or in pipe mode the end of the
 *                                  stream there (pv_file.trailing_garbage_offset,
 *                                  shown by perf_diagnostics); the records
 *                                  before it as in the original
 *   any other field set to 0, 7, all ones or past the end (header, attr
 *   entries, feature index, the first words of records and feature
 *   sections)                      rows or errors; errors name the file and
 *                                  an offset; the records before the damaged
 *                                  one are the original's
 *
 * In every case perf_diagnostics (src/analysis/diagnostics.c) must agree with what
 * the read met: an unreadable_records row exactly when the walk failed, a
 * malformed_record (or unknown_sample_id) row when records did not decode,
 * a damaged_feature row when a feature did not.
 *
 * Truncations are at every record boundary and one byte either side of it
 * (-b N: every Nth, and the first and last 8), at every header, attr and
 * feature section boundary, and at random offsets (fixed seed).  Each case
 * has 10 s before it counts as a hang.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream/file_open.h"
#include "format/event_names.h"
#include "format/build_ids.h"
#include "analysis/diagnostics.h"
#include "format/features.h"
#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "decode/record_fields.h"
#include "stream/record_walk.h"
#include "decode/sample.h"

#define MAX_FAILURES_SHOWN 5
#define CASE_SECONDS 10

/* What reading a file gave. */
typedef struct outcome {
    bool open_failed;
    bool walk_failed;
    uint64_t nr_records;
    uint64_t *hashes;          /* per record: its bytes */
    uint64_t *starts;          /* per record: its file_offset */
    uint64_t *ends;            /* per record: where it ends in the file */
    bool *top_level;           /* not from a COMPRESSED container */
    uint64_t capacity;
    int feature_state[PV_FEATURE_BITS];  /* 0 absent, 1 value, -1 error */
    uint64_t feature_hash[PV_FEATURE_BITS];
    uint64_t trailing_garbage; /* pipe mode: where the stream stopped, or 0 */
    char bad_message[800];     /* the first error without file and offset */
    uint64_t errors;
    uint64_t record_errors;    /* records that did not decode */
    uint64_t feature_errors;
    char diagnostics_problem[1024];  /* perf_diagnostics disagreeing with the read */
} outcome;

static const char *tmp_path;
static char current_case[256];

static void on_alarm(int sig)
{
    (void)sig;
    static const char head[] = "not ok - sweep: hang (over 10 s) in case ";
    (void)!write(1, head, sizeof head - 1);
    (void)!write(1, current_case, strlen(current_case));
    (void)!write(1, "\n", 1);
    _exit(1);
}

static uint64_t fnv(const void *p, uint64_t n, uint64_t h)
{
    const uint8_t *b = p;
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static void note_error(outcome *o, const pv_error *err)
{
    o->errors++;
    if (o->bad_message[0])
        return;
    if (!strstr(err->msg, tmp_path) || !strstr(err->msg, "offset 0x"))
        snprintf(o->bad_message, sizeof o->bad_message, "%s", err->msg);
}

static void add_record(outcome *o, const pv_record *rec, uint64_t end)
{
    if (o->nr_records == o->capacity) {
        o->capacity = o->capacity ? o->capacity * 2 : 256;
        o->hashes = realloc(o->hashes, o->capacity * sizeof *o->hashes);
        o->ends = realloc(o->ends, o->capacity * sizeof *o->ends);
        o->starts = realloc(o->starts, o->capacity * sizeof *o->starts);
        o->top_level = realloc(o->top_level, o->capacity * sizeof *o->top_level);
        if (!o->hashes || !o->ends || !o->starts || !o->top_level) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    o->hashes[o->nr_records] = fnv(rec->bytes, rec->size, 14695981039346656037ull);
    o->ends[o->nr_records] = end;
    o->starts[o->nr_records] = rec->file_offset;
    o->top_level[o->nr_records] = !rec->compressed;
    o->nr_records++;
}

static void decode_record_fields(pv_file *f, const pv_record *rec, pv_strbuf *text, outcome *o)
{
    pv_error err;
    pv_sample_id sid;
    if (pv_sample_id_decode(f, rec, &sid, &err))
        note_error(o, &err);
    pv_strbuf_reset(text);
    if (pv_record_fields_json(f, rec, text, &err))
        note_error(o, &err);
    if (rec->type == PV_RECORD_SAMPLE) {
        pv_sample s;
        if (pv_sample_decode(f, rec, &s, &err)) {
            note_error(o, &err);
        } else {
            pv_strbuf_reset(text);
            if (s.sample_type & PV_SAMPLE_CALLCHAIN)
                pv_sample_callchain_json(&s, text);
            if (s.sample_type & PV_SAMPLE_BRANCH_STACK)
                pv_sample_branch_stack_json(&s, text);
            if (s.sample_type & PV_SAMPLE_READ)
                pv_sample_read_json(&s, text);
            if (s.sample_type & PV_SAMPLE_REGS_USER)
                pv_sample_regs_json(&s, &s.regs_user, text);
            if (s.sample_type & PV_SAMPLE_REGS_INTR)
                pv_sample_regs_json(&s, &s.regs_intr, text);
        }
    }
}

static void decode_build_ids(pv_file *f, const pv_record *rec, outcome *o)
{
    if (rec->type != PV_RECORD_HEADER_BUILD_ID)
        return;
    pv_error err;
    pv_build_id_iter it;
    pv_build_id id;
    pv_build_ids_start_record(&it, f, rec);
    int rc;
    while ((rc = pv_build_ids_next(&it, &id, &err)) == 1) {
    }
    if (rc < 0)
        note_error(o, &err);
}

static void decode_record(pv_file *f, const pv_record *rec, pv_strbuf *text, outcome *o)
{
    uint64_t errors_before = o->errors;
    decode_record_fields(f, rec, text, o);
    decode_build_ids(f, rec, o);
    if (o->errors != errors_before)
        o->record_errors++;
}

/* perf_diagnostics (src/analysis/diagnostics.c) over the same file must agree with
 * what reading it met: a row for a broken stream, for records that did not
 * decode and for damaged features, and no stream error when there was none. */
static void check_diagnostics(pv_file *f, outcome *o)
{
    pv_diagnostics d;
    pv_error err;
    if (pv_diagnostics_collect(f, &d, &err)) {
        snprintf(o->diagnostics_problem, sizeof o->diagnostics_problem, "diagnostics failed: %s", err.msg);
        return;
    }
    bool unreadable = false, malformed = false, damaged_feature = false;
    for (size_t i = 0; i < d.nr; i++) {
        const char *kind = d.items[i].kind;
        unreadable |= strcmp(kind, "unreadable_records") == 0;
        malformed |= strcmp(kind, "malformed_record") == 0 || strcmp(kind, "unknown_sample_id") == 0;
        damaged_feature |= strcmp(kind, "damaged_feature") == 0;
    }
    const char *problem = NULL;
    if (unreadable != o->walk_failed)
        problem = o->walk_failed ? "the walk failed but perf_diagnostics has no unreadable_records row"
                                 : "perf_diagnostics has an unreadable_records row but the walk ended cleanly";
    else if (o->record_errors && !malformed)
        problem = "records did not decode but perf_diagnostics has no malformed_record row";
    else if (o->feature_errors && !damaged_feature)
        problem = "a feature did not decode but perf_diagnostics has no damaged_feature row";
    if (problem)
        snprintf(o->diagnostics_problem, sizeof o->diagnostics_problem, "%s", problem);
    pv_diagnostics_free(&d);
}

/* Reads everything in path into o: features, build ids, every record and
 * its fields, then perf_diagnostics' rows, which must agree. */
static void read_all(const char *path, outcome *o, pv_file **opened_original)
{
    o->open_failed = o->walk_failed = false;
    o->nr_records = 0;
    o->errors = o->record_errors = o->feature_errors = 0;
    o->bad_message[0] = 0;
    o->diagnostics_problem[0] = 0;
    memset(o->feature_state, 0, sizeof o->feature_state);
    pv_file *f = NULL;
    pv_error err;
    if (pv_file_open(path, &f, &err)) {
        o->open_failed = true;
        note_error(o, &err);
        return;
    }
    pv_strbuf text = {0};
    for (size_t i = 0; i < f->nr_attrs; i++)
        pv_file_event_name(f, i);
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++) {
        if (!pv_file_has_feature(f, id))
            continue;
        pv_feature_value_kind kind;
        int64_t integer = 0;
        pv_strbuf_reset(&text);
        const uint8_t *raw;
        uint64_t raw_size, raw_offset;
        /* the raw bytes (perf_features.raw), then the decoded value */
        if (pv_file_feature_bytes(f, id, &raw, &raw_size, &raw_offset, &err)) {
            o->feature_state[id] = -1;
            o->feature_errors++;
            note_error(o, &err);
        } else if (pv_feature_decode(f, id, &kind, &integer, &text, &err)) {
            o->feature_state[id] = -1;
            o->feature_errors++;
            note_error(o, &err);
        } else {
            o->feature_state[id] = 1;
            uint64_t h = fnv(&kind, sizeof kind, 14695981039346656037ull);
            h = fnv(&integer, sizeof integer, h);
            o->feature_hash[id] = fnv(text.text, text.len, h);
        }
    }
    pv_build_id_iter it;
    pv_build_id bid;
    if (pv_build_ids_start_feature(&it, f, &err) == 0) {
        int rc;
        while ((rc = pv_build_ids_next(&it, &bid, &err)) == 1) {
        }
        if (rc < 0) {
            note_error(o, &err);
            o->feature_errors++;
        }
    } else {
        note_error(o, &err);
        o->feature_errors++;
    }

    pv_walk w;
    pv_record rec;
    pv_walk_start(&w, f);
    uint64_t container_offset = UINT64_MAX, container_end = 0;
    int rc;
    while ((rc = pv_walk_next(&w, &rec, &err)) == 1) {
        uint64_t end = rec.file_offset + rec.size;
        if (rec.compressed)
            end = rec.file_offset == container_offset ? container_end : UINT64_MAX;
        else if (rec.type == PV_RECORD_COMPRESSED || rec.type == PV_RECORD_COMPRESSED2) {
            container_offset = rec.file_offset;
            container_end = end;
        }
        if (rec.segment != 0)
            end = UINT64_MAX;
        add_record(o, &rec, end);
        decode_record(f, &rec, &text, o);
    }
    if (rc < 0) {
        o->walk_failed = true;
        note_error(o, &err);
    }
    pv_walk_end(&w);
    pv_strbuf_free(&text);
    o->trailing_garbage = f->trailing_garbage_offset;
    check_diagnostics(f, o);
    if (opened_original)
        *opened_original = f;
    else
        pv_file_close(f);
}

/* The damaged copy: the original bytes, patched between cases. */
typedef struct target {
    const char *name;
    uint8_t *bytes;
    uint64_t size;
    int fd;
    outcome original;
    bool pipe;
    uint64_t data_offset, data_end;
    uint64_t feature_index_end;
    pv_section features[PV_FEATURE_BITS];
    bool has_feature[PV_FEATURE_BITS];
    /* results */
    uint64_t cases, truncations, mutations, failures, errors;
    outcome got;
} target;

static void write_all(int fd, const uint8_t *p, uint64_t n, uint64_t at)
{
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)at);
        if (k <= 0) {
            perror("pwrite");
            exit(2);
        }
        p += k;
        n -= (uint64_t)k;
        at += (uint64_t)k;
    }
}

static void fail(target *t, const char *why)
{
    t->failures++;
    if (t->failures <= MAX_FAILURES_SHOWN)
        printf("not ok - sweep %s: case %s: %s\n", t->name, current_case, why);
}

/* Checks shared by every case: no error without file and offset, and the
 * records before first_damaged_offset are the original's. */
static void check_common(target *t, uint64_t first_damaged_offset)
{
    outcome *o = &t->got;
    char why[1024];
    if (o->bad_message[0]) {
        snprintf(why, sizeof why, "error without the file and `offset 0x`: %s", o->bad_message);
        fail(t, why);
        return;
    }
    if (o->diagnostics_problem[0]) {
        fail(t, o->diagnostics_problem);
        return;
    }
    if (o->open_failed)
        return;
    for (uint64_t i = 0; i < o->nr_records && i < t->original.nr_records; i++) {
        if (t->original.ends[i] > first_damaged_offset)
            break;
        if (o->hashes[i] != t->original.hashes[i]) {
            snprintf(why, sizeof why, "record %llu (undamaged, ends at 0x%llx) differs from the original",
                     (unsigned long long)i, (unsigned long long)t->original.ends[i]);
            fail(t, why);
            return;
        }
    }
    /* every undamaged record is read, unless reading stopped on an error */
    if (!o->walk_failed) {
        uint64_t undamaged = 0;
        while (undamaged < t->original.nr_records &&
               t->original.ends[undamaged] <= first_damaged_offset)
            undamaged++;
        if (o->nr_records < undamaged) {
            snprintf(why, sizeof why, "the walk ended without error after %llu records, but %llu are undamaged",
                     (unsigned long long)o->nr_records, (unsigned long long)undamaged);
            fail(t, why);
        }
    }
}

static void run_case(target *t)
{
    t->cases++;
    alarm(CASE_SECONDS);
    read_all(tmp_path, &t->got, NULL);
    alarm(0);
    if (t->got.errors)
        t->errors++;
}

/* ---- truncations ---- */

static void truncate_at(target *t, uint64_t at)
{
    if (at >= t->size)
        return;
    snprintf(current_case, sizeof current_case, "truncated at 0x%llx of 0x%llx",
             (unsigned long long)at, (unsigned long long)t->size);
    if (ftruncate(t->fd, (off_t)at)) {
        perror("ftruncate");
        exit(2);
    }
    run_case(t);
    t->truncations++;
    write_all(t->fd, t->bytes + at, t->size - at, at);

    outcome *o = &t->got;
    check_common(t, at);
    char why[512];
    if (t->pipe) {
        if (!o->open_failed && !o->walk_failed && o->nr_records > t->original.nr_records)
            fail(t, "more records than the original");
        return;
    }
    if (at < t->data_end) {
        if (!o->open_failed && !o->walk_failed) {
            snprintf(why, sizeof why, "no error although data.size says the data runs to 0x%llx (%llu records read)",
                     (unsigned long long)t->data_end, (unsigned long long)o->nr_records);
            fail(t, why);
        }
        return;
    }
    if (o->open_failed) {
        if (at >= t->feature_index_end)
            fail(t, "open failed although the header, attrs, data and feature index are whole");
        return;
    }
    if (o->walk_failed || o->nr_records != t->original.nr_records) {
        fail(t, "the data section is whole but the records differ");
        return;
    }
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++) {
        if (!t->has_feature[id] || t->original.feature_state[id] != 1)
            continue;
        bool whole = t->features[id].offset <= at && at - t->features[id].offset >= t->features[id].size;
        if (whole && (o->feature_state[id] != 1 || o->feature_hash[id] != t->original.feature_hash[id])) {
            snprintf(why, sizeof why, "feature %u is whole but its value changed", id);
            fail(t, why);
        } else if (!whole && t->features[id].size > 0 && o->feature_state[id] != -1) {
            snprintf(why, sizeof why, "feature %u (0x%llx + %llu) is cut but decodes without error", id,
                     (unsigned long long)t->features[id].offset, (unsigned long long)t->features[id].size);
            fail(t, why);
        }
    }
}

/* ---- field mutations ---- */

/* EXPECT_END_OF_STREAM: an error, or in pipe mode the stream ends at the
 * damaged record (a pipe has no size: what is not a record ends it) */
enum expect { EXPECT_ANY, EXPECT_ERROR, EXPECT_NO_RECORDS, EXPECT_END_OF_STREAM, EXPECT_UNFINISHED };

static void store(target *t, uint8_t *p, uint64_t v, int width)
{
    /* in the file's byte order */
    bool big = memcmp(t->bytes, "2ELIFREP", 8) == 0;
    for (int i = 0; i < width; i++) {
        int byte = big ? width - 1 - i : i;
        p[byte] = (uint8_t)(v >> (8 * i));
    }
}

static void mutate(target *t, uint64_t at, int width, uint64_t value, const char *what,
                   enum expect expect, uint64_t first_damaged)
{
    if (at > t->size || t->size - at < (uint64_t)width)
        return;
    uint8_t patched[8];
    store(t, patched, value, width);
    if (memcmp(patched, t->bytes + at, (size_t)width) == 0)
        return;
    snprintf(current_case, sizeof current_case, "%s at 0x%llx := 0x%llx", what,
             (unsigned long long)at, (unsigned long long)value);
    write_all(t->fd, patched, (uint64_t)width, at);
    run_case(t);
    t->mutations++;
    write_all(t->fd, t->bytes + at, (uint64_t)width, at);

    check_common(t, first_damaged);
    outcome *o = &t->got;
    if (expect == EXPECT_ERROR && !o->open_failed && !o->walk_failed)
        fail(t, "no error");
    if (expect == EXPECT_END_OF_STREAM && !o->open_failed && !o->walk_failed &&
        !(t->pipe && o->trailing_garbage == first_damaged))
        fail(t, "neither an error nor the end of the stream at the damaged record");
    if (expect == EXPECT_NO_RECORDS && (o->open_failed || o->walk_failed || o->nr_records != 0))
        fail(t, "want no records and no error");
    if (expect == EXPECT_UNFINISHED && (o->open_failed || o->walk_failed))
        fail(t, "an error where an unfinished recording reads to its last whole record");
}

/* The four hostile values of a field of this width. */
static void mutate_field(target *t, uint64_t at, int width, const char *what, uint64_t first_damaged)
{
    uint64_t ones = width == 8 ? UINT64_MAX : (1ull << (8 * width)) - 1;
    uint64_t past = t->size + 1 > ones ? ones : t->size + 1;
    uint64_t values[] = {0, 7, ones, past};
    for (size_t i = 0; i < 4; i++)
        mutate(t, at, width, values[i], what, EXPECT_ANY, first_damaged);
}

static void mutate_header(target *t)
{
    static const struct { uint64_t at; const char *what; } fields[] = {
        {8, "header.size"}, {16, "header.attr_size"}, {24, "attrs.offset"}, {32, "attrs.size"},
        {40, "data.offset"}, {48, "data.size"}, {56, "event_types.offset"}, {64, "event_types.size"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        mutate_field(t, fields[i].at, 8, fields[i].what, 0);
    uint64_t data_size = t->data_end - t->data_offset;
    mutate(t, 48, 8, 0, "data.size", t->pipe ? EXPECT_NO_RECORDS : EXPECT_UNFINISHED, t->data_end);
    if (data_size != 7)
        mutate(t, 48, 8, 7, "data.size", EXPECT_ERROR, 0);
    mutate(t, 48, 8, t->size - t->data_offset + 1, "data.size past the end", EXPECT_ERROR, 0);
    mutate(t, 48, 8, UINT64_MAX, "data.size", EXPECT_ERROR, 0);
    mutate(t, 40, 8, t->size + 1, "data.offset past the end", EXPECT_ERROR, 0);
    mutate(t, 40, 8, UINT64_MAX, "data.offset", EXPECT_ERROR, 0);
    mutate(t, 32, 8, 0, "attrs.size", EXPECT_ERROR, 0);
    /* the feature index */
    uint64_t at = t->data_end;
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++) {
        if (!t->has_feature[id])
            continue;
        char what[64];
        snprintf(what, sizeof what, "feature %u offset", id);
        mutate_field(t, at, 8, what, 0);
        snprintf(what, sizeof what, "feature %u size", id);
        mutate_field(t, at + 8, 8, what, 0);
        at += 16;
    }
}

static void mutate_attrs(target *t, const pv_file *f)
{
    for (size_t i = 0; i < f->nr_attrs && i < 8; i++) {
        uint64_t entry = f->attr_section.offset + i * f->attr_size;
        mutate_field(t, entry + 4, 4, "attr.size", 0);
        mutate_field(t, entry + f->attr_size - 16, 8, "attr ids.offset", 0);
        mutate_field(t, entry + f->attr_size - 8, 8, "attr ids.size", 0);
    }
}

static void mutate_feature_sections(target *t, uint64_t words)
{
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++) {
        if (!t->has_feature[id])
            continue;
        pv_section s = t->features[id];
        for (uint64_t k = 0; k < words && k * 4 + 4 <= s.size; k++) {
            char what[64];
            snprintf(what, sizeof what, "feature %u word %llu", id, (unsigned long long)k);
            mutate_field(t, s.offset + k * 4, 4, what, UINT64_MAX);
        }
    }
}

/* The first record of each type (and the first few samples): its size, and
 * the first words of its body as u32 and u64. */
static void mutate_records(target *t, pv_file *f, uint64_t max_records)
{
    bool seen[256] = {false};
    uint64_t samples = 0, chosen = 0;
    pv_walk w;
    pv_record rec;
    pv_error err;
    pv_walk_start(&w, f);
    uint64_t offsets[512], sizes[512], indexes[512];
    while (pv_walk_next(&w, &rec, &err) == 1 && chosen < max_records && chosen < 512) {
        if (rec.compressed || rec.segment != 0)
            continue;
        bool take = rec.type < 256 && !seen[rec.type];
        if (rec.type == PV_RECORD_SAMPLE && samples < 3)
            take = true;
        if (!take)
            continue;
        if (rec.type < 256)
            seen[rec.type] = true;
        if (rec.type == PV_RECORD_SAMPLE)
            samples++;
        offsets[chosen] = rec.file_offset;
        sizes[chosen] = rec.size;
        indexes[chosen] = rec.index;
        chosen++;
    }
    pv_walk_end(&w);
    for (uint64_t r = 0; r < chosen; r++) {
        uint64_t at = offsets[r];
        char what[96];
        snprintf(what, sizeof what, "record %llu size", (unsigned long long)indexes[r]);
        mutate(t, at + 6, 2, 0, what, EXPECT_END_OF_STREAM, at);
        mutate(t, at + 6, 2, 7, what, EXPECT_END_OF_STREAM, at);
        mutate(t, at + 6, 2, 0xffff, what, EXPECT_ANY, at);
        mutate(t, at + 6, 2, sizes[r] + 8, what, EXPECT_ANY, at);
        for (uint64_t k = 0; k < 24 && 8 + k * 4 + 4 <= sizes[r]; k++) {
            snprintf(what, sizeof what, "record %llu u32 %llu", (unsigned long long)indexes[r],
                     (unsigned long long)k);
            mutate_field(t, at + 8 + k * 4, 4, what, at);
        }
        for (uint64_t k = 0; k < 12 && 8 + k * 8 + 8 <= sizes[r]; k++) {
            snprintf(what, sizeof what, "record %llu u64 %llu", (unsigned long long)indexes[r],
                     (unsigned long long)k);
            mutate_field(t, at + 8 + k * 8, 8, what, at);
        }
    }
}

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

/* How much of the file a sweep damages: random cuts, records whose fields
 * change, every how many record boundaries it cuts at (1: all), and the
 * words of each feature section it changes. */
typedef struct sweep_options {
    uint64_t randoms, seed, max_records, boundary_step, feature_words;
} sweep_options;

static int sweep_file(const char *path, const char *dir, const sweep_options *o)
{
    uint64_t randoms = o->randoms, seed = o->seed, max_records = o->max_records;
    target t;
    memset(&t, 0, sizeof t);
    t.name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        printf("not ok - sweep %s: cannot read\n", t.name);
        return 1;
    }
    fseek(fp, 0, SEEK_END);
    t.size = (uint64_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    t.bytes = malloc(t.size ? t.size : 1);
    if (fread(t.bytes, 1, t.size, fp) != t.size) {
        printf("not ok - sweep %s: short read\n", t.name);
        fclose(fp);
        return 1;
    }
    fclose(fp);
    static char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/sweep.data", dir);
    tmp_path = tmp;
    t.fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (t.fd < 0) {
        perror(tmp);
        exit(2);
    }
    write_all(t.fd, t.bytes, t.size, 0);

    pv_file *f = NULL;
    snprintf(current_case, sizeof current_case, "the original");
    read_all(tmp, &t.original, &f);
    if (t.original.open_failed || t.original.walk_failed || t.original.errors) {
        printf("not ok - sweep %s: the original does not read cleanly (%s)\n", t.name,
               t.original.bad_message);
        if (f)
            pv_file_close(f);
        return 1;
    }
    t.pipe = f->pipe;
    t.data_offset = f->data_section.offset;
    t.data_end = f->data_section.offset + f->data_section.size;
    t.feature_index_end = t.data_end;
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++)
        if (!t.pipe && pv_file_has_feature(f, id)) {
            t.has_feature[id] = true;
            t.features[id] = f->feature_sections[id];
            t.feature_index_end += 16;
        }
    if (t.pipe)
        t.data_end = t.size;
    /* a top-level record ends where the next begins (a pipe-mode payload
     * follows its record, outside its size) */
    for (uint64_t i = 0; i < t.original.nr_records; i++) {
        if (!t.original.top_level[i] || t.original.ends[i] == UINT64_MAX)
            continue;
        uint64_t k = i + 1;
        while (k < t.original.nr_records && !t.original.top_level[k])
            k++;
        if (k < t.original.nr_records && t.original.ends[k] != UINT64_MAX &&
            t.original.starts[k] > t.original.ends[i])
            t.original.ends[i] = t.original.starts[k];
    }
    /* a record from a container ends with it */
    for (uint64_t i = 1; i < t.original.nr_records; i++)
        if (!t.original.top_level[i] && t.original.ends[i] != UINT64_MAX &&
            t.original.ends[i] < t.original.ends[i - 1])
            t.original.ends[i] = t.original.ends[i - 1];

    /* truncations: every record boundary (or every boundary_step-th, and
     * always the first and last 8) and one byte either side */
    for (uint64_t i = 0; i < t.original.nr_records; i++) {
        if (!t.original.top_level[i] || t.original.ends[i] == UINT64_MAX)
            continue;
        bool at_an_end = i < 8 || t.original.nr_records - i <= 8;
        if (!at_an_end && i % o->boundary_step != 0)
            continue;
        uint64_t b = t.original.ends[i];
        truncate_at(&t, b - 1);
        truncate_at(&t, b);
        truncate_at(&t, b + 1);
    }
    /* the layout's own boundaries */
    uint64_t marks[] = {0, 1, 7, 8, 16, 64, 103, 104, t.data_offset, t.data_offset + 4,
                        t.data_end, t.feature_index_end - 1, t.feature_index_end};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        truncate_at(&t, marks[i]);
    if (!t.pipe) {
        for (size_t i = 0; i < f->nr_attrs && i < 8; i++) {
            truncate_at(&t, f->attr_section.offset + i * f->attr_size + 4);
            truncate_at(&t, f->attrs[i].file_offset + f->attr_size - 1);
        }
        for (unsigned id = 0; id < PV_FEATURE_BITS; id++)
            if (t.has_feature[id]) {
                truncate_at(&t, t.features[id].offset);
                truncate_at(&t, t.features[id].offset + 1);
                truncate_at(&t, t.features[id].offset + t.features[id].size - 1);
            }
    }
    uint64_t state = seed;
    for (uint64_t i = 0; i < randoms && t.size > 0; i++)
        truncate_at(&t, next_random(&state) % t.size);

    if (!t.pipe) {
        mutate_header(&t);
        mutate_attrs(&t, f);
        mutate_feature_sections(&t, o->feature_words);
    }
    mutate_records(&t, f, max_records);
    pv_file_close(f);
    close(t.fd);
    unlink(tmp);

    if (t.failures > MAX_FAILURES_SHOWN)
        printf("not ok - sweep %s: %llu failing cases in all (first %d shown)\n", t.name,
               (unsigned long long)t.failures, MAX_FAILURES_SHOWN);
    if (t.failures == 0)
        printf("ok - sweep %s: %llu cases (%llu truncations, %llu field mutations; %llu with errors), "
               "each an error with file and offset or well-defined rows\n",
               t.name, (unsigned long long)t.cases, (unsigned long long)t.truncations,
               (unsigned long long)t.mutations, (unsigned long long)t.errors);
    free(t.bytes);
    free(t.original.hashes);
    free(t.original.ends);
    free(t.original.starts);
    free(t.got.starts);
    free(t.original.top_level);
    free(t.got.hashes);
    free(t.got.ends);
    free(t.got.top_level);
    return t.failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    sweep_options o = {.randoms = 200, .seed = 6, .max_records = 24, .boundary_step = 1,
                       .feature_words = 16};
    int opt;
    while ((opt = getopt(argc, argv, "r:s:m:b:w:")) != -1) {
        if (opt == 'r')
            o.randoms = strtoull(optarg, NULL, 0);
        else if (opt == 's')
            o.seed = strtoull(optarg, NULL, 0);
        else if (opt == 'm')
            o.max_records = strtoull(optarg, NULL, 0);
        else if (opt == 'b')
            o.boundary_step = strtoull(optarg, NULL, 0);
        else if (opt == 'w')
            o.feature_words = strtoull(optarg, NULL, 0);
        else
            return 2;
    }
    if (argc - optind < 2 || o.boundary_step == 0) {
        fprintf(stderr, "usage: sweep [-r RANDOM] [-s SEED] [-m MAX_RECORDS] [-b BOUNDARY_STEP] [-w FEATURE_WORDS] TMPDIR FILE...\n");
        return 2;
    }
    signal(SIGALRM, on_alarm);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int failed = 0;
    for (int i = optind + 1; i < argc; i++)
        failed |= sweep_file(argv[i], argv[optind], &o);
    return failed;
}
