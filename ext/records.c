/*
 * perf_records: every record of the stream, in file order, with the
 * sample_id fields every table shares and the body decoded as JSON.
 */
#include "format/event_names.h"
#include "format/perf_abi.h"
#include "decode/record_fields.h"
#include "stream/record_walk.h"
#include "decode/sample.h"
#include "vtab_common.h"

#define RECORDS_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(FILE_OFFSET, file_offset, INTEGER) \
    X(TYPE, type, INTEGER) \
    X(NAME, name, TEXT) \
    X(MISC, misc, INTEGER) \
    X(SIZE, size, INTEGER) \
    X(TIME, time, INTEGER) \
    X(PID, pid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(CPU, cpu, INTEGER) \
    X(ID, id, INTEGER) \
    X(FIELDS, fields, TEXT) \
    X(DATA, data, BLOB) \
    X(EVENT, event, TEXT)
enum { RECORDS_COLUMNS(PV_COLUMN_ENUM) };

typedef struct RecordsState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    bool ids_decoded;
    pv_sample_id ids;           /* the record's identity (sample.h) */
} RecordsState;

/* Every record is a row; its ids are decoded when a column asks. */
static int records_decode(PvCursor *cur, pv_error *err)
{
    (void)err;
    RecordsState *st = cur->state;
    st->ids_decoded = false;
    return 0;
}

static int decode_ids(PvCursor *cur, RecordsState *st, pv_error *err)
{
    if (st->ids_decoded)
        return 0;
    if (pv_record_identity_decode(cur->file, &st->rows.record, &st->ids, err))
        return -1;
    st->ids_decoded = true;
    return 0;
}

static int records_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    RecordsState *st = cur->state;
    const pv_record *r = &st->rows.record;
    pv_error err;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)r->index); return SQLITE_OK;
    case COL_FILE_OFFSET: sqlite3_result_int64(ctx, (sqlite3_int64)r->file_offset); return SQLITE_OK;
    case COL_TYPE: sqlite3_result_int64(ctx, r->type); return SQLITE_OK;
    case COL_NAME: {
        const char *name = pv_record_type_name(r->type);
        if (name)
            pv_result_static_name(ctx, name);
        return SQLITE_OK;
    }
    case COL_MISC: sqlite3_result_int(ctx, r->misc); return SQLITE_OK;
    case COL_SIZE: sqlite3_result_int(ctx, r->size); return SQLITE_OK;
    case COL_DATA: pv_result_file_blob(ctx, r->bytes, r->size); return SQLITE_OK;
    case COL_FIELDS:
        pv_strbuf_reset(&cur->text);
        if (pv_record_fields_json(cur->file, r, &cur->text, &err))
            return pv_result_error(ctx, &err);
        pv_result_text_buffer(cur, ctx);
        return SQLITE_OK;
    default:
        break;
    }
    if (decode_ids(cur, st, &err))
        return pv_result_error(ctx, &err);
    const pv_sample_id *ids = &st->ids;
    switch (i) {
    case COL_TIME: pv_result_trailer(ctx, ids, PV_TRAILER_TIME); break;
    case COL_PID: pv_result_trailer(ctx, ids, PV_TRAILER_PID); break;
    case COL_TID: pv_result_trailer(ctx, ids, PV_TRAILER_TID); break;
    case COL_CPU: pv_result_trailer(ctx, ids, PV_TRAILER_CPU); break;
    case COL_ID:
        if (ids->fields & PV_SAMPLE_ID) pv_result_u64(ctx, ids->id);
        else if (ids->fields & PV_SAMPLE_IDENTIFIER) pv_result_u64(ctx, ids->identifier);
        break;
    case COL_EVENT: {
        /* A record other than SAMPLE names its event only in its trailer. */
        bool named = r->type == PV_RECORD_SAMPLE || ids->fields;
        if (named && ids->attr_index >= 0)
            sqlite3_result_text(ctx, pv_file_event_name(cur->file, (size_t)ids->attr_index), -1,
                                SQLITE_TRANSIENT);
        break;
    }
    }
    return SQLITE_OK;
}

const PvTableDef pv_records_table = {
    .pushdown = PV_PUSHDOWN_TIME | PV_PUSHDOWN_IDENTITY,
    .name = "perf_records",
    .columns = PV_COLUMNS_DECL(RECORDS_COLUMNS),
    .state_size = sizeof(RecordsState),
    .first = pv_record_rows_first,
    .ordinal_column = "record",
    .next = pv_record_rows_next,
    .column = records_column,
    .reset = pv_record_rows_reset,
    .decode = records_decode,
};
