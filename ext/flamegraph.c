/*
 * The flame graph's aggregates, and the frame names they take.
 *
 * perf_frame_name(sym, dso, ip): a frame's name as stackcollapse-perf.pl
 * writes it: sym; without one "[dso]" (its base name; a dso perf already
 * bracketed, "[kernel.kallsyms]", as it is); without a dso either the
 * address in hex; NULL when all three are NULL.
 *
 *   SELECT perf_folded(perf_frame_name(sym, dso, ip), depth) FROM perf_callchains(@file) ...
 *
 * perf_folded(frame, depth): the frames of one call stack joined root
 * first with ';', whatever order the rows come in; depth 0 is the leaf, as in
 * perf_callchains.  A row whose frame or depth is NULL is left out (as a
 * LEFT JOIN's missing side); no frames give NULL.
 *
 *   SELECT sample, perf_folded(sym, depth) FROM perf_callchains(@file) GROUP BY sample;
 *
 * perf_flamegraph(stack [, weight [, title [, unit]]]): an aggregate that
 * returns an SVG flame graph of the folded stacks it is given.
 *
 *   SELECT writefile('fg.svg', perf_flamegraph(stack, samples))
 *   FROM (... folded stacks: 'comm;root;...;leaf', count ...);
 *
 * stack: frames root first, separated by ';' (a NULL stack is skipped, like
 * NULL in sum()).  weight: a non-negative integer, default 1 (a NULL weight
 * is skipped).  title: the picture's title, default "Flame Graph"; unit: what
 * a weight counts, default "samples" (hover titles read "name (N unit, P%)").
 * Title and unit are taken from the first row that has them.  Without rows the
 * result is still an SVG, saying there is nothing to draw.
 *
 * perf_flamegraph_diff(stack, new_weight, base_weight [, title [, unit]]):
 * a differential flame graph of two profiles' folded stacks.  Widths follow
 * new_weight; each frame's colour shows how its self share changed from
 * base to new (red grew, blue shrank, grey equal), shares being weights over
 * each side's own total, so profiles of different lengths compare.  A NULL
 * weight counts as 0 (a stack only one side has, from a UNION ALL or an
 * outer join); title defaults to "Differential Flame Graph".
 *
 *   SELECT perf_flamegraph_diff(stack, sum(new), sum(base)) ... GROUP BY stack
 *
 * The layout and drawing are src/render/flamegraph.c; this file only hands values
 * over.  Memory grows with the number of distinct stack prefixes.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

#include "function_defs.h"
#include "render/flamegraph.h"
#include "render/folded_stack.h"
#include "base/pv_alloc.h"

/* ---- perf_frame_name ---- */

static void frame_name_func_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *sym = NULL, *dso = NULL;
    size_t sym_len = 0, dso_len = 0;
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL) {
        sym = (const char *)sqlite3_value_text(argv[0]);
        sym_len = (size_t)sqlite3_value_bytes(argv[0]);
    }
    if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
        dso = (const char *)sqlite3_value_text(argv[1]);
        dso_len = (size_t)sqlite3_value_bytes(argv[1]);
    }
    bool has_ip = sqlite3_value_type(argv[2]) != SQLITE_NULL;
    if ((sqlite3_value_type(argv[0]) != SQLITE_NULL && !sym) ||
        (sqlite3_value_type(argv[1]) != SQLITE_NULL && !dso)) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    pv_strbuf name = {0};
    if (pv_folded_frame_name(&name, sym, sym_len, dso, dso_len, has_ip,
                             (uint64_t)sqlite3_value_int64(argv[2])))
        sqlite3_result_text64(ctx, pv_strbuf_text(&name), name.len, SQLITE_TRANSIENT,
                              SQLITE_UTF8);
    else if (name.failed)
        sqlite3_result_error_nomem(ctx);
    pv_strbuf_free(&name);
}

/* The text made in b as the result, its malloc'd buffer taken over by
 * SQLite, no copy; out of memory when it could not be made.  b is freed. */
static void result_made_text(sqlite3_context *ctx, pv_strbuf *b, bool made)
{
    if (made) {
        sqlite3_result_text64(ctx, b->text, b->len, free, SQLITE_UTF8);
        b->text = NULL;
    } else {
        sqlite3_result_error_nomem(ctx);
    }
    pv_strbuf_free(b);
}

/* ---- perf_folded ---- */

