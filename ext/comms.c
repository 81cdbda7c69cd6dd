/*
 * perf_comms: one row per PERF_RECORD_COMM (a thread's name, set by exec
 * or prctl), in file order.
 *
 *   u32 pid, tid; char comm[] (NUL-padded to 8 bytes); sample_id trailer
 */
#include "perf_abi.h"
#include "pv_cursor.h"
#include "record_walk.h"
#include "sample.h"
#include "vtab_common.h"

#define COMMS_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(TIME, time, INTEGER) \
    X(PID, pid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(COMM, comm, TEXT) \
    X(EXEC, exec, INTEGER) \
    X(CPU, cpu, INTEGER)
enum { COMMS_COLUMNS(PV_COLUMN_ENUM) };

typedef struct CommsState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    pv_sample_id trailer;
    uint32_t pid, tid;
    const char *comm;
    uint64_t comm_len;
} CommsState;

static bool comms_wants(uint32_t type)
{
    return type == PV_RECORD_COMM;
}

static int comms_decode(PvCursor *cur, pv_error *err)
{
    CommsState *st = cur->state;
    pv_file *f = cur->file;
    const pv_record *r = &st->rows.record;
    pv_cursor c;
    if (pv_record_body(f, r, &st->trailer, &c, err))
        return -1;
    st->pid = pv_cursor_u32(&c);
    st->tid = pv_cursor_u32(&c);
    st->comm = pv_cursor_padded_string(&c, pv_cursor_left(&c), &st->comm_len);
    if (c.failed || !st->comm)
        return pv_record_too_short(f, r, err);
    return 0;
}

static int comms_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    CommsState *st = cur->state;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_TIME:
        if (st->trailer.fields & PV_SAMPLE_TIME) pv_result_u64(ctx, st->trailer.time);
        break;
    case COL_PID: sqlite3_result_int(ctx, (int32_t)st->pid); break;
    case COL_TID: sqlite3_result_int(ctx, (int32_t)st->tid); break;
    case COL_COMM: pv_result_file_text(ctx, st->comm, st->comm_len); break;
    case COL_EXEC: sqlite3_result_int(ctx, (st->rows.record.misc & PV_MISC_COMM_EXEC) != 0); break;
    case COL_CPU:
        if (st->trailer.fields & PV_SAMPLE_CPU) pv_result_u64(ctx, st->trailer.cpu);
        break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_comms_table = {
    .pushdown = PV_PUSHDOWN_TIME,
    .name = "perf_comms",
    .columns = PV_COLUMNS_DECL(COMMS_COLUMNS),
    .state_size = sizeof(CommsState),
    .first = pv_record_rows_first,
    .next = pv_record_rows_next,
    .column = comms_column,
    .reset = pv_record_rows_reset,
    .wants = comms_wants,
    .decode = comms_decode,
};
