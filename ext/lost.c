/*
 * perf_lost: one row per PERF_RECORD_LOST (ring buffer overflow) and
 * PERF_RECORD_LOST_SAMPLES (dropped by the kernel), decoded by
 * pv_rec_lost_decode (src/decode/record_types.h).
 */
#include "format/event_names.h"
#include "format/perf_abi.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
#include "vtab_common.h"

#define LOST_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(KIND, kind, TEXT) \
    X(TIME, time, INTEGER) \
    X(PID, pid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(CPU, cpu, INTEGER) \
    X(ID, id, INTEGER) \
    X(LOST, lost, INTEGER) \
    X(EVENT, event, TEXT)
enum { LOST_COLUMNS(PV_COLUMN_ENUM) };

typedef struct LostState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    pv_rec_lost lost;
} LostState;

static bool lost_wants(uint32_t type)
{
    return type == PV_RECORD_LOST || type == PV_RECORD_LOST_SAMPLES;
}

static int lost_decode(PvCursor *cur, pv_error *err)
{
    LostState *st = cur->state;
    return pv_rec_lost_decode(cur->file, &st->rows.record, &st->lost, err);
}

static int lost_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    LostState *st = cur->state;
    const pv_rec_lost *l = &st->lost;
    const pv_sample_id *t = &l->trailer;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_KIND:
        pv_result_static_name(ctx, pv_record_type_name(st->rows.record.type));
        break;
    case COL_TIME: pv_result_trailer(ctx, t, PV_TRAILER_TIME); break;
    case COL_PID: pv_result_trailer(ctx, t, PV_TRAILER_PID); break;
    case COL_TID: pv_result_trailer(ctx, t, PV_TRAILER_TID); break;
    case COL_CPU: pv_result_trailer(ctx, t, PV_TRAILER_CPU); break;
    case COL_ID: if (l->has_id) pv_result_u64(ctx, l->id); break;
    case COL_LOST: pv_result_u64(ctx, l->lost); break;
    case COL_EVENT: {
        /* LOST names its event by id; LOST_SAMPLES by its trailer. */
        int index = l->has_id ? pv_file_attr_for_id(cur->file, l->id)
                              : (t->fields ? t->attr_index : -1);
        if (l->has_id && index < 0 && pv_file_nr_attrs(cur->file) == 1)
            index = 0;
        if (index >= 0)
            sqlite3_result_text(ctx, pv_file_event_name(cur->file, (size_t)index), -1,
                                SQLITE_TRANSIENT);
        break;
    }
    }
    return SQLITE_OK;
}

const PvTableDef pv_lost_table = {
    .pushdown = PV_PUSHDOWN_TIME | PV_PUSHDOWN_IDENTITY,
    .name = "perf_lost",
    .columns = PV_COLUMNS_DECL(LOST_COLUMNS),
    .state_size = sizeof(LostState),
    .first = pv_record_rows_first,
    .ordinal_column = "record",
    .next = pv_record_rows_next,
    .column = lost_column,
    .reset = pv_record_rows_reset,
    .wants = lost_wants,
    .decode = lost_decode,
};
