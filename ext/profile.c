/*
 * perf_profile: the whole file's profile, one row per event and function.
 *
 *   SELECT dso, sym, period FROM perf_profile('perf.data') ORDER BY period DESC;
 *
 * samples/period: the samples whose ip is in the function (perf report
 * --no-children); children_samples/children_period: the samples with the
 * function on the stack, each sample once (perf report --children).  An
 * unresolved address is its own row: sym NULL, addr the address (in the
 * dso, or the ip when no map holds it).  Counted in one pass into a hash
 * table (src/analysis/profile.c): the same numbers as GROUP BY over perf_samples
 * and perf_callchains, without sorting every sample and frame.  The
 * callchains are walked only when a children column is read.  inlined: sym
 * is a function inlined at the frames (--call-graph dwarf, from the debug
 * info), perf's "sym (inlined)" row.  name: the row as perf report names
 * it (sym, "sym (inlined)", or the address as 0x%016x); event_period: the
 * event's total period, the denominator of perf report's percentages.  A
 * report needs no window function or printf over its rows, which cost more
 * than the profile itself where unresolved frames give 200k rows.
 */
#include <inttypes.h>
#include <stdio.h>

#include "format/event_names.h"
#include "analysis/profile.h"
#include "symbol_paths.h"
#include "vtab_common.h"

#define PROFILE_COLUMNS(X) \
    X(EVENT, event, TEXT) \
    X(DSO, dso, TEXT) \
    X(SYM, sym, TEXT) \
    X(ADDR, addr, INTEGER) \
    X(SAMPLES, samples, INTEGER) \
    X(PERIOD, period, INTEGER) \
    X(CHILDREN_SAMPLES, children_samples, INTEGER) \
    X(CHILDREN_PERIOD, children_period, INTEGER) \
    X(INLINED, inlined, INTEGER) \
    X(NAME, name, TEXT) \
    X(EVENT_PERIOD, event_period, INTEGER)
enum { PROFILE_COLUMNS(PV_COLUMN_ENUM) };

typedef struct ProfileState {
    pv_symbolizer *symbolizer;
    pv_profile profile;
    size_t at;
} ProfileState;

static int profile_first(PvCursor *cur, pv_error *err)
{
    ProfileState *st = cur->state;
    if (pv_vtab_symbolizer(cur, &st->symbolizer, err))
        return -1;
    bool children = pv_column_used(cur, COL_CHILDREN_SAMPLES) ||
                    pv_column_used(cur, COL_CHILDREN_PERIOD);
    if (pv_profile_build(cur->file, st->symbolizer, children, &st->profile, err))
        return -1;
    st->at = 0;
    cur->rowid = 0;
    cur->eof = st->profile.nr_rows == 0;
    return 0;
}

static int profile_next(PvCursor *cur, pv_error *err)
{
    (void)err;
    ProfileState *st = cur->state;
    st->at++;
    cur->rowid = (sqlite3_int64)st->at;
    cur->eof = st->at >= st->profile.nr_rows;
    return 0;
}

static void profile_reset(PvCursor *cur)
{
    ProfileState *st = cur->state;
    pv_profile_free(&st->profile);
    pv_symbolizer_free(st->symbolizer);
    st->symbolizer = NULL;
}

/* What coalesce(sym || CASE WHEN inlined THEN ' (inlined)' ELSE '' END,
 * printf('0x%016x', addr)) gives. */
static void result_name(sqlite3_context *ctx, const pv_profile_row *r)
{
    char text[32];
    if (!r->sym) {
        snprintf(text, sizeof text, "0x%016" PRIx64, r->addr);
        sqlite3_result_text(ctx, text, -1, SQLITE_TRANSIENT);
    } else if (r->inlined) {
        char *joined = sqlite3_mprintf("%s (inlined)", r->sym);
        if (joined)
            sqlite3_result_text(ctx, joined, -1, sqlite3_free);
        else
            sqlite3_result_error_nomem(ctx);
    } else {
        sqlite3_result_text(ctx, r->sym, -1, SQLITE_TRANSIENT);
    }
}

static int profile_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    ProfileState *st = cur->state;
    const pv_profile_row *r = &st->profile.rows[st->at];
    switch (i) {
    case COL_EVENT:
        sqlite3_result_text(ctx, pv_file_event_name(cur->file, (size_t)r->attr_index), -1,
                            SQLITE_TRANSIENT);
        break;
    case COL_DSO:
        if (r->dso) sqlite3_result_text(ctx, r->dso, -1, SQLITE_TRANSIENT);
        break;
    case COL_SYM:
        if (r->sym) sqlite3_result_text(ctx, r->sym, -1, SQLITE_TRANSIENT);
        break;
    case COL_ADDR:
        if (!r->sym) pv_result_u64(ctx, r->addr);
        break;
    case COL_SAMPLES: sqlite3_result_int64(ctx, (sqlite3_int64)r->self_samples); break;
    case COL_PERIOD: pv_result_u64(ctx, r->self_period); break;
    case COL_CHILDREN_SAMPLES: sqlite3_result_int64(ctx, (sqlite3_int64)r->samples); break;
    case COL_CHILDREN_PERIOD: pv_result_u64(ctx, r->period); break;
    case COL_INLINED: sqlite3_result_int(ctx, r->inlined); break;
    case COL_NAME:
        result_name(ctx, r);
        break;
    case COL_EVENT_PERIOD: {
        int64_t total;
        /* as sum(period) OVER (PARTITION BY event) would end */
        if (pv_profile_event_period(&st->profile, r->attr_index, &total))
            sqlite3_result_error(ctx, "integer overflow", -1);
        else
            sqlite3_result_int64(ctx, total);
        break;
    }
    }
    return SQLITE_OK;
}

const PvTableDef pv_profile_table = {
    .name = "perf_profile",
    .columns = PV_COLUMNS_DECL(PROFILE_COLUMNS),
    .state_size = sizeof(ProfileState),
    .first = profile_first,
    .next = profile_next,
    .column = profile_column,
    .reset = profile_reset,
};
