/*
 * perf_sum_by(key1, ..., keyN, value): a GROUP BY keys computing
 * sum(value) and count(*), in one pass with a hash table of the groups
 * (src/render/hash_groups.h) instead of SQLite's sort of every row.  The result is
 * a JSON array with one [key1, ..., keyN, sum, rows] per group, in the
 * order the groups were first met; json_each turns it into rows:
 *
 *   SELECT g.value->>0 AS sym, g.value->>1 AS dso, g.value->>2 AS period
 *   FROM json_each((SELECT perf_sum_by(sym, dso, period)
 *                   FROM perf_callchains('perf.data') WHERE repeated = 0)) g
 *   ORDER BY period DESC;
 *
 * Sums and keys follow SQLite's sum() and GROUP BY (hash_groups.h); a blob
 * key is given as a hex string.  Memory grows with the number of groups,
 * not of rows.  Without rows the result is [].
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "function_defs.h"
#include "render/hash_groups.h"
#include "base/json_writer.h"
#include "base/pv_strbuf.h"

#define MAX_KEYS 64

typedef struct SumBy {
    bool started;
    pv_hash_groups groups;
} SumBy;

static pv_value key_value(sqlite3_value *v)
{
    pv_value out = { PV_VALUE_NULL, 0, 0, NULL, 0 };
    switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
        out.type = PV_VALUE_INT;
        out.i = sqlite3_value_int64(v);
        break;
    case SQLITE_FLOAT:
        out.type = PV_VALUE_REAL;
        out.r = sqlite3_value_double(v);
        break;
    case SQLITE_TEXT:
        out.type = PV_VALUE_TEXT;
        out.bytes = sqlite3_value_text(v);
        out.len = (size_t)sqlite3_value_bytes(v);
        break;
    case SQLITE_BLOB:
        out.type = PV_VALUE_BLOB;
        out.bytes = sqlite3_value_blob(v);
        out.len = (size_t)sqlite3_value_bytes(v);
        break;
    default:
        break;
    }
    return out;
}

/* As sum() takes its argument: text that reads as a number is that number,
 * other text or a blob counts as a real. */
static pv_value summed_value(sqlite3_value *v)
{
    pv_value out = { PV_VALUE_NULL, 0, 0, NULL, 0 };
    switch (sqlite3_value_numeric_type(v)) {
    case SQLITE_NULL:
        break;
    case SQLITE_INTEGER:
        out.type = PV_VALUE_INT;
        out.i = sqlite3_value_int64(v);
        break;
    default:
        out.type = PV_VALUE_REAL;
        out.r = sqlite3_value_double(v);
        break;
    }
    return out;
}

static void sum_by_step_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    if (argc < 2 || argc - 1 > MAX_KEYS) {
        sqlite3_result_error(ctx, "perf_sum_by: give 1 to 64 keys, then the value to sum", -1);
        return;
    }
    SumBy *agg = sqlite3_aggregate_context(ctx, sizeof *agg);
    if (!agg) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    if (!agg->started) {
        pv_hash_groups_init(&agg->groups, (unsigned)(argc - 1));
        agg->started = true;
    }
    pv_value keys[MAX_KEYS];
    for (int k = 0; k < argc - 1; k++)
        keys[k] = key_value(argv[k]);
    pv_value value = summed_value(argv[argc - 1]);
    switch (pv_hash_groups_add(&agg->groups, keys, &value)) {
    case PV_GROUP_OK:
        break;
    case PV_GROUP_NO_MEMORY:
        sqlite3_result_error_nomem(ctx);
        break;
    case PV_GROUP_OVERFLOW:
        sqlite3_result_error(ctx, "perf_sum_by: integer overflow", -1);
        break;
    }
}

/* A real stays a real when read back (1.0, not 1); an infinity is null. */
static void json_value(pv_json_writer *w, const pv_value *v)
{
    switch (v->type) {
    case PV_VALUE_INT: pv_json_i64(w, v->i); break;
    case PV_VALUE_REAL: pv_json_real(w, v->r); break;
    case PV_VALUE_TEXT: pv_json_string(w, (const char *)v->bytes, v->len); break;
    case PV_VALUE_BLOB: pv_json_hex(w, (const uint8_t *)v->bytes, v->len); break;
    default: pv_json_null(w); break;
    }
}

static void sum_by_final_body(sqlite3_context *ctx)
{
    SumBy *agg = sqlite3_aggregate_context(ctx, 0);
    if (!agg || !agg->started) {
        sqlite3_result_text(ctx, "[]", 2, SQLITE_STATIC);  /* a literal: static storage */
        return;
    }
    pv_hash_groups *g = &agg->groups;
    pv_strbuf out = {0};
    pv_json_writer w;
    pv_json_init(&w, &out);
    pv_json_array_begin(&w);
    for (size_t i = 0; i < g->nr_groups; i++) {
        pv_json_array_begin(&w);
        for (unsigned k = 0; k < g->nkeys; k++) {
            pv_value key = pv_hash_groups_key(g, i, k);
            json_value(&w, &key);
        }
        const pv_group *grp = &g->groups[i];
        pv_value sum = { PV_VALUE_NULL, 0, 0, NULL, 0 };
        if (grp->has_sum && grp->real_sum) {
            sum.type = PV_VALUE_REAL;
            sum.r = grp->real_total;
        } else if (grp->has_sum) {
            sum.type = PV_VALUE_INT;
            sum.i = grp->int_sum;
        }
        json_value(&w, &sum);
        pv_json_u64(&w, grp->rows);
        pv_json_array_end(&w);
    }
    pv_json_array_end(&w);
    if (out.failed || out.len > INT32_MAX)
        sqlite3_result_error_nomem(ctx);
    else
        sqlite3_result_text(ctx, pv_strbuf_text(&out), (int)out.len, SQLITE_TRANSIENT);
    pv_strbuf_free(&out);
    pv_hash_groups_free(g);
    agg->started = false;
}

PV_GUARDED_FUNCTION(sum_by_step, sum_by_step_body)
PV_GUARDED_FINAL(sum_by_final, sum_by_final_body)

/* not deterministic: the groups come in the order they were met */
const PvFunctionDef pv_sum_by_functions[] = {
    {"perf_sum_by", -1, SQLITE_UTF8 | SQLITE_INNOCUOUS, false, NULL, NULL, sum_by_step, sum_by_final},
    {NULL, 0, 0, false, NULL, NULL, NULL, NULL},
};
