/*
 * perf_samples: one row per PERF_RECORD_SAMPLE, in file order.
 *
 * The walk touches only record headers; a sample is decoded the first time
 * one of its columns (other than record) is read, so count(*) never decodes.
 */
#include <stdlib.h>
#include <string.h>

#include "format/event_names.h"
#include "format/perf_abi.h"
#include "stream/record_walk.h"
#include "decode/sample.h"
#include "symbol_paths.h"
#include "location_columns.h"
#include "row_values.h"
#include "vtab_common.h"
#include "base/pv_alloc.h"
#include "samples_columns.h"

/* Each column's flags (samples_columns.h), and the masks they make. */
static const uint32_t column_flags[] = { SAMPLES_COLUMNS(PV_COLUMN_FLAGS) };
#define COLUMN_IF_FIXED(NAME, name, type, flags) PV_COLUMN_IF(NAME, flags, FIXED)
#define FIXED_COLUMNS ((uint64_t)0 SAMPLES_COLUMNS(COLUMN_IF_FIXED))
#define VALUE_COLUMNS PV_COLUMNS_WITH(SAMPLES_COLUMNS, VALUE)
#define SYMBOL_COLUMNS PV_COLUMNS_WITH(SAMPLES_COLUMNS, REPLAYED)

typedef struct SamplesState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    /* 0: not decoded; FIXED_ONLY: the fixed fields; FULL: everything */
    int decoded;
    pv_sample sample;
    /* symbol columns: the file's maps, built at the first such column */
    pv_symbolizer *symbolizer;
    bool keyed;                 /* key holds the sample's order among the maps' events */
    uint64_t key;
    bool located;
    pv_location location;
    PvSourceColumns source;     /* srcfile, srcline */
    /* The fixed fields' places of each event, made at the first such
     * column, and the event of the current sample (-2: not looked up). */
    pv_sample_places *places;
    int attr_index;
    /* Per integer column read alone (ALONE, by column), the word
     * fixed_int read it from last: in a record of event attr, at at,
     * which a record of at least end bytes holds; kind a word_kind
     * (WORD_NONE: none yet).  The next row of that event reads it without
     * the lookups (column_word), each column its own; one more for the
     * path column, never set, so that any column SQLite asks has one. */
    struct column_word {
        int16_t attr;           /* 8 bytes a word: events past INT16_MAX go without */
        uint16_t at, end;
        uint8_t kind;
    } words[SAMPLES_COLUMN_COUNT + 1];
    /* How column_word finds a record's event (a word_event), and where
     * the records hold the word of its id (WORD_EVENT_DENSE; each word's
     * end covers it); worked out at the file's first word (id_noted). */
    bool id_noted;
    uint8_t word_event;
    uint16_t word_id_at;
} SamplesState;

/* WORD_EVENT_ZERO: the file's samples are all its first event's;
 * WORD_EVENT_DENSE: the id's word, looked up in the file's dense table of
 * ids; WORD_EVENT_SEARCH: pv_sample_attr_index, a call. */
enum word_event { WORD_EVENT_SEARCH, WORD_EVENT_ZERO, WORD_EVENT_DENSE };

enum word_kind { WORD_NONE, WORD_U64, WORD_U32, WORD_S32 };

static bool samples_wants(uint32_t type)
{
    return type == PV_RECORD_SAMPLE;
}

/* Decoding waits for the first column that needs it. */
static inline void forget_row(PvCursor *cur)
{
    SamplesState *st = cur->state;
    st->decoded = 0;
    st->attr_index = -2;
    cur->kept_column = -1;
    st->keyed = false;
    st->located = false;
    pv_source_forget(&st->source);
}

static int samples_decode(PvCursor *cur, pv_error *err)
{
    (void)err;
    forget_row(cur);
    return 0;
}

/* The common row (PvTableDef.row_next): a record pinned in the walk's
 * buffer. */
static int samples_row_next(PvCursor *cur)
{
    if (!pv_record_rows_take_pinned(cur))
        return pv_vtab_next_checked(cur);
    forget_row(cur);
    return SQLITE_OK;
}

static void samples_reset(PvCursor *cur)
{
    SamplesState *st = cur->state;
    pv_symbolizer_free(st->symbolizer);
    st->symbolizer = NULL;
    free(st->places);
    st->places = NULL;
    pv_record_rows_reset(cur);
}

