/*
 * perf_events: one row per event (perf_event_attr) of the file.
 */
#include "format/event_names.h"
#include "format/attr.h"
#include "base/json_writer.h"
#include "vtab_common.h"

#define EVENTS_COLUMNS(X) \
    X(IDX, idx, INTEGER) \
    X(NAME, name, TEXT) \
    X(TYPE, type, INTEGER) \
    X(CONFIG, config, INTEGER) \
    X(SAMPLE_PERIOD, sample_period, INTEGER) \
    X(SAMPLE_FREQ, sample_freq, INTEGER) \
    X(SAMPLE_TYPE, sample_type, TEXT) \
    X(READ_FORMAT, read_format, TEXT) \
    X(IDS, ids, TEXT) \
    X(ATTR, attr, TEXT)
enum { EVENTS_COLUMNS(PV_COLUMN_ENUM) };

typedef struct EventsState {
    size_t index;
} EventsState;

static int events_next(PvCursor *cur, pv_error *err)
{
    (void)err;
    EventsState *st = cur->state;
    st->index++;
    cur->rowid = (sqlite3_int64)st->index;
    cur->eof = st->index >= pv_file_nr_attrs(cur->file);
    return 0;
}

static int events_first(PvCursor *cur, pv_error *err)
{
    (void)err;
    EventsState *st = cur->state;
    st->index = 0;
    cur->rowid = 0;
    cur->eof = pv_file_nr_attrs(cur->file) == 0;
    return 0;
}

static int events_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    EventsState *st = cur->state;
    const pv_attr *a = pv_file_attr(cur->file, st->index);
    bool freq = pv_attr_flag(a, PV_ATTR_FREQ);
    pv_strbuf *text = &cur->text;
    pv_strbuf_reset(text);
    switch (i) {
    case COL_IDX: sqlite3_result_int64(ctx, (sqlite3_int64)st->index); break;
    case COL_NAME:
        sqlite3_result_text(ctx, pv_file_event_name(cur->file, st->index), -1, SQLITE_TRANSIENT);
        break;
    case COL_TYPE: sqlite3_result_int64(ctx, a->type); break;
    case COL_CONFIG: pv_result_u64(ctx, a->config); break;
    case COL_SAMPLE_PERIOD: if (!freq) pv_result_u64(ctx, a->sample_period); break;
    case COL_SAMPLE_FREQ: if (freq) pv_result_u64(ctx, a->sample_period); break;
    case COL_SAMPLE_TYPE:
        pv_sample_type_string(a->sample_type, text);
        pv_result_text_buffer(cur, ctx);
        break;
    case COL_READ_FORMAT:
        pv_read_format_string(a->read_format, text);
        pv_result_text_buffer(cur, ctx);
        break;
    case COL_IDS: {
        pv_json_writer w;
        pv_json_init(&w, text);
        pv_json_array_begin(&w);
        for (uint64_t k = 0; k < a->nr_ids; k++)
            pv_json_u64(&w, a->ids[k]);
        pv_json_array_end(&w);
        pv_result_text_buffer(cur, ctx);
        break;
    }
    case COL_ATTR:
        pv_attr_json(a, text);
        pv_result_text_buffer(cur, ctx);
        break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_events_table = {
    .name = "perf_events",
    .columns = PV_COLUMNS_DECL(EVENTS_COLUMNS),
    .state_size = sizeof(EventsState),
    .first = events_first,
    .next = events_next,
    .column = events_column,
};
