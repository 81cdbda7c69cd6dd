/*
 * perf_switches: one row per PERF_RECORD_SWITCH and SWITCH_CPU_WIDE.
 *
 *   SWITCH:          sample_id trailer only (the task is in the trailer)
 *   SWITCH_CPU_WIDE: u32 next_prev_pid, next_prev_tid; sample_id trailer
 *   misc bit 13: switch out (else in); bit 14: out while still runnable (preempted)
 */
#include "perf_abi.h"
#include "pv_cursor.h"
#include "record_walk.h"
#include "sample.h"
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
    pv_sample_id trailer;
    uint32_t next_prev_pid, next_prev_tid;
} SwitchesState;

static bool switches_wants(uint32_t type)
{
    return type == PV_RECORD_SWITCH || type == PV_RECORD_SWITCH_CPU_WIDE;
}

static int switches_decode(PvCursor *cur, pv_error *err)
{
    SwitchesState *st = cur->state;
    pv_file *f = cur->file;
    const pv_record *r = &st->rows.record;
    pv_cursor c;
    if (pv_record_body(f, r, &st->trailer, &c, err))
        return -1;
    if (r->type == PV_RECORD_SWITCH_CPU_WIDE) {
        st->next_prev_pid = pv_cursor_u32(&c);
        st->next_prev_tid = pv_cursor_u32(&c);
        if (c.failed)
            return pv_record_too_short(f, r, err);
    }
    return 0;
}

static int switches_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    SwitchesState *st = cur->state;
    const pv_sample_id *t = &st->trailer;
    bool out = st->rows.record.misc & PV_MISC_SWITCH_OUT;
    bool cpu_wide = st->rows.record.type == PV_RECORD_SWITCH_CPU_WIDE;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_KIND:
        pv_result_static_name(ctx, pv_record_type_name(st->rows.record.type));
        break;
    case COL_TIME: if (t->fields & PV_SAMPLE_TIME) pv_result_u64(ctx, t->time); break;
    case COL_PID: if (t->fields & PV_SAMPLE_TID) sqlite3_result_int(ctx, (int32_t)t->pid); break;
    case COL_TID: if (t->fields & PV_SAMPLE_TID) sqlite3_result_int(ctx, (int32_t)t->tid); break;
    case COL_CPU: if (t->fields & PV_SAMPLE_CPU) pv_result_u64(ctx, t->cpu); break;
    case COL_DIRECTION: pv_result_static_name(ctx, out ? "out" : "in"); break;
    case COL_PREEMPT:
        sqlite3_result_int(ctx, out && (st->rows.record.misc & PV_MISC_SWITCH_OUT_PREEMPT) != 0);
        break;
    case COL_NEXT_PREV_PID: if (cpu_wide) sqlite3_result_int(ctx, (int32_t)st->next_prev_pid); break;
    case COL_NEXT_PREV_TID: if (cpu_wide) sqlite3_result_int(ctx, (int32_t)st->next_prev_tid); break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_switches_table = {
    .pushdown = PV_PUSHDOWN_TIME | PV_PUSHDOWN_IDENTITY,
    .name = "perf_switches",
    .columns = PV_COLUMNS_DECL(SWITCHES_COLUMNS),
    .state_size = sizeof(SwitchesState),
    .first = pv_record_rows_first,
    .next = pv_record_rows_next,
    .column = switches_column,
    .reset = pv_record_rows_reset,
    .wants = switches_wants,
    .decode = switches_decode,
};