/* The cursor's symbolizer, readied for the current sample (symbolizer.h). */
static int ready_symbolizer(PvCursor *cur, pv_error *err)
{
    SamplesState *st = cur->state;
    return pv_vtab_sample_symbolizer(cur, &st->symbolizer, &st->rows.record, &st->sample,
                                     &st->keyed, &st->key, err);
}

static uint64_t sample_key(const SamplesState *st)
{
    return st->key;
}

/* comm, dso, sym...: the sample's thread and ip resolved at its time. */
static int symbol_value(PvCursor *cur, int i, pv_value *out, pv_error *err)
{
    SamplesState *st = cur->state;
    const pv_sample *s = &st->sample;
    if (ready_symbolizer(cur, err))
        return -1;
    if (!(s->sample_type & PV_SAMPLE_TID))
        return 0;
    if (i == COL_COMM) {
        *out = pv_text_value(pv_symbolizer_comm(st->symbolizer, (int32_t)s->tid, sample_key(st)));
        return 0;
    }
    if (!(s->sample_type & PV_SAMPLE_IP))
        return 0;
    unsigned cpumode = s->misc & PV_MISC_CPUMODE_MASK;   /* the decoder's: see pv_sample.offcpu */
    if (i == COL_SRCFILE || i == COL_SRCLINE) {
        PvSourceAddress at = { (int32_t)s->pid, sample_key(st), cpumode, s->ip, 0 };
        *out = pv_source_value(&st->source, st->symbolizer, &at, i == COL_SRCFILE);
        return 0;
    }
    if (!st->located) {
        pv_symbolizer_resolve(st->symbolizer, (int32_t)s->pid, sample_key(st), cpumode, s->ip,
                              &st->location);
        st->located = true;
    }
    *out = pv_location_value(&st->location, pv_col_location_of(column_flags[i]));
    return 0;
}

enum { FIXED_ONLY = 1, FULL = 2 };

/* Decodes the current sample as far as column i needs. */
static int decode_for(PvCursor *cur, int i, pv_error *err)
{
    SamplesState *st = cur->state;
    int needed = pv_column_in(FIXED_COLUMNS, i) ? FIXED_ONLY : FULL;
    if (st->decoded >= needed)
        return 0;
    const pv_record *r = &st->rows.record;
    int rc = needed == FULL ? pv_sample_decode(cur->file, r, &st->sample, err)
                            : pv_sample_decode_fixed(cur->file, r, &st->sample, err);
    if (rc)
        return -1;
    st->decoded = needed;
    return 0;
}

static pv_value value_if(const pv_sample *s, uint64_t bit, uint64_t v)
{
    return (s->sample_type & bit) ? pv_int_value((int64_t)v) : pv_null_value();
}

/* The fixed fields' places of each event of the file; false when out of
 * memory (the full decode answers then). */
static __attribute__((noinline)) bool make_places(PvCursor *cur)
{
    SamplesState *st = cur->state;
    const pv_file *f = cur->file;
    size_t nr_attrs = pv_file_nr_attrs(f);
    st->places = pv_malloc((nr_attrs ? nr_attrs : 1) * sizeof *st->places);
    if (!st->places)
        return false;
    for (size_t a = 0; a < nr_attrs; a++)
        pv_sample_places_init(f, a, &st->places[a]);
    return true;
}

/* How column_word finds a record's event as pv_sample_attr_index does,
 * without a call where it can: the file's one event, or the word of the id
 * read straight into the file's dense table of ids (the file in its own
 * byte order). */
static void note_id_word(const pv_file *f, SamplesState *st)
{
    st->id_noted = true;
    st->word_event = WORD_EVENT_SEARCH;
    if (pv_samples_one_event(f)) {
        st->word_event = WORD_EVENT_ZERO;
        return;
    }
    uint16_t at = pv_sample_dense_id_at(f);
    if (at == 0)
        return;
    st->word_event = WORD_EVENT_DENSE;
    st->word_id_at = at;
}

/* An integer fixed field read alone, without decoding the sample (a scan
 * of such columns reads one word a column per row): 1 *value is column i's, 0
 * it is NULL, -1 the full decode answers (not such a column, a record
 * too short). */