static void folded_step_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    pv_folded_stack *stack = sqlite3_aggregate_context(ctx, sizeof *stack);
    if (!stack) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    /* a LEFT JOIN's empty side: no frame */
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
        return;
    if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
        sqlite3_result_error(ctx, "perf_folded: depth must be an integer", -1);
        return;
    }
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    if (!name || !pv_folded_stack_add(stack, sqlite3_value_int64(argv[1]), name,
                                      (size_t)sqlite3_value_bytes(argv[0])))
        sqlite3_result_error_nomem(ctx);
}

static void folded_final_body(sqlite3_context *ctx)
{
    pv_folded_stack *stack = sqlite3_aggregate_context(ctx, 0);
    if (!stack)
        return;  /* no rows: NULL */
    if (stack->count > 0) {
        pv_strbuf joined = {0};
        result_made_text(ctx, &joined, pv_folded_stack_join(stack, &joined));
    }
    pv_folded_stack_free(stack);
}

/* ---- perf_flamegraph ---- */

typedef struct FlamegraphAgg {
    pv_flamegraph *graph;
    char *title;
    char *unit;
} FlamegraphAgg;

/* The first non-NULL text of a style argument, kept for xFinal. */
static int keep_text(sqlite3_context *ctx, char **slot, sqlite3_value *value)
{
    if (*slot || sqlite3_value_type(value) == SQLITE_NULL)
        return 1;
    const unsigned char *text = sqlite3_value_text(value);
    if (!text) {
        sqlite3_result_error_nomem(ctx);
        return 0;
    }
    *slot = pv_strdup((const char *)text);
    if (!*slot) {
        sqlite3_result_error_nomem(ctx);
        return 0;
    }
    return 1;
}

/* A weight: an integer, or a real with an integral value (sum() of
 * integers can come back as one). */
static int read_weight(sqlite3_context *ctx, sqlite3_value *value, sqlite3_int64 *weight,
                       const char *function)
{
    switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
        *weight = sqlite3_value_int64(value);
        return 1;
    case SQLITE_FLOAT: {
        double d = sqlite3_value_double(value);
        if (d >= -9.2e18 && d <= 9.2e18 && d == (double)(sqlite3_int64)d) {
            *weight = (sqlite3_int64)d;
            return 1;
        }
        break;
    }
    default:
        break;
    }
    char *msg = sqlite3_mprintf("%s: weight must be an integer", function);
    sqlite3_result_error(ctx, msg ? msg : "weight must be an integer", -1);
    sqlite3_free(msg);
    return 0;
}

/* The aggregate's state, made on the first row; NULL after an error. */
static FlamegraphAgg *agg_of(sqlite3_context *ctx, bool differential)
{
    FlamegraphAgg *agg = sqlite3_aggregate_context(ctx, sizeof *agg);
    if (agg && !agg->graph)
        agg->graph = differential ? pv_flamegraph_new_differential() : pv_flamegraph_new();
    if (!agg || !agg->graph) {
        sqlite3_result_error_nomem(ctx);
        return NULL;
    }
    return agg;
}

static void add_row(sqlite3_context *ctx, FlamegraphAgg *agg, sqlite3_value *stack_value,
                    sqlite3_int64 weight, sqlite3_int64 base_weight, const char *function)
{
    const char *stack = (const char *)sqlite3_value_text(stack_value);
    if (!stack) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    size_t len = (size_t)sqlite3_value_bytes(stack_value);
    pv_flamegraph_status status = pv_flamegraph_add_diff(agg->graph, stack, len, weight,
                                                         base_weight);
    if (status == PV_FLAMEGRAPH_NOMEM) {
        sqlite3_result_error_nomem(ctx);
    } else if (status != PV_FLAMEGRAPH_OK) {
        char *msg = pv_flamegraph_is_differential(agg->graph)
                        ? sqlite3_mprintf("%s: %s (stack '%.200s', weight %lld, base %lld)",
                                          function, pv_flamegraph_status_text(status), stack,
                                          weight, base_weight)
                        : sqlite3_mprintf("%s: %s (stack '%.200s', weight %lld)", function,
                                          pv_flamegraph_status_text(status), stack, weight);
        sqlite3_result_error(ctx, msg ? msg : "perf_flamegraph: bad row", -1);
        sqlite3_free(msg);
    }
}

/* The state of the aggregate for this row, with the title and unit of
 * argv[style_at] and argv[style_at + 1] kept; NULL when the row adds nothing
 * (an error was set, or its stack is NULL). */
static FlamegraphAgg *begin_row(sqlite3_context *ctx, bool differential, int argc,
                               sqlite3_value **argv, int style_at)
{
    FlamegraphAgg *agg = agg_of(ctx, differential);
    if (!agg)
        return NULL;
    if (argc > style_at && !keep_text(ctx, &agg->title, argv[style_at]))
        return NULL;
    if (argc > style_at + 1 && !keep_text(ctx, &agg->unit, argv[style_at + 1]))
        return NULL;
    return sqlite3_value_type(argv[0]) == SQLITE_NULL ? NULL : agg;
}

