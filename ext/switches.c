/*
 * perf_switches: one row per PERF_RECORD_SWITCH and SWITCH_CPU_WIDE, decoded by
 * pv_rec_switch_decode (src/decode/record_types.h).  A SWITCH has no body: its task
 * is the trailer's.
 */
#include "format/perf_abi.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
#include "vtab_common.h"

#define SWITCHES_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(KIND, kind, TEXT) \
    X(TIME, time, INTEGER) \
    X(PID, pid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(CPU, cpu, INTEGER) \
    X(DIRECTION, direction, TEXT) \
    X(PREEMPT, preempt, INTEGER) \
    X(NEXT_PREV_PID, next_prev_pid, INTEGER) \
    X(NEXT_PREV_TID, next_prev_tid, INTEGER)
enum { SWITCHES_COLUMNS(PV_COLUMN_ENUM) };

typedef struct SwitchesState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    pv_rec_switch sw;
} SwitchesState;

static bool switches_wants(uint32_t type)
{
    return type == PV_RECORD_SWITCH || type == PV_RECORD_SWITCH_CPU_WIDE;
}

static int switches_decode(PvCursor *cur, pv_error *err)
{
    SwitchesState *st = cur->state;
    return pv_rec_switch_decode(cur->file, &st->rows.record, &st->sw, err);
}

static int switches_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    SwitchesState *st = cur->state;
    const pv_rec_switch *sw = &st->sw;
    const pv_sample_id *t = &sw->trailer;
    bool out = sw->out;
    bool cpu_wide = sw->cpu_wide;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_KIND:
        pv_result_static_name(ctx, pv_record_type_name(st->rows.record.type));
        break;
    case COL_TIME: pv_result_trailer(ctx, t, PV_TRAILER_TIME); break;
    case COL_PID: pv_result_trailer(ctx, t, PV_TRAILER_PID); break;
    case COL_TID: pv_result_trailer(ctx, t, PV_TRAILER_TID); break;
    case COL_CPU: pv_result_trailer(ctx, t, PV_TRAILER_CPU); break;
    case COL_DIRECTION: pv_result_static_name(ctx, out ? "out" : "in"); break;
    case COL_PREEMPT:
        sqlite3_result_int(ctx, out && sw->preempt);
        break;
    case COL_NEXT_PREV_PID: if (cpu_wide) sqlite3_result_int(ctx, (int32_t)sw->next_prev_pid); break;
    case COL_NEXT_PREV_TID: if (cpu_wide) sqlite3_result_int(ctx, (int32_t)sw->next_prev_tid); break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_switches_table = {
    .pushdown = PV_PUSHDOWN_TIME | PV_PUSHDOWN_IDENTITY,
    .name = "perf_switches",
    .columns = PV_COLUMNS_DECL(SWITCHES_COLUMNS),
    .state_size = sizeof(SwitchesState),
    .first = pv_record_rows_first,
    .ordinal_column = "record",
    .next = pv_record_rows_next,
    .column = switches_column,
    .reset = pv_record_rows_reset,
    .wants = switches_wants,
    .decode = switches_decode,
};