static inline int fixed_int(PvCursor *cur, int i, int64_t *value)
{
    SamplesState *st = cur->state;
    unsigned alone = (size_t)i < SAMPLES_COLUMN_COUNT ? samples_alone_field(column_flags[i]) : 0;
    if (alone == 0 || st->decoded || (!st->places && !make_places(cur)))
        return -1;
    const pv_record *r = &st->rows.record;
    if (st->attr_index == -2)
        st->attr_index = pv_sample_attr_index(cur->file, r);
    if (st->attr_index < 0)
        return 0;   /* an id no event owns: nothing but the record is known */
    const pv_sample_places *p = &st->places[st->attr_index];
    pv_fixed_field field = (pv_fixed_field)(alone - 1);
    if (field == PV_FIELD_ID && p->at[PV_FIELD_ID] == 0)
        field = PV_FIELD_IDENTIFIER;
    uint64_t v;
    int rc = pv_sample_field(cur->file, r, p, field, &v);
    bool is_s32 = field == PV_FIELD_PID || field == PV_FIELD_TID;
    if (rc > 0)
        *value = is_s32 ? (int64_t)(int32_t)v : (int64_t)v;
    if (rc > 0 && p->at[field] && st->attr_index <= INT16_MAX) {
        if (!st->id_noted)
            note_id_word(cur->file, st);
        struct column_word *w = &st->words[i];
        w->attr = (int16_t)st->attr_index;
        w->at = p->at[field];
        w->end = p->end;
        if (st->word_event == WORD_EVENT_DENSE && w->end < st->word_id_at + 8)
            w->end = (uint16_t)(st->word_id_at + 8);
        w->kind = is_s32 ? WORD_S32 : field == PV_FIELD_CPU ? WORD_U32 : WORD_U64;
    }
    return rc;
}

/* fixed_int's value, when it read column i from the same word of a record
 * of the same event last time: 1 *value set, -1 fixed_int answers (or,
 * unless search, column_word asked again with search, where the record's
 * event takes a call).  Inline: a scan of a column reads one word per row
 * this way. */
static inline int column_word(PvCursor *cur, int i, int64_t *value, bool search)
{
    SamplesState *st = cur->state;
    if (st->decoded)
        return -1;
    const struct column_word *w = &st->words[i];
    const pv_record *r = &st->rows.record;
    if (w->kind == WORD_NONE || r->size < w->end)
        return -1;
    if (st->attr_index == -2) {
        const pv_file *f = cur->file;
        if (st->word_event == WORD_EVENT_DENSE) {
            st->attr_index = pv_sample_attr_index_dense(f, r, st->word_id_at);
        } else if (st->word_event == WORD_EVENT_ZERO) {
            st->attr_index = 0;
        } else if (search) {
            st->attr_index = pv_sample_attr_index(f, r);
        } else {
            return -1;
        }
    }
    if (st->attr_index != w->attr)
        return -1;
    uint64_t v = pv_sample_word(cur->file, r, w->at, w->kind == WORD_U64);
    *value = w->kind == WORD_S32 ? (int64_t)(int32_t)v : (int64_t)v;
    return 1;
}

static int samples_value(PvCursor *cur, int i, pv_value *out, pv_error *err)
{
    SamplesState *st = cur->state;
    const pv_record *r = &st->rows.record;
    *out = pv_null_value();
    switch (i) {
    case COL_RECORD: *out = pv_int_value((int64_t)r->index); return 0;
    case COL_FILE_OFFSET: *out = pv_int_value((int64_t)r->file_offset); return 0;
    case COL_MISC: *out = pv_int_value(r->misc); return 0;
    case COL_CPUMODE: *out = pv_text_value(pv_cpumode_name(r->misc & PV_MISC_CPUMODE_MASK)); return 0;
    default: break;
    }
    int64_t fixed;
    int rc = fixed_int(cur, i, &fixed);
    if (rc >= 0) {
        if (rc > 0)
            *out = pv_int_value(fixed);
        return 0;
    }
    if (decode_for(cur, i, err))
        return -1;
    const pv_sample *s = &st->sample;
    if (s->attr_index < 0)
        return 0;  /* an id no event owns: nothing but the record is known */
    if (pv_column_in(SYMBOL_COLUMNS, i))
        return symbol_value(cur, i, out, err);
    uint64_t t = s->sample_type;
    switch (i) {
    case COL_EVENT: *out = pv_text_value(pv_file_event_name(cur->file, (size_t)s->attr_index)); break;
    case COL_TIME: *out = value_if(s, PV_SAMPLE_TIME, s->time); break;
    case COL_PID: if (t & PV_SAMPLE_TID) *out = pv_int_value((int32_t)s->pid); break;
    case COL_TID: if (t & PV_SAMPLE_TID) *out = pv_int_value((int32_t)s->tid); break;
    case COL_CPU: *out = value_if(s, PV_SAMPLE_CPU, s->cpu); break;
    case COL_IP: *out = value_if(s, PV_SAMPLE_IP, s->ip); break;
    case COL_ADDR: *out = value_if(s, PV_SAMPLE_ADDR, s->addr); break;
    case COL_PERIOD: if (s->has_period) *out = pv_int_value((int64_t)s->period); break;
    case COL_ID:
        if (t & PV_SAMPLE_ID)
            *out = pv_int_value((int64_t)s->id);
        else
            *out = value_if(s, PV_SAMPLE_IDENTIFIER, s->identifier);
        break;
    case COL_IDENTIFIER: *out = value_if(s, PV_SAMPLE_IDENTIFIER, s->identifier); break;
    case COL_STREAM_ID: *out = value_if(s, PV_SAMPLE_STREAM_ID, s->stream_id); break;
    default: break;
    }
    return 0;
}

