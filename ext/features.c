/*
 * perf_features: one row per feature bit set in the file's header, known or
 * not.  rowid = id = the HEADER_* number.
 *
 *   SELECT name, value FROM perf_features('perf.data');
 *
 * A section is decoded only when its value column is read, so listing the
 * features (or reading raw) costs nothing but the header already read at
 * open.  A malformed section is an SQL error from that row's value alone.
 */
#include "format/features.h"
#include "vtab_common.h"

#define FEATURES_COLUMNS(X) \
    X(ID, id, INTEGER) \
    X(NAME, name, TEXT) \
    X(VALUE, value, NONE) \
    X(OFFSET, offset, INTEGER) \
    X(SIZE, size, INTEGER) \
    X(RAW, raw, BLOB)
enum { FEATURES_COLUMNS(PV_COLUMN_ENUM) };

typedef struct FeaturesState {
    unsigned id;        /* current feature bit */
} FeaturesState;

/* Moves to the first set bit at or after from; eof past the last. */
static void seek_feature(PvCursor *cur, unsigned from)
{
    FeaturesState *st = cur->state;
    unsigned id = from;
    while (id < PV_FEATURE_BITS && !pv_file_has_feature(cur->file, id))
        id++;
    st->id = id;
    cur->rowid = id;
    cur->eof = id >= PV_FEATURE_BITS;
}

static int features_first(PvCursor *cur, pv_error *err)
{
    (void)err;
    seek_feature(cur, 0);
    return 0;
}

static int features_next(PvCursor *cur, pv_error *err)
{
    (void)err;
    FeaturesState *st = cur->state;
    seek_feature(cur, st->id + 1);
    return 0;
}

static int features_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    FeaturesState *st = cur->state;
    const pv_section *s = pv_file_feature_section(cur->file, st->id);
    pv_error err;
    switch (i) {
    case COL_ID: sqlite3_result_int64(ctx, st->id); break;
    case COL_NAME: {
        const char *name = pv_feature_name(st->id);
        if (name)
            pv_result_static_name(ctx, name);
        break;
    }
    case COL_VALUE: {
        pv_feature_value_kind kind;
        int64_t integer;
        if (pv_feature_decode(cur->file, st->id, &kind, &integer, &cur->text, &err))
            return pv_result_error(ctx, &err);
        if (kind == PV_FEATURE_VALUE_INTEGER)
            sqlite3_result_int64(ctx, integer);
        else if (kind == PV_FEATURE_VALUE_TEXT || kind == PV_FEATURE_VALUE_JSON)
            pv_result_text_buffer(cur, ctx);
        break;
    }
    case COL_OFFSET: pv_result_u64(ctx, s->offset); break;
    case COL_SIZE: pv_result_u64(ctx, s->size); break;
    case COL_RAW: {
        const uint8_t *bytes;
        uint64_t size, offset;
        if (pv_file_feature_bytes(cur->file, st->id, &bytes, &size, &offset, &err))
            return pv_result_error(ctx, &err);
        pv_result_file_blob(ctx, bytes, size);
        break;
    }
    }
    return SQLITE_OK;
}

const PvTableDef pv_features_table = {
    .name = "perf_features",
    .columns = PV_COLUMNS_DECL(FEATURES_COLUMNS),
    .state_size = sizeof(FeaturesState),
    .first = features_first,
    .next = features_next,
    .column = features_column,
};
