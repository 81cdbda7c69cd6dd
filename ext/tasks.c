/*
 * perf_tasks: one row per PERF_RECORD_FORK and PERF_RECORD_EXIT, in file order,
 * decoded by pv_rec_task_decode (src/decode/record_types.h).
 *
 * `time` is the trailer's, as for every other table (and as perf script
 * prints it); the body's own timestamp is `task_time`.
 */
#include "format/perf_abi.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
#include "vtab_common.h"

#define TASKS_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(KIND, kind, TEXT) \
    X(TIME, time, INTEGER) \
    X(PID, pid, INTEGER) \
    X(PPID, ppid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(PTID, ptid, INTEGER) \
    X(CPU, cpu, INTEGER) \
    X(TASK_TIME, task_time, INTEGER)
enum { TASKS_COLUMNS(PV_COLUMN_ENUM) };

typedef struct TasksState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    pv_rec_task task;
} TasksState;

static bool tasks_wants(uint32_t type)
{
    return type == PV_RECORD_FORK || type == PV_RECORD_EXIT;
}

static int tasks_decode(PvCursor *cur, pv_error *err)
{
    TasksState *st = cur->state;
    return pv_rec_task_decode(cur->file, &st->rows.record, &st->task, err);
}

static int tasks_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    TasksState *st = cur->state;
    const pv_rec_task *t = &st->task;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_KIND:
        pv_result_static_name(ctx, pv_record_type_name(st->rows.record.type));
        break;
    case COL_TIME: pv_result_trailer(ctx, &t->trailer, PV_TRAILER_TIME); break;
    case COL_TASK_TIME: pv_result_u64(ctx, t->time); break;
    case COL_PID: sqlite3_result_int(ctx, (int32_t)t->pid); break;
    case COL_PPID: sqlite3_result_int(ctx, (int32_t)t->ppid); break;
    case COL_TID: sqlite3_result_int(ctx, (int32_t)t->tid); break;
    case COL_PTID: sqlite3_result_int(ctx, (int32_t)t->ptid); break;
    case COL_CPU: pv_result_trailer(ctx, &t->trailer, PV_TRAILER_CPU); break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_tasks_table = {
    .pushdown = PV_PUSHDOWN_TIME,
    .name = "perf_tasks",
    .columns = PV_COLUMNS_DECL(TASKS_COLUMNS),
    .state_size = sizeof(TasksState),
    .first = pv_record_rows_first,
    .ordinal_column = "record",
    .next = pv_record_rows_next,
    .column = tasks_column,
    .reset = pv_record_rows_reset,
    .wants = tasks_wants,
    .decode = tasks_decode,
};
