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
#include "decode/tracepoint.h"
#include "location_columns.h"
#include "row_values.h"
#include "vtab_common.h"
#include "base/pv_alloc.h"

#define SAMPLES_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(EVENT, event, TEXT) \
    X(TIME, time, INTEGER) \
    X(PID, pid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(CPU, cpu, INTEGER) \
    X(IP, ip, INTEGER) \
    X(ADDR, addr, INTEGER) \
    X(PERIOD, period, INTEGER) \
    X(ID, id, INTEGER) \
    X(STREAM_ID, stream_id, INTEGER) \
    X(CPUMODE, cpumode, TEXT) \
    X(CALLCHAIN, callchain, TEXT) \
    X(RAW, raw, BLOB) \
    X(BRANCH_STACK, branch_stack, TEXT) \
    X(WEIGHT, weight, INTEGER) \
    X(DATA_SRC, data_src, INTEGER) \
    X(TRANSACTION, "transaction", INTEGER) \
    X(PHYS_ADDR, phys_addr, INTEGER) \
    X(CGROUP, cgroup, INTEGER) \
    X(DATA_PAGE_SIZE, data_page_size, INTEGER) \
    X(CODE_PAGE_SIZE, code_page_size, INTEGER) \
    X(REGS_USER, regs_user, TEXT) \
    X(REGS_INTR, regs_intr, TEXT) \
    X(STACK_USER, stack_user, BLOB) \
    X(READ, read, TEXT) \
    X(AUX, aux, BLOB) \
    X(IDENTIFIER, identifier, INTEGER) \
    X(BRANCH_HW_IDX, branch_hw_idx, INTEGER) \
    X(INS_LAT, ins_lat, INTEGER) \
    X(RETIRE_LAT, retire_lat, INTEGER) \
    X(STACK_USER_DYN_SIZE, stack_user_dyn_size, INTEGER) \
    X(FILE_OFFSET, file_offset, INTEGER) \
    X(MISC, misc, INTEGER) \
    X(COMM, comm, TEXT) \
    X(DSO, dso, TEXT) \
    X(DSO_OFFSET, dso_offset, INTEGER) \
    X(SYM, sym, TEXT) \
    X(SYM_OFFSET, sym_offset, INTEGER) \
    X(SYM_STATUS, sym_status, TEXT) \
    X(TRACE_EVENT, trace_event, TEXT) \
    X(TRACE_FIELDS, trace_fields, TEXT) \
    X(SRCFILE, srcfile, TEXT) \
    X(SRCLINE, srcline, INTEGER)
enum { SAMPLES_COLUMNS(PV_COLUMN_ENUM) };

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
    /* The integer column read last on this row (-1: none), and its value:
     * a join reads the outer row's column once per inner row. */
    int last_column;
    int last_rc;
    int64_t last_value;
} SamplesState;

static bool samples_wants(uint32_t type)
{
    return type == PV_RECORD_SAMPLE;
}

/* Decoding waits for the first column that needs it. */
static int samples_decode(PvCursor *cur, pv_error *err)
{
    (void)err;
    SamplesState *st = cur->state;
    st->decoded = 0;
    st->attr_index = -2;
    st->last_column = -1;
    st->keyed = false;
    st->located = false;
    pv_source_forget(&st->source);
    return 0;
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
    unsigned cpumode = st->rows.record.misc & PV_MISC_CPUMODE_MASK;
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
    *out = pv_location_value(&st->location, i - COL_DSO);
    return 0;
}

enum { FIXED_ONLY = 1, FULL = 2 };

/* Columns that pv_sample_decode_fixed answers (the symbol columns need
 * only the pid, tid, time and ip). */
static bool is_fixed_column(int i)
{
    switch (i) {
    case COL_EVENT: case COL_TIME: case COL_PID: case COL_TID: case COL_CPU: case COL_IP:
    case COL_ADDR: case COL_PERIOD: case COL_ID: case COL_STREAM_ID: case COL_IDENTIFIER:
    case COL_COMM: case COL_DSO: case COL_DSO_OFFSET: case COL_SYM: case COL_SYM_OFFSET:
    case COL_SYM_STATUS: case COL_SRCFILE: case COL_SRCLINE:
        return true;
    default:
        return false;
    }
}

static void result_if(sqlite3_context *ctx, const pv_sample *s, uint64_t bit, uint64_t v)
{
    if (s->sample_type & bit)
        pv_result_u64(ctx, v);
}