/* perf_flamegraph(stack [, weight [, title [, unit]]]) */
static void flamegraph_step_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    FlamegraphAgg *agg = begin_row(ctx, false, argc, argv, 2);
    if (!agg)
        return;
    sqlite3_int64 weight = 1;
    if (argc > 1) {
        if (sqlite3_value_type(argv[1]) == SQLITE_NULL)
            return;
        if (!read_weight(ctx, argv[1], &weight, "perf_flamegraph"))
            return;
    }
    add_row(ctx, agg, argv[0], weight, 0, "perf_flamegraph");
}

/* perf_flamegraph_diff(stack, new_weight, base_weight [, title [, unit]]) */
static void flamegraph_diff_step_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    FlamegraphAgg *agg = begin_row(ctx, true, argc, argv, 3);
    if (!agg)
        return;
    sqlite3_int64 weight = 0, base_weight = 0;
    if (sqlite3_value_type(argv[1]) != SQLITE_NULL &&
        !read_weight(ctx, argv[1], &weight, "perf_flamegraph_diff"))
        return;
    if (sqlite3_value_type(argv[2]) != SQLITE_NULL &&
        !read_weight(ctx, argv[2], &base_weight, "perf_flamegraph_diff"))
        return;
    add_row(ctx, agg, argv[0], weight, base_weight, "perf_flamegraph_diff");
}

static void flamegraph_final_body(sqlite3_context *ctx)
{
    FlamegraphAgg *agg = sqlite3_aggregate_context(ctx, 0);
    bool differential = sqlite3_user_data(ctx) != NULL;
    pv_flamegraph *empty = NULL;
    pv_flamegraph *graph = agg ? agg->graph : NULL;
    if (!graph)
        graph = empty = differential ? pv_flamegraph_new_differential() : pv_flamegraph_new();
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    if (differential)
        style.title = "Differential Flame Graph";
    if (agg && agg->title)
        style.title = agg->title;
    if (agg && agg->unit)
        style.unit = agg->unit;
    pv_strbuf svg = {0};
    result_made_text(ctx, &svg, graph && pv_flamegraph_svg(graph, &style, &svg));
    pv_flamegraph_free(empty);
    if (agg) {
        pv_flamegraph_free(agg->graph);
        free(agg->title);
        free(agg->unit);
        agg->graph = NULL;
        agg->title = agg->unit = NULL;
    }
}

PV_GUARDED_FUNCTION(frame_name_func, frame_name_func_body)
PV_GUARDED_FUNCTION(folded_step, folded_step_body)
PV_GUARDED_FINAL(folded_final, folded_final_body)
PV_GUARDED_FUNCTION(flamegraph_step, flamegraph_step_body)
PV_GUARDED_FUNCTION(flamegraph_diff_step, flamegraph_diff_step_body)
PV_GUARDED_FINAL(flamegraph_final, flamegraph_final_body)

/* Deterministic: both results depend on the multiset of rows, not on their
 * order (frames are ordered by depth, children by name). */
#define PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
/* user data marks the differential aggregate for xFinal */
static int differential_mark;
const PvFunctionDef pv_flamegraph_functions[] = {
    {"perf_folded", 2, PURE, false, NULL, NULL, folded_step, folded_final},
    {"perf_frame_name", 3, PURE, false, NULL, frame_name_func, NULL, NULL},
    {"perf_flamegraph", 1, PURE, false, NULL, NULL, flamegraph_step, flamegraph_final},
    {"perf_flamegraph", 2, PURE, false, NULL, NULL, flamegraph_step, flamegraph_final},
    {"perf_flamegraph", 3, PURE, false, NULL, NULL, flamegraph_step, flamegraph_final},
    {"perf_flamegraph", 4, PURE, false, NULL, NULL, flamegraph_step, flamegraph_final},
    {"perf_flamegraph_diff", 3, PURE, false, &differential_mark, NULL, flamegraph_diff_step,
     flamegraph_final},
    {"perf_flamegraph_diff", 4, PURE, false, &differential_mark, NULL, flamegraph_diff_step,
     flamegraph_final},
    {"perf_flamegraph_diff", 5, PURE, false, &differential_mark, NULL, flamegraph_diff_step,
     flamegraph_final},
    {NULL, 0, 0, false, NULL, NULL, NULL, NULL},
};
