/*
 * perf_callchains: one row per frame of each sample's callchain.
 *
 *   SELECT sym, count(*) FROM perf_callchains('perf.data') WHERE depth = 1 GROUP BY sym;
 *
 * sample is the sample's record (perf_samples.record); depth 0 is the
 * first frame the kernel recorded, the leaf (for a sample with a
 * callchain, the sample's own ip), each caller one deeper.  The
 * PERF_CONTEXT_* markers are not rows: they set the cpumode of the frames
 * after them.  A chain holding any other value that high is corrupt and,
 * as perf discards it, has no rows.  pid, tid, time, period and event
 * repeat the sample's so
 * that profiles need no join.  repeated is 1 when the frame's function
 * (or, unresolved, its address) is the sample's own or that of a shallower
 * frame: summing the frames with repeated = 0 and the samples counts each
 * function once per sample, as perf report --children does, without a
 * DISTINCT over all frames.  rowid = sample * 8192 + depth (a record holds
 * at most 8191 frames).
 *
 * The frames are the sample's stack as every table reads it
 * (symbols/sample_stack.h).  A sample recorded with --call-graph dwarf has
 * its user frames unwound from its registers and stack copy; they
 * follow the callchain's (kernel) entries as user frames, as in perf, each
 * expanded into the functions inlined at it (inlined = 1, named from the
 * debug info, perf's "(inlined)"), then the function holding them, named
 * by its symbol as in perf_samples: a clone such as spin.constprop.0 is
 * not inlined, though perf 6.1 prints it "spin (inlined)".
 *
 * A sample recorded with --call-graph lbr has its user frames from the
 * branch stack, after the callchain's kernel part (decode/frame_walk.h).
 * origin says where each frame came from: 'callchain', 'lbr' or 'dwarf'.
 */
#include <stddef.h>
#include <stdlib.h>

#include "format/event_names.h"
#include "decode/callchain.h"
#include "decode/frame_walk.h"
#include "analysis/frame_set.h"
#include "format/perf_abi.h"
#include "stream/record_walk.h"
#include "decode/sample.h"
#include "symbols/sample_stack.h"
#include "symbol_paths.h"
#include "column_flags.h"
#include "location_columns.h"
#include "row_values.h"
#include "vtab_common.h"

/* One row per column (column_flags.h): every column is a value
 * (callchains_value), so a grouped scan may read any; the location
 * columns say which PV_LOC_* field they are.  time is unique with the
 * sample, since a sample's frames are about as many as the rows.  Adding a
 * column is its row and its case in callchains_value. */
#define VALUE PV_COL_VALUE
#define LOCATION(field) (PV_COL_VALUE | PV_COL_LOCATION(field))
#define CALLCHAINS_COLUMNS(X) \
    X(SAMPLE, sample, INTEGER, VALUE | PV_COL_UNIQUE) \
    X(DEPTH, depth, INTEGER, VALUE) \
    X(IP, ip, INTEGER, VALUE) \
    X(CPUMODE, cpumode, TEXT, VALUE) \
    X(DSO, dso, TEXT, LOCATION(PV_LOC_DSO)) \
    X(DSO_OFFSET, dso_offset, INTEGER, LOCATION(PV_LOC_DSO_OFFSET)) \
    X(SYM, sym, TEXT, LOCATION(PV_LOC_SYM)) \
    X(SYM_OFFSET, sym_offset, INTEGER, LOCATION(PV_LOC_SYM_OFFSET)) \
    X(SYM_STATUS, sym_status, TEXT, LOCATION(PV_LOC_SYM_STATUS)) \
    X(PID, pid, INTEGER, VALUE) \
    X(TID, tid, INTEGER, VALUE) \
    X(TIME, time, INTEGER, VALUE | PV_COL_UNIQUE) \
    X(PERIOD, period, INTEGER, VALUE) \
    X(EVENT, event, TEXT, VALUE) \
    X(REPEATED, repeated, INTEGER, VALUE) \
    X(INLINED, inlined, INTEGER, VALUE) \
    X(ORIGIN, origin, TEXT, VALUE) \
    X(SRCFILE, srcfile, TEXT, VALUE) \
    X(SRCLINE, srcline, INTEGER, VALUE)
enum { CALLCHAINS_COLUMNS(PV_FLAGGED_COLUMN_ENUM) CALLCHAINS_COLUMN_COUNT };
_Static_assert(CALLCHAINS_COLUMN_COUNT <= 64, "a column mask holds 64 columns");
static const uint32_t column_flags[] = { CALLCHAINS_COLUMNS(PV_COLUMN_FLAGS) };

typedef struct CallchainsState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    pv_sample sample;
    uint64_t depth;
    pv_stack_frame frame;       /* the current row's (symbols/sample_stack.h) */
    pv_symbolizer *symbolizer;
    bool keyed;                 /* key holds the sample's order among the maps' events */
    uint64_t key;
    bool located;
    pv_location location;
    /* repeated: the functions of the sample's own ip and of its frames so far */
    bool track_repeats;
    pv_frame_set seen;
    bool repeated;
    PvSourceColumns source;     /* srcfile, srcline */
    /* the sample's frames, last: not cleared (see state_zeroed), as each
     * sample's start sets what the stack reads */
    pv_sample_stack stack;
} CallchainsState;