/* Decodes the current sample as far as column i needs. */
static int decode_for(PvCursor *cur, int i, pv_error *err)
{
    SamplesState *st = cur->state;
    int needed = is_fixed_column(i) ? FIXED_ONLY : FULL;
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

/* The columns samples_value gives: the record's own and the fixed fields,
 * what GROUP BY and DISTINCT mostly take (see PvTableDef.groupable). */
#define COLUMN_BIT(c) ((uint64_t)1 << (c))
#define SAMPLES_VALUE_COLUMNS \
    (COLUMN_BIT(COL_RECORD) | COLUMN_BIT(COL_FILE_OFFSET) | COLUMN_BIT(COL_MISC) | \
     COLUMN_BIT(COL_CPUMODE) | COLUMN_BIT(COL_EVENT) | COLUMN_BIT(COL_TIME) | \
     COLUMN_BIT(COL_PID) | COLUMN_BIT(COL_TID) | COLUMN_BIT(COL_CPU) | COLUMN_BIT(COL_IP) | \
     COLUMN_BIT(COL_ADDR) | COLUMN_BIT(COL_PERIOD) | COLUMN_BIT(COL_ID) | \
     COLUMN_BIT(COL_STREAM_ID) | COLUMN_BIT(COL_IDENTIFIER) | COLUMN_BIT(COL_COMM) | \
     COLUMN_BIT(COL_DSO) | COLUMN_BIT(COL_DSO_OFFSET) | COLUMN_BIT(COL_SYM) | \
     COLUMN_BIT(COL_SYM_OFFSET) | COLUMN_BIT(COL_SYM_STATUS) | COLUMN_BIT(COL_SRCFILE) | \
     COLUMN_BIT(COL_SRCLINE))

/* The fixed field a column reads alone, + 1 (0: none).  id reads ID, or
 * IDENTIFIER when the event has no ID (fixed_value). */
static const uint8_t field_of_column[] = {
    [COL_TIME] = PV_FIELD_TIME + 1, [COL_PID] = PV_FIELD_PID + 1, [COL_TID] = PV_FIELD_TID + 1,
    [COL_CPU] = PV_FIELD_CPU + 1, [COL_IP] = PV_FIELD_IP + 1, [COL_ADDR] = PV_FIELD_ADDR + 1,
    [COL_PERIOD] = PV_FIELD_PERIOD + 1, [COL_ID] = PV_FIELD_ID + 1,
    [COL_STREAM_ID] = PV_FIELD_STREAM_ID + 1, [COL_IDENTIFIER] = PV_FIELD_IDENTIFIER + 1,
};

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

/* An integer fixed field read alone, without decoding the sample (a scan
 * of a column or two reads one word per row): 1 *value is column i's, 0
 * it is NULL, -1 the full decode answers (not such a column, a record
 * too short). */
static inline int fixed_int(PvCursor *cur, int i, int64_t *value)
{
    SamplesState *st = cur->state;
    if ((size_t)i >= sizeof field_of_column || field_of_column[i] == 0 || st->decoded ||
        (!st->places && !make_places(cur)))
        return -1;
    const pv_record *r = &st->rows.record;
    if (st->attr_index == -2)
        st->attr_index = pv_record_attr_index(cur->file, r);
    if (st->attr_index < 0)
        return 0;   /* an id no event owns: nothing but the record is known */
    const pv_sample_places *p = &st->places[st->attr_index];
    pv_fixed_field field = (pv_fixed_field)(field_of_column[i] - 1);
    if (field == PV_FIELD_ID && p->at[PV_FIELD_ID] == 0)
        field = PV_FIELD_IDENTIFIER;
    uint64_t v;
    int rc = pv_sample_field(cur->file, r, p, field, &v);
    if (rc > 0)
        *value = field == PV_FIELD_PID || field == PV_FIELD_TID ? (int64_t)(int32_t)v : (int64_t)v;
    return rc;
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
    if ((i >= COL_COMM && i <= COL_SYM_STATUS) || i == COL_SRCFILE || i == COL_SRCLINE)
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
    if ((SAMPLES_VALUE_COLUMNS >> i) & 1) {
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
    uint64_t t = s->sample_type;
    /* reset by the cases that write text: the others are per-row work */
    pv_strbuf *text = &cur->text;
    switch (i) {
    case COL_CALLCHAIN:
        if (t & PV_SAMPLE_CALLCHAIN) {
            pv_strbuf_reset(text);
            pv_sample_callchain_json(s, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_RAW:
        if (t & PV_SAMPLE_RAW) pv_result_file_blob(ctx, s->raw, s->raw_size);
        break;
    case COL_BRANCH_STACK:
        if (t & PV_SAMPLE_BRANCH_STACK) {
            pv_strbuf_reset(text);
            pv_sample_branch_stack_json(s, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_BRANCH_HW_IDX:
        if (s->has_branch_hw_idx) pv_result_u64(ctx, s->branch_hw_idx);
        break;
    case COL_WEIGHT:
        if (t & PV_SAMPLE_WEIGHT_STRUCT)
            pv_result_u64(ctx, s->weight & 0xffffffffu);
        else
            result_if(ctx, s, PV_SAMPLE_WEIGHT, s->weight);
        break;
    case COL_INS_LAT:
        if (t & PV_SAMPLE_WEIGHT_STRUCT) sqlite3_result_int(ctx, (int)((s->weight >> 32) & 0xffff));
        break;
    case COL_RETIRE_LAT:
        if (t & PV_SAMPLE_WEIGHT_STRUCT) sqlite3_result_int(ctx, (int)((s->weight >> 48) & 0xffff));
        break;
    case COL_DATA_SRC: result_if(ctx, s, PV_SAMPLE_DATA_SRC, s->data_src); break;
    case COL_TRANSACTION: result_if(ctx, s, PV_SAMPLE_TRANSACTION, s->transaction); break;
    case COL_PHYS_ADDR: result_if(ctx, s, PV_SAMPLE_PHYS_ADDR, s->phys_addr); break;
    case COL_CGROUP: result_if(ctx, s, PV_SAMPLE_CGROUP, s->cgroup); break;
    case COL_DATA_PAGE_SIZE: result_if(ctx, s, PV_SAMPLE_DATA_PAGE_SIZE, s->data_page_size); break;
    case COL_CODE_PAGE_SIZE: result_if(ctx, s, PV_SAMPLE_CODE_PAGE_SIZE, s->code_page_size); break;
    case COL_REGS_USER:
        if (t & PV_SAMPLE_REGS_USER) {
            pv_strbuf_reset(text);
            pv_sample_regs_json(s, &s->regs_user, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_REGS_INTR:
        if (t & PV_SAMPLE_REGS_INTR) {
            pv_strbuf_reset(text);
            pv_sample_regs_json(s, &s->regs_intr, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_STACK_USER:
        if (t & PV_SAMPLE_STACK_USER) pv_result_file_blob(ctx, s->stack_user, s->stack_user_size);
        break;
    case COL_STACK_USER_DYN_SIZE:
        if ((t & PV_SAMPLE_STACK_USER) && s->stack_user_size) pv_result_u64(ctx, s->stack_user_dyn_size);
        break;
    case COL_READ:
        if (t & PV_SAMPLE_READ) {
            pv_strbuf_reset(text);
            pv_sample_read_json(s, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_AUX:
        if (t & PV_SAMPLE_AUX) pv_result_file_blob(ctx, s->aux, s->aux_size);
        break;
    case COL_TRACE_EVENT:
    case COL_TRACE_FIELDS: {
        /* the file's tracepoint formats are parsed the first time either is read */
        pv_trace *trace;
        pv_error err;
        if (pv_trace_get(cur->file, &trace, &err))
            return pv_result_error(ctx, &err);
        if (i == COL_TRACE_EVENT) {
            const char *name = pv_trace_event_name(trace, s->attr_index);
            if (name)
                sqlite3_result_text(ctx, name, -1, SQLITE_TRANSIENT);
            break;
        }
        pv_strbuf_reset(text);
        int rc = pv_trace_fields_json(trace, cur->file, r, s, text, &err);
        if (rc < 0)
            return pv_result_error(ctx, &err);
        if (rc > 0)
            pv_result_text_buffer(cur, ctx);
        break;
    }
    default:
        break;
    }
    return SQLITE_OK;
}

static int samples_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    /* the common case apart, so that it costs no more than it does: an
     * integer field read alone */
    SamplesState *st = cur->state;
    int64_t v;
    int rc;
    if (st->last_column == i) {
        rc = st->last_rc;
        v = st->last_value;
    } else {
        rc = fixed_int(cur, i, &v);
        if (rc < 0)
            return other_column(cur, ctx, i);
        st->last_column = i;
        st->last_rc = rc;
        st->last_value = v;
    }
    if (rc > 0)
        sqlite3_result_int64(ctx, v);
    return SQLITE_OK;
}

const PvTableDef pv_samples_table = {
    .pushdown = PV_PUSHDOWN_TIME | PV_PUSHDOWN_IDENTITY,
    .name = "perf_samples",
    .columns = PV_COLUMNS_DECL(SAMPLES_COLUMNS),
    .state_size = sizeof(SamplesState),
    .first = pv_record_rows_first,
    .ordinal_column = "record",
    .next = pv_record_rows_next,
    .column = samples_column,
    .reset = samples_reset,
    .wants = samples_wants,
    .decode = samples_decode,
    .groupable = SAMPLES_VALUE_COLUMNS,
    .row_unique = COLUMN_BIT(COL_RECORD) | COLUMN_BIT(COL_FILE_OFFSET) | COLUMN_BIT(COL_TIME),
    .replayed_columns = COLUMN_BIT(COL_COMM) | COLUMN_BIT(COL_DSO) | COLUMN_BIT(COL_DSO_OFFSET) |
                        COLUMN_BIT(COL_SYM) | COLUMN_BIT(COL_SYM_OFFSET) |
                        COLUMN_BIT(COL_SYM_STATUS) | COLUMN_BIT(COL_SRCFILE) |
                        COLUMN_BIT(COL_SRCLINE),
    .value = samples_value,
};
