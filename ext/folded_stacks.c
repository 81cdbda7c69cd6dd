/*
 * perf_folded_stacks: the samples' call stacks folded for flame graphs,
 * one row per event and distinct stack.
 *
 *   SELECT stack, samples FROM perf_folded_stacks('perf.data') WHERE event = 'cycles'
 *   ORDER BY stack;
 *
 * stack: "comm;root;...;leaf", the frames named by perf_frame_name's rule
 * and joined as perf_folded joins perf_callchains' rows; a sample without a
 * call chain is comm and its own frame; NULL for samples that have no stack
 * (no thread recorded).  samples: how many samples have it; period: the sum
 * of their periods (1 each where the event records none).  The same rows as
 * sql/folded_stacks.sql's SQL over perf_samples and perf_callchains, counted
 * in one walk into a hash table (src/analysis/folded_stacks.c) instead of
 * grouping every frame.  Rows come sorted by event, then stack.  event =
 * 'X' is tested while walking: only that event's stacks are made.
 */
#include "analysis/folded_stacks.h"
#include "format/event_names.h"
#include "symbol_paths.h"
#include "vtab_common.h"

#define FOLDED_STACKS_COLUMNS(X) \
    X(EVENT, event, TEXT) \
    X(STACK, stack, TEXT) \
    X(SAMPLES, samples, INTEGER) \
    X(PERIOD, period, INTEGER)
enum { FOLDED_STACKS_COLUMNS(PV_COLUMN_ENUM) };

/* The rows' one order (pv_folded_stacks_build sorts them so); with event =
 * 'X', sql/folded_stacks.sql's ORDER BY stack is it too (vtab_plan.c). */
static const PvRowOrder folded_stacks_orders[] = {
    { 2, 1, { { COL_EVENT, false }, { COL_STACK, false } } },
};

typedef struct FoldedStacksState {
    pv_symbolizer *symbolizer;
    pv_folded_stacks stacks;
    size_t at;
} FoldedStacksState;

static int folded_stacks_first(PvCursor *cur, pv_error *err)
{
    FoldedStacksState *st = cur->state;
    if (pv_vtab_symbolizer(cur, &st->symbolizer, err))
        return -1;
    /* cur->event_name: an event = 'X' pushed down (SQLite tests it again) */
    if (pv_folded_stacks_build(cur->file, st->symbolizer, cur->event_name, &st->stacks, err))
        return -1;
    st->at = 0;
    cur->rowid = 0;
    cur->eof = st->stacks.nr_rows == 0;
    return 0;
}

static int folded_stacks_next(PvCursor *cur, pv_error *err)
{
    (void)err;
    FoldedStacksState *st = cur->state;
    st->at++;
    cur->rowid = (sqlite3_int64)st->at;
    cur->eof = st->at >= st->stacks.nr_rows;
    return 0;
}

static void folded_stacks_reset(PvCursor *cur)
{
    FoldedStacksState *st = cur->state;
    pv_folded_stacks_free(&st->stacks);
    pv_symbolizer_free(st->symbolizer);
    st->symbolizer = NULL;
}

static int folded_stacks_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    FoldedStacksState *st = cur->state;
    const pv_folded_row *r = &st->stacks.rows[st->at];
    switch (i) {
    case COL_EVENT:
        sqlite3_result_text(ctx, pv_file_event_name(cur->file, r->attr_index), -1,
                            SQLITE_TRANSIENT);
        break;
    case COL_STACK:
        /* made now from the stack's numbers (a failure: the buffer says so) */
        if (r->has_stack) {
            pv_folded_stacks_text(&st->stacks, r, &cur->text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_SAMPLES: sqlite3_result_int64(ctx, (sqlite3_int64)r->samples); break;
    case COL_PERIOD:
        /* as SQL's sum() of the periods would */
        if (r->period_overflow)
            sqlite3_result_error(ctx, "integer overflow", -1);
        else
            sqlite3_result_int64(ctx, r->period);
        break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_folded_stacks_table = {
    .name = "perf_folded_stacks",
    .columns = PV_COLUMNS_DECL(FOLDED_STACKS_COLUMNS),
    .state_size = sizeof(FoldedStacksState),
    .first = folded_stacks_first,
    .next = folded_stacks_next,
    .column = folded_stacks_column,
    .reset = folded_stacks_reset,
    .pushdown = PV_PUSHDOWN_EVENT_NAME,
    .row_orders = folded_stacks_orders,
    .nr_row_orders = 1,
};
