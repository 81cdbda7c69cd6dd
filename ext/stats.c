/*
 * perf_stats: one row per PERF_RECORD_STAT of a `perf stat record` file: a
 * counter's value on one cpu and thread at the end of a round.  STAT and
 * STAT_ROUND records are decoded by src/decode/record_types.h.
 *
 * perf writes a round's STAT records and then its STAT_ROUND, so a row's
 * round is the number of STAT_ROUND records before it, and round_time the
 * time of the STAT_ROUND that closes it (found by a second walk that reads
 * ahead, once per round).  With -I the values are running totals: a round's counts are its
 * values minus the previous round's.
 */
#include "format/event_names.h"
#include "format/perf_abi.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
#include "vtab_common.h"

#define STATS_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(EVENT, event, TEXT) \
    X(ID, id, INTEGER) \
    X(CPU, cpu, INTEGER) \
    X(THREAD, thread, INTEGER) \
    X(VAL, val, INTEGER) \
    X(ENA, ena, INTEGER) \
    X(RUN, run, INTEGER) \
    X(ROUND, round, INTEGER) \
    X(ROUND_TIME, round_time, INTEGER)
enum { STATS_COLUMNS(PV_COLUMN_ENUM) };

typedef struct StatsState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    pv_rec_stat stat;
    uint64_t round;             /* STAT_ROUND records passed */
    bool round_time_known;      /* round_time is that of this round */
    bool round_closed;          /* a STAT_ROUND follows this round's records */
    uint64_t round_time;
    /* reads ahead to the STAT_ROUND records; only ever moves forward, so
     * finding every round's time costs one more walk of the file */
    pv_walk ahead;
    bool ahead_started, ahead_done;
} StatsState;

static bool stats_wants(uint32_t type)
{
    return type == PV_RECORD_STAT || type == PV_RECORD_STAT_ROUND;
}

/* Rows are STAT records; a STAT_ROUND only moves to the next round. */
static int skip_rounds(PvCursor *cur, pv_error *err)
{
    StatsState *st = cur->state;
    while (!cur->eof && st->rows.record.type == PV_RECORD_STAT_ROUND) {
        st->round++;
        st->round_time_known = false;
        if (pv_record_rows_next(cur, err))
            return -1;
    }
    return 0;
}

static int stats_first(PvCursor *cur, pv_error *err)
{
    StatsState *st = cur->state;
    st->round = 0;
    st->round_time_known = false;
    if (pv_record_rows_first(cur, err))
        return -1;
    return skip_rounds(cur, err);
}

static int stats_next(PvCursor *cur, pv_error *err)
{
    if (pv_record_rows_next(cur, err))
        return -1;
    return skip_rounds(cur, err);
}

static int stats_decode(PvCursor *cur, pv_error *err)
{
    StatsState *st = cur->state;
    const pv_record *r = &st->rows.record;
    if (r->type != PV_RECORD_STAT)
        return 0;
    return pv_rec_stat_decode(cur->file, r, &st->stat, err);
}

/* The time of the STAT_ROUND that closes the current round, from the
 * read-ahead walk (the cursor's own walk is left where it is). */
static int find_round_time(PvCursor *cur, pv_error *err)
{
    StatsState *st = cur->state;
    uint64_t start = st->rows.record.index;
    if (!st->ahead_started) {
        pv_walk_start(&st->ahead, cur->file);
        st->ahead_started = true;
        st->ahead_done = false;
    }
    st->round_closed = false;
    pv_record rec;
    int rc = 0;
    while (!st->ahead_done && (rc = pv_walk_next(&st->ahead, &rec, err)) == 1) {
        if (rec.index <= start || rec.type != PV_RECORD_STAT_ROUND)
            continue;
        pv_rec_stat_round round;
        if (pv_rec_stat_round_decode(cur->file, &rec, &round, err))
            return -1;
        st->round_time = round.time;
        st->round_closed = true;
        break;
    }
    if (rc < 0)
        return -1;
    if (rc == 0)
        st->ahead_done = true;
    st->round_time_known = true;
    return 0;
}

static void stats_reset(PvCursor *cur)
{
    StatsState *st = cur->state;
    if (st->ahead_started)
        pv_walk_end(&st->ahead);
    st->ahead_started = false;
    pv_record_rows_reset(cur);
}

static int stats_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    StatsState *st = cur->state;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_EVENT: {
        int index = pv_file_attr_for_id(cur->file, st->stat.id);
        if (index >= 0)
            sqlite3_result_text(ctx, pv_file_event_name(cur->file, (size_t)index), -1,
                                SQLITE_TRANSIENT);
        break;
    }
    case COL_ID: pv_result_u64(ctx, st->stat.id); break;
    case COL_CPU: sqlite3_result_int(ctx, (int32_t)st->stat.cpu); break;
    case COL_THREAD: sqlite3_result_int(ctx, (int32_t)st->stat.thread); break;
    case COL_VAL: pv_result_u64(ctx, st->stat.val); break;
    case COL_ENA: pv_result_u64(ctx, st->stat.ena); break;
    case COL_RUN: pv_result_u64(ctx, st->stat.run); break;
    case COL_ROUND: sqlite3_result_int64(ctx, (sqlite3_int64)st->round); break;
    case COL_ROUND_TIME: {
        if (!st->round_time_known) {
            pv_error err;
            if (find_round_time(cur, &err))
                return pv_result_error(ctx, &err);
        }
        if (st->round_closed)
            pv_result_u64(ctx, st->round_time);
        break;
    }
    }
    return SQLITE_OK;
}

const PvTableDef pv_stats_table = {
    .name = "perf_stats",
    .columns = PV_COLUMNS_DECL(STATS_COLUMNS),
    .state_size = sizeof(StatsState),
    .first = stats_first,
    .next = stats_next,
    .column = stats_column,
    .reset = stats_reset,
    .wants = stats_wants,
    .decode = stats_decode,
};