static bool callchains_wants(uint32_t type)
{
    return type == PV_RECORD_SAMPLE;
}

/* The cursor's symbolizer, readied for the current sample (symbolizer.h). */
static int ready_symbolizer(PvCursor *cur, pv_error *err)
{
    CallchainsState *st = cur->state;
    return pv_vtab_sample_symbolizer(cur, &st->symbolizer, &st->rows.record, &st->sample,
                                     &st->keyed, &st->key, err);
}

static uint64_t sample_order_key(const CallchainsState *st)
{
    return st->key;
}

/* The current frame's ip resolved (its name: pv_stack_frame_name). */
static void resolve_frame(CallchainsState *st)
{
    const pv_sample *s = &st->sample;
    pv_symbolizer_resolve(st->symbolizer, (int32_t)s->pid, sample_order_key(st),
                          st->frame.cpumode, st->frame.ip, &st->location);
}

static pv_frame_key key_of(const pv_location *l, uint64_t ip)
{
    pv_frame_key k = { l->dso, l->sym, 0, false };
    if (!l->sym)
        k.addr = l->dso ? l->dso_offset : ip;
    return k;
}

/* The current frame resolved, and whether its function came before. */
static int track_frame(PvCursor *cur, bool new_sample, pv_error *err)
{
    CallchainsState *st = cur->state;
    const pv_sample *s = &st->sample;
    if (ready_symbolizer(cur, err))
        return -1;
    if (!(s->sample_type & PV_SAMPLE_TID)) {
        st->repeated = false;
        return 0;
    }
    /* the leaf frame is most often the sample's own ip: resolved once */
    bool own_resolved = false;
    if (new_sample) {
        pv_frame_set_clear(&st->seen);
        if (s->sample_type & PV_SAMPLE_IP) {
            unsigned own_cpumode = s->misc & PV_MISC_CPUMODE_MASK;
            pv_location own;
            pv_symbolizer_resolve(st->symbolizer, (int32_t)s->pid, sample_order_key(st),
                                  own_cpumode, s->ip, &own);
            pv_frame_key k = key_of(&own, s->ip);
            if (pv_frame_set_add(&st->seen, &k) < 0)
                return pv_error_set(err, "perf_callchains: out of memory");
            if (st->frame.ip == s->ip && st->frame.cpumode == own_cpumode) {
                st->location = own;
                own_resolved = true;
            }
        }
    }
    if (!own_resolved)
        resolve_frame(st);
    st->location.sym = pv_stack_frame_name(&st->frame, &st->location);
    st->located = true;
    pv_frame_key k = key_of(&st->location, st->frame.ip);
    k.inlined = pv_stack_frame_inlined(&st->frame);
    int added = pv_frame_set_add(&st->seen, &k);
    if (added < 0)
        return pv_error_set(err, "perf_callchains: out of memory");
    st->repeated = added == 0;
    return 0;
}

static int frame_row(PvCursor *cur, bool new_sample, pv_error *err)
{
    CallchainsState *st = cur->state;
    st->located = false;
    pv_source_forget(&st->source);
    cur->rowid = (sqlite3_int64)(st->rows.record.index * 8192 + st->depth);
    return st->track_repeats ? track_frame(cur, new_sample || st->depth == 0, err) : 0;
}

/* The stack's symbolizer, readied when it unwinds a DWARF stack. */
static int ready_stack(void *ctx, pv_symbolizer **sym, uint64_t *key, pv_error *err)
{
    PvCursor *cur = ctx;
    CallchainsState *st = cur->state;
    if (ready_symbolizer(cur, err))
        return -1;
    *sym = st->symbolizer;
    *key = sample_order_key(st);
    return 0;
}

/* Moves to the next frame, across samples; sets eof at the end. */
static int advance(PvCursor *cur, pv_error *err, bool next_sample)
{
    CallchainsState *st = cur->state;
    bool new_sample = next_sample;
    for (;;) {
        if (next_sample) {
            int rc = pv_record_rows_next(cur, err);
            if (rc < 0 || cur->eof)
                return rc < 0 ? -1 : 0;
            if (pv_sample_decode(cur->file, &st->rows.record, &st->sample, err))
                return -1;
            st->depth = 0;
            st->keyed = false;
            pv_sample_stack_start_lazy(&st->stack, cur->file, &st->sample, ready_stack, cur);
        }
        next_sample = true;
        int rc = pv_sample_stack_next(&st->stack, &st->frame, err);
        if (rc < 0)
            return -1;
        /* rowids hold 8192 rows a sample: unwound frames past them are left out */
        if (rc == 1 && (st->frame.origin != PV_ORIGIN_DWARF || st->depth < 8192))
            return frame_row(cur, new_sample, err);
        new_sample = true;
    }
}

static int callchains_first(PvCursor *cur, pv_error *err)
{
    CallchainsState *st = cur->state;
    st->track_repeats = pv_column_used(cur, COL_REPEATED);
    if (pv_record_rows_start(cur, err))
        return -1;
    return advance(cur, err, true);
}