/* Every column but the integer fields read alone (samples_column). */
static __attribute__((noinline)) int other_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    SamplesState *st = cur->state;
    const pv_record *r = &st->rows.record;
    pv_error err;
    pv_value v;
    if (i == COL_CPUMODE) {
        pv_result_static_name(ctx, pv_cpumode_name(r->misc & PV_MISC_CPUMODE_MASK));
        return SQLITE_OK;
    }
    if (pv_column_in(VALUE_COLUMNS, i)) {
        if (samples_value(cur, i, &v, &err))
            return pv_result_error(ctx, &err);
        pv_result_value(ctx, &v);
        return SQLITE_OK;
    }
    if (decode_for(cur, i, &err))
        return pv_result_error(ctx, &err);
    const pv_sample *s = &st->sample;
    if (s->attr_index < 0)
        return SQLITE_OK;  /* an id no event owns: nothing but the record is known */
    return pv_samples_decoded_column(cur, ctx, r, s, i);
}

/* Results an integer column read alone (rc, v: as fixed_int gives them),
 * kept for the row's next read of it (a join's inner loop reads the outer
 * row's once per inner row). */
static inline int int_result(PvCursor *cur, sqlite3_context *ctx, int i, int rc, int64_t v)
{
    pv_cursor_keep_int(cur, i, rc > 0, v);
    if (rc > 0)
        sqlite3_result_int64(ctx, v);
    return SQLITE_OK;
}

/* Every column: samples_row_column's cases again (the record's event
 * found by a call where it takes one), then the rest. */
static int samples_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    int64_t v;
    int rc = column_word(cur, i, &v, true);
    if (rc < 0)
        rc = fixed_int(cur, i, &v);
    if (rc < 0)
        return other_column(cur, ctx, i);
    return int_result(cur, ctx, i, rc, v);
}

/* The common column (PvTableDef.row_column): an integer field read alone,
 * from its word where an earlier row of the event had it, or read already
 * on this row;
 * samples_column answers the others. */
static int samples_row_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    SamplesState *st = cur->state;
    int64_t v;
    /* the key of a join on the record, read once per outer row */
    if (i == COL_RECORD) {
        sqlite3_result_int64(ctx, (int64_t)st->rows.record.index);
        return SQLITE_OK;
    }
    int rc = column_word(cur, i, &v, false);
    if (rc < 0)
        return pv_vtab_column_checked(cur, ctx, i);
    return int_result(cur, ctx, i, rc, v);
}

const PvTableDef pv_samples_table = {
    .pushdown = PV_PUSHDOWN_TIME | PV_PUSHDOWN_IDENTITY,
    .name = "perf_samples",
    .columns = PV_FLAGGED_COLUMNS_DECL(SAMPLES_COLUMNS),
    .state_size = sizeof(SamplesState),
    .first = pv_record_rows_first,
    .ordinal_column = "record",
    .next = pv_record_rows_next,
    .column = samples_column,
    .row_next = samples_row_next,
    .row_column = samples_row_column,
    .reset = samples_reset,
    .wants = samples_wants,
    .decode = samples_decode,
    .groupable = VALUE_COLUMNS,
    .row_unique = PV_COLUMNS_WITH(SAMPLES_COLUMNS, UNIQUE),
    .replayed_columns = SYMBOL_COLUMNS,
    .value = samples_value,
};
