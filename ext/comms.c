/*
 * perf_comms: one row per PERF_RECORD_COMM (a thread's name, set by exec
 * or prctl), in file order, decoded by pv_rec_comm_decode (src/decode/record_types.h).
 */
#include "format/perf_abi.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
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
    pv_rec_comm comm;
} CommsState;

static bool comms_wants(uint32_t type)
{
    return type == PV_RECORD_COMM;
}

static int comms_decode(PvCursor *cur, pv_error *err)
{
    CommsState *st = cur->state;
    return pv_rec_comm_decode(cur->file, &st->rows.record, &st->comm, err);
}

static int comms_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    CommsState *st = cur->state;
    const pv_rec_comm *c = &st->comm;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_TIME: pv_result_trailer(ctx, &c->trailer, PV_TRAILER_TIME); break;
    case COL_PID: sqlite3_result_int(ctx, (int32_t)c->pid); break;
    case COL_TID: sqlite3_result_int(ctx, (int32_t)c->tid); break;
    case COL_COMM: pv_result_file_text(ctx, c->comm, c->comm_len); break;
    case COL_EXEC: sqlite3_result_int(ctx, c->exec); break;
    case COL_CPU: pv_result_trailer(ctx, &c->trailer, PV_TRAILER_CPU); break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_comms_table = {
    .pushdown = PV_PUSHDOWN_TIME,
    .name = "perf_comms",
    .columns = PV_COLUMNS_DECL(COMMS_COLUMNS),
    .state_size = sizeof(CommsState),
    .first = pv_record_rows_first,
    .ordinal_column = "record",
    .next = pv_record_rows_next,
    .column = comms_column,
    .reset = pv_record_rows_reset,
    .wants = comms_wants,
    .decode = comms_decode,
};