static int callchains_next(PvCursor *cur, pv_error *err)
{
    CallchainsState *st = cur->state;
    st->depth++;
    return advance(cur, err, false);
}

static void callchains_reset(PvCursor *cur)
{
    CallchainsState *st = cur->state;
    pv_symbolizer_free(st->symbolizer);
    st->symbolizer = NULL;
    pv_frame_set_free(&st->seen);
    pv_record_rows_reset(cur);
}

static int location_value(PvCursor *cur, int i, pv_value *out, pv_error *err)
{
    CallchainsState *st = cur->state;
    const pv_sample *s = &st->sample;
    if (ready_symbolizer(cur, err))
        return -1;
    if (!(s->sample_type & PV_SAMPLE_TID))
        return 0;
    if (i == COL_SRCFILE || i == COL_SRCLINE) {
        PvSourceAddress at = { (int32_t)s->pid, sample_order_key(st), st->frame.cpumode,
                               st->frame.ip, st->frame.level };
        *out = pv_source_value(&st->source, st->symbolizer, &at, i == COL_SRCFILE);
        return 0;
    }
    if (!st->located) {
        resolve_frame(st);
        st->location.sym = pv_stack_frame_name(&st->frame, &st->location);
        st->located = true;
    }
    if (i == COL_INLINED)
        *out = pv_int_value(pv_stack_frame_inlined(&st->frame));
    else
        *out = pv_location_value(&st->location, pv_col_location_of(column_flags[i]));
    return 0;
}

/* Every column, as a value (PvTableDef.value): all are integers or text. */
static int callchains_value(PvCursor *cur, int i, pv_value *out, pv_error *err)
{
    CallchainsState *st = cur->state;
    const pv_sample *s = &st->sample;
    *out = pv_null_value();
    switch (i) {
    case COL_SAMPLE: *out = pv_int_value((int64_t)st->rows.record.index); break;
    case COL_DEPTH: *out = pv_int_value((int64_t)st->depth); break;
    case COL_IP: *out = pv_int_value((int64_t)st->frame.ip); break;
    case COL_CPUMODE: *out = pv_text_value(pv_cpumode_name(st->frame.cpumode)); break;
    case COL_PID:
        if (s->sample_type & PV_SAMPLE_TID) *out = pv_int_value((int32_t)s->pid);
        break;
    case COL_TID:
        if (s->sample_type & PV_SAMPLE_TID) *out = pv_int_value((int32_t)s->tid);
        break;
    case COL_TIME:
        if (s->sample_type & PV_SAMPLE_TIME) *out = pv_int_value((int64_t)s->time);
        break;
    case COL_PERIOD:
        if (s->has_period) *out = pv_int_value((int64_t)s->period);
        break;
    case COL_EVENT: *out = pv_text_value(pv_file_event_name(cur->file, (size_t)s->attr_index)); break;
    case COL_ORIGIN: *out = pv_text_value(pv_frame_origin_name(st->frame.origin)); break;
    case COL_REPEATED:
        if (s->sample_type & PV_SAMPLE_TID) *out = pv_int_value(st->repeated);
        break;
    default:
        return location_value(cur, i, out, err);
    }
    return 0;
}

static int callchains_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    CallchainsState *st = cur->state;
    /* the frame's own integers apart, as callchains_value gives them: a
     * scan reads one per frame */
    switch (i) {
    case COL_IP:
        sqlite3_result_int64(ctx, (int64_t)st->frame.ip);
        return SQLITE_OK;
    case COL_DEPTH:
        sqlite3_result_int64(ctx, (int64_t)st->depth);
        return SQLITE_OK;
    case COL_SAMPLE:
        sqlite3_result_int64(ctx, (int64_t)st->rows.record.index);
        return SQLITE_OK;
    case COL_CPUMODE:
        pv_result_static_name(ctx, pv_cpumode_name(st->frame.cpumode));
        return SQLITE_OK;
    default:
        break;
    }
    pv_value v;
    pv_error err;
    if (callchains_value(cur, i, &v, &err))
        return pv_result_error(ctx, &err);
    pv_result_value(ctx, &v);
    return SQLITE_OK;
}

const PvTableDef pv_callchains_table = {
    .name = "perf_callchains",
    .columns = PV_FLAGGED_COLUMNS_DECL(CALLCHAINS_COLUMNS),
    .state_size = sizeof(CallchainsState),
    .state_zeroed = offsetof(CallchainsState, stack),
    .first = callchains_first,
    .next = callchains_next,
    .column = callchains_column,
    .reset = callchains_reset,
    .wants = callchains_wants,
    .ordinal_column = "sample",
    .rows_per_ordinal_many = true,
    .decode = NULL,
    .groupable = PV_COLUMNS_WITH(CALLCHAINS_COLUMNS, VALUE),
    .row_unique = PV_COLUMNS_WITH(CALLCHAINS_COLUMNS, UNIQUE),
    .replayed_columns = ~(uint64_t)0,
    .value = callchains_value,
};
