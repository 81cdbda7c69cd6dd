/*
 * twins: every constraint and order perfvtab's tables take over from SQLite
 * (ext/vtab_plan.c), against the same query with it hidden from the
 * planner, over files.
 *
 *   twins [-v] [-q] [-r] FILE...
 *
 * For each table of records, values are taken from the file's own rows:
 * times at fixed quantiles, the commonest and the rarest pid, tid, cpu and
 * event, the first, middle and last ordinal.  Each constraint is written
 * twice: pushed (`time > v`, which xBestIndex sees) and hidden
 * (`CAST(time AS INTEGER) > v`, an expression with the column's affinity,
 * which SQLite filters alone); an ORDER BY or GROUP BY the table consumes
 * is hidden as `+time`.  The rows asked for: every column but the ordinal
 * and the symbols (what a scan may read from the middle of the file); for
 * lookups and ORDER BY, again with the rowid and every column but srcfile
 * and srcline.
 *
 * The pushed query runs in one connection that ran every query before it
 * and, for time ranges, lookups and ORDER BY time, in a new connection too
 * (the file's first query: no time index built, no lookup kept).  Each run
 * against the hidden twin:
 *   - both give rows: the same rows, as a multiset; where the table
 *     consumes the ORDER BY, in the same order (ORDER BY time alone: the
 *     same sequence of times, ties in any order);
 *   - the pushed query fails: the twin must fail too;
 *   - the twin fails and the pushed query gives rows: allowed (the twin
 *     decodes records outside the range that the pushed query never
 *     reads), but the rows the twin gave before failing must be among the
 *     pushed query's.
 * Each pair's plans are compared too (EXPLAIN QUERY PLAN's idxNum): the
 * pairs whose pushed plan takes over what the twin's does not are counted
 * by kind.
 *
 * Prints per file "ok - twins FILE: ..." or "not ok - twins FILE: ...";
 * -v prints every failing pair, not only the first; -q runs a fifth of the
 * pairs, on the narrow rows, each once; -r adds a check
 * that every kind was taken over by some pair.  The values and queries are
 * fixed by the file's rows: no randomness, no timing.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "twins_results.h"

int sqlite3_perfvtab_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

/* ------------------------------------------------------------------ */
/* Pairs */

typedef enum { CMP_SET, CMP_SEQ, CMP_KEY } cmp_kind;

enum {
    K_TIME, K_PID, K_TID, K_CPU, K_EVENT, K_ORDINAL, K_ORDER_TIME, K_ORDER_FILE, K_GROUPED,
    KINDS
};
static const char *const kind_names[KINDS] = {
    "time", "pid", "tid", "cpu", "event", "ordinal", "order by time", "order by record",
    "grouped scan",
};
/* The idxNum bits of each kind (ext/vtab_tab.h). */
static const long kind_bits[KINDS] = {
    2 | 4 | 8, 16, 32, 64, 128, 2048, 256 | 1024, 512 | 1024, 4096,
};

typedef struct totals {
    unsigned long pairs, runs, both_failed, twin_failed, taken[KINDS];
} totals;

typedef struct file_run {
    const char *path;
    char *quoted;           /* the path as an SQL literal */
    sqlite3 *twin_db;       /* the hidden twins, and the values */
    sqlite3 *warm_db;       /* every pushed query, one after another */
    bool verbose;
    /* -q: the pairs marked essential alone, narrow rows, and a first query
     * in a new connection for time ranges only */
    bool quick;
    unsigned failures;
    char *first_failure;
    totals *totals;
} file_run;

static sqlite3 *open_db(void)
{
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        die("cannot open a database");
    return db;
}

/* tmpl with {col} as the column (pushed) or its hidden form: CAST(col AS
 * INTEGER), CAST(event AS TEXT); {+col} as col or +col (ORDER BY, GROUP
 * BY). */
static char *expand(const char *tmpl, bool hidden)
{
    text t = {0};
    for (const char *p = tmpl; *p;) {
        const char *open = strchr(p, '{');
        if (!open) {
            puts_(&t, p);
            break;
        }
        put(&t, p, (size_t)(open - p));
        const char *close = strchr(open, '}');
        if (!close)
            die("unbalanced template");
        bool plus = open[1] == '+';
        const char *name = open + 1 + plus;
        int n = (int)(close - name);
        if (!hidden)
            printf_(&t, "%.*s", n, name);
        else if (plus)
            printf_(&t, "+%.*s", n, name);
        else
            printf_(&t, "CAST(%.*s AS %s)", n, name,
                    strncmp(name, "event", 5) == 0 ? "TEXT" : "INTEGER");
        p = close + 1;
    }
    return take(&t);
}

static void failure(file_run *fr, const char *sql, const char *why)
{
    fr->failures++;
    text t = {0};
    printf_(&t, "%s: ", why);
    puts_(&t, sql);
    if (fr->verbose)
        printf("# %s: %s\n", fr->path, t.s);
    if (!fr->first_failure)
        fr->first_failure = take(&t);
    else
        free(t.s);
}

/* One run of the pushed query against the twin's rows (sorted copies made
 * here when the order is not compared). */
static void judge(file_run *fr, const char *sql, const result *got, const result *want,
                  cmp_kind cmp, const char *where)
{
    char why[600];
    fr->totals->runs++;
    if (got->failed) {
        if (want->failed) {
            fr->totals->both_failed++;
            return;
        }
        snprintf(why, sizeof why, "%s: pushed fails (%.300s), the twin gives %zu rows", where,
                 got->error, want->n);
        failure(fr, sql, why);
        return;
    }
    if (cmp == CMP_KEY && !want->failed) {
        for (size_t i = 0; i < got->n && i < want->n; i++) {
            size_t a = first_value_len(&got->rows[i]), b = first_value_len(&want->rows[i]);
            if (a != b || memcmp(got->rows[i].s, want->rows[i].s, a) != 0) {
                snprintf(why, sizeof why, "%s: row %zu out of order", where, i);
                failure(fr, sql, why);
                return;
            }
        }
    }
    if (cmp == CMP_SEQ && !want->failed) {
        for (size_t i = 0; i < got->n && i < want->n; i++) {
            if (row_cmp(&got->rows[i], &want->rows[i]) != 0) {
                snprintf(why, sizeof why, "%s: rows differ from row %zu on (%zu and %zu rows)",
                         where, i, got->n, want->n);
                failure(fr, sql, why);
                return;
            }
        }
    }
    result g = *got, w = *want;
    row *gs = malloc((got->n + 1) * sizeof *gs), *ws = malloc((want->n + 1) * sizeof *ws);
    if (!gs || !ws)
        die("out of memory");
    if (got->n) {
        memcpy(gs, got->rows, got->n * sizeof *gs);
        qsort(gs, got->n, sizeof *gs, by_text);
    }
    if (want->n) {
        memcpy(ws, want->rows, want->n * sizeof *ws);
        qsort(ws, want->n, sizeof *ws, by_text);
    }
    g.rows = gs;
    w.rows = ws;
    if (want->failed) {
        fr->totals->twin_failed++;
        if (!contained(&w, &g)) {
            snprintf(why, sizeof why, "%s: the twin fails (%.300s), and of its %zu rows before "
                     "that some are not among the %zu pushed", where, want->error, want->n,
                     got->n);
            failure(fr, sql, why);
        }
    } else if (got->n != want->n || !contained(&w, &g)) {
        snprintf(why, sizeof why, "%s: %zu rows, the twin %zu", where, got->n, want->n);
        failure(fr, sql, why);
    }
    free(gs);
    free(ws);
}

static void pair(file_run *fr, int kind, cmp_kind cmp, const char *tmpl, bool quick)
{
    char *pushed = expand(tmpl, false), *hidden = expand(tmpl, true);
    fr->totals->pairs++;
    long a = plan_index(fr->twin_db, pushed), b = plan_index(fr->twin_db, hidden);
    /* the same plan: SQLite does all of it on both sides */
    if (a == b && a >= 0) {
        free(pushed);
        free(hidden);
        return;
    }
    if (a >= 0 && b >= 0 && (a & ~b & kind_bits[kind]))
        fr->totals->taken[kind]++;
    result want;
    run(fr->twin_db, hidden, &want);
    /* what a file's first query builds (the time index, a lookup's walk)
     * is built by another query in the kept connection */
    bool first_query = kind == K_TIME || (!quick && (kind == K_ORDINAL || kind == K_ORDER_TIME));
    if (first_query) {
        result cold;
        sqlite3 *db = open_db();
        run(db, pushed, &cold);
        sqlite3_close(db);
        judge(fr, pushed, &cold, &want, cmp, "first query");
        result_free(&cold);
    }
    if (!quick || !first_query) {
        result warm;
        run(fr->warm_db, pushed, &warm);
        judge(fr, pushed, &warm, &want, cmp, "after others");
        result_free(&warm);
    }
    result_free(&want);
    free(pushed);
    free(hidden);
}

/* ------------------------------------------------------------------ */
/* Values from the file */

typedef struct values {
    long long *times;
    size_t nr_times;
    bool has[4];                     /* pid, tid, cpu, event columns */
    long long most[3], least[3];     /* pid, tid, cpu */
    bool found[3];
    char *events[3];
    size_t nr_events;
    long long first, last;           /* ordinals */
    bool ordinals;
} values;

static long long as_int(const char *v)
{
    return v[0] == 'I' ? strtoll(v + 1, NULL, 10) : 0;
}

/* A text value's text ("T5:hello;" -> "hello"), quotes doubled. */
static char *as_sql_text(const char *v)
{
    text t = {0};
    puts_(&t, "'");
    if (v[0] == 'T') {
        const char *colon = strchr(v, ':');
        size_t n = strtoul(v + 1, NULL, 10);
        for (size_t i = 0; i < n; i++)
            put(&t, colon[1 + i] == '\'' ? "''" : &colon[1 + i], colon[1 + i] == '\'' ? 2 : 1);
    }
    puts_(&t, "'");
    return take(&t);
}

static void read_values(file_run *fr, const char *table, const char *ordinal, values *v)
{
    result r;
    text q = {0};
    printf_(&q, "SELECT CAST(time AS INTEGER) t FROM %s(%s) WHERE t IS NOT NULL ORDER BY t",
            table, fr->quoted);
    run(fr->twin_db, q.s, &r);
    free(take(&q));
    v->times = malloc((r.n + 1) * sizeof *v->times);
    if (!v->times)
        die("out of memory");
    for (size_t i = 0; i < r.n; i++)
        v->times[v->nr_times++] = as_int(r.rows[i].s);
    result_free(&r);
    static const char *const names[] = { "pid", "tid", "cpu" };
    for (int k = 0; k < 3; k++) {
        if (!v->has[k])
            continue;
        printf_(&q, "SELECT CAST(%s AS INTEGER) v, count(*) c FROM %s(%s) WHERE v IS NOT NULL "
                "GROUP BY v ORDER BY c DESC, v", names[k], table, fr->quoted);
        run(fr->twin_db, q.s, &r);
        free(take(&q));
        if (r.n) {
            v->found[k] = true;
            v->most[k] = as_int(r.rows[0].s);
            v->least[k] = as_int(r.rows[r.n - 1].s);
        }
        result_free(&r);
    }
    if (v->has[3]) {
        printf_(&q, "SELECT CAST(event AS TEXT) v, count(*) c FROM %s(%s) WHERE v IS NOT NULL "
                "GROUP BY v ORDER BY c DESC, v", table, fr->quoted);
        run(fr->twin_db, q.s, &r);
        free(take(&q));
        for (size_t i = 0; i < r.n && v->nr_events < 3; i++)
            v->events[v->nr_events++] = as_sql_text(r.rows[i].s);
        result_free(&r);
    }
    if (ordinal) {
        printf_(&q, "SELECT min(CAST(%s AS INTEGER)), max(CAST(%s AS INTEGER)) FROM %s(%s)",
                ordinal, ordinal, table, fr->quoted);
        run(fr->twin_db, q.s, &r);
        free(take(&q));
        if (r.n == 1 && r.rows[0].s[0] == 'I') {
            v->ordinals = true;
            v->first = as_int(r.rows[0].s);
            v->last = as_int(strchr(r.rows[0].s, ';') + 1);
        }
        result_free(&r);
    }
}

static void free_values(values *v)
{
    free(v->times);
    for (size_t i = 0; i < v->nr_events; i++)
        free(v->events[i]);
}

/* The time at quantile p (per mille) of the table's times. */
static long long quantile(const values *v, unsigned per_mille)
{
    if (v->nr_times == 0)
        return 1000 + per_mille;
    return v->times[(v->nr_times - 1) * per_mille / 1000];
}

/* Rows a pair asks for, about, at most: every row's values are compared,
 * and a big table's open ranges are moved towards its ends. */
#define ROWS_CAP 1500

/* The per-mille quantile below which (above which, for 1000 minus it)
 * lie about min(half, ROWS_CAP) of the table's timed rows. */
static unsigned edge(const values *v)
{
    return v->nr_times <= 2 * ROWS_CAP ? 500 : (unsigned)(ROWS_CAP * 1000 / v->nr_times);
}

/* Half the width, per mille, of a window around the median of about
 * min(half, ROWS_CAP) rows. */
static unsigned half_window(const values *v)
{
    return v->nr_times <= 2 * ROWS_CAP ? 250 : (unsigned)(ROWS_CAP * 500 / v->nr_times);
}

/* Whether the whole table is small enough to ask for all of it. */
static bool small(const values *v)
{
    return v->nr_times <= 4 * ROWS_CAP;
}

/* ------------------------------------------------------------------ */
/* The queries of one table */

typedef struct table_run {
    file_run *fr;
    const char *table;
    char *narrow, *full;     /* projections */
    const char *ordinal;     /* its ordinal column, or NULL */
    bool lookup;             /* an equality on it is a lookup */
    bool has_time;
    bool quick;              /* -q, or a table whose rows cost (see tables) */
} table_run;

/* A WHERE (and ORDER BY) tail: the narrow rows, and for a lookup by
 * ordinal (which reads the record whole) the full ones too. */
static void where(table_run *t, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void where(table_run *t, int kind, const char *fmt, ...)
{
    char cond[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cond, sizeof cond, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof cond)
        die("a condition too long");
    const char *projections[] = { t->narrow, t->full };
    for (int p = 0; p < (!t->quick && kind == K_ORDINAL ? 2 : 1); p++) {
        text q = {0};
        printf_(&q, "SELECT %s FROM %s(%s) WHERE ", projections[p], t->table, t->fr->quoted);
        puts_(&q, cond);
        char *sql = take(&q);
        pair(t->fr, kind, CMP_SET, sql, t->quick);
        free(sql);
    }
}

/* An ORDER BY the table may consume: key first in the rows. */
static void order(table_run *t, int kind, cmp_kind cmp, const char *key, const char *tail)
{
    const char *projections[] = { t->narrow, t->full };
    for (int p = 0; p < (t->quick ? 1 : 2); p++) {
        text q = {0};
        printf_(&q, "SELECT %s, %s FROM %s(%s) ", key, projections[p], t->table, t->fr->quoted);
        puts_(&q, tail);
        char *sql = take(&q);
        pair(t->fr, kind, cmp, sql, t->quick);
        free(sql);
    }
}

static void time_pairs(table_run *t, const values *v)
{
    bool all = !t->quick;
    unsigned e = edge(v), w = half_window(v);
    long long lo = quantile(v, e), hi = quantile(v, 1000 - e);
    long long w0 = quantile(v, 500 - w), w1 = quantile(v, 500 + w);
    long long q0 = quantile(v, 0), q1 = quantile(v, 10), q10 = quantile(v, 100),
              q20 = quantile(v, 200), q30 = quantile(v, 300), q50 = quantile(v, 500),
              q51 = quantile(v, 510), q99 = quantile(v, 990), q100 = quantile(v, 1000);
    where(t, K_TIME, "{time} > %lld", hi);
    where(t, K_TIME, "{time} BETWEEN %lld AND %lld", q50, q51);
    where(t, K_TIME, "{time} >= '%lld' AND {time} < %lld.5", w0, w1);
    if (!all)
        return;
    where(t, K_TIME, "{time} <= %lld", lo);
    where(t, K_TIME, "{time} > %lld ORDER BY {+time}, rowid", hi);
    where(t, K_TIME, "{time} = %lld", q30);
    where(t, K_TIME, "{time} BETWEEN %lld AND %lld", q10, q20);
    where(t, K_TIME, "{time} >= %lld", hi);
    where(t, K_TIME, "{time} < %lld", lo);
    where(t, K_TIME, "{time} IN (%lld, %lld)", q10, w1);
    where(t, K_TIME, "{time} BETWEEN %lld AND %lld", q0, q1);
    where(t, K_TIME, "{time} BETWEEN %lld AND %lld", q99, q100);
    if (small(v))
        where(t, K_TIME, "{time} BETWEEN %lld AND %lld", q0, q100);
    where(t, K_TIME, "{time} BETWEEN %lld AND %lld", q30, q20);
    where(t, K_TIME, "{time} > %lld", q100);
    where(t, K_TIME, "{time} < %lld", q0);
    if (small(v))
        where(t, K_TIME, "{time} > -9223372036854775808 AND {time} < 1e19");
    where(t, K_TIME, "{time} BETWEEN %lld AND %lld ORDER BY rowid", w0, w1);
}

/* A window of the table's times that holds about ROWS_CAP rows, or none
 * when the table is small, as an AND term. */
static void window_term(const values *v, char *out, size_t n)
{
    unsigned w = half_window(v);
    if (small(v))
        snprintf(out, n, "%s", "");
    else
        snprintf(out, n, " AND {time} BETWEEN %lld AND %lld", quantile(v, 500 - w),
                 quantile(v, 500 + w));
}

static void identity_pairs(table_run *t, const values *v)
{
    bool all = !t->quick;
    static const char *const names[] = { "pid", "tid", "cpu" };
    static const int kinds[] = { K_PID, K_TID, K_CPU };
    char in_window[128];
    window_term(v, in_window, sizeof in_window);
    unsigned w = half_window(v);
    for (int k = 0; k < 3; k++) {
        if (!v->has[k])
            continue;
        long long most = v->found[k] ? v->most[k] : 0, least = v->found[k] ? v->least[k] : 1;
        where(t, kinds[k], "{%s} = %lld%s", names[k], most, in_window);
        if (!all)
            continue;
        where(t, kinds[k], "{%s} = '%lld'%s", names[k], least, in_window);
        if (t->has_time)
            where(t, kinds[k], "{%s} = %lld AND {time} BETWEEN %lld AND %lld", names[k], most,
                  quantile(v, 500 - w), quantile(v, 500 + w));
        where(t, kinds[k], "{%s} = %lld%s", names[k], least, in_window);
        where(t, kinds[k], "{%s} = 4294967296", names[k]);
    }
    if (!v->has[3])
        return;
    for (size_t i = 0; i < v->nr_events && (all || i < 1); i++) {
        where(t, K_EVENT, "{event} = %s%s", v->events[i], in_window);
        where(t, K_EVENT, "{event} = upper(%s) COLLATE NOCASE%s", v->events[i], in_window);
        if (all && v->has[1] && v->found[1])
            where(t, K_EVENT, "{event} = %s AND {tid} = %lld%s", v->events[i], v->most[1],
                  in_window);
    }
    if (all)
        where(t, K_EVENT, "{event} = 'no such event'");
}

static void ordinal_pairs(table_run *t, const values *v)
{
    bool all = !t->quick;
    const char *o = t->ordinal;
    long long first = v->ordinals ? v->first : 0, last = v->ordinals ? v->last : 10;
    long long mid = first + (last - first) / 2;
    where(t, K_ORDINAL, "{%s} IN (%lld, %lld, %lld)", o, last + 1, first, mid);
    if (!all)
        return;
    where(t, K_ORDINAL, "{%s} = %lld", o, mid);
    where(t, K_ORDINAL, "{%s} = %lld", o, last + 1);
    where(t, K_ORDINAL, "{%s} = -1", o);
    where(t, K_ORDINAL, "{%s} = '%lld'", o, mid > 0 ? mid - 1 : 1);
    where(t, K_ORDINAL, "{%s} = %lld.5", o, mid);
    where(t, K_ORDINAL, "{%s} = NULL", o);
    if (t->has_time)
        where(t, K_ORDINAL, "{%s} = %lld AND {time} > %lld", o, mid, quantile(v, 100));
}

static void order_pairs(table_run *t, const values *v, bool by_time, const char *record)
{
    char tail[256], in_window[128];
    window_term(v, in_window, sizeof in_window);
    /* "WHERE 1 AND ...": the window, when there is one */
    const char *where_ = in_window[0] ? "WHERE 1" : "";
    if (by_time) {
        snprintf(tail, sizeof tail, "%s%s ORDER BY {+time}", where_, in_window);
        if (!t->quick)
            order(t, K_ORDER_TIME, CMP_KEY, "time", tail);
        snprintf(tail, sizeof tail, "%s%s ORDER BY {+time}, {+%s}", where_, in_window, record);
        order(t, K_ORDER_TIME, CMP_SEQ, "time", tail);
        unsigned w = half_window(v) / 2;
        snprintf(tail, sizeof tail, "WHERE {time} BETWEEN %lld AND %lld ORDER BY {+time}, {+%s}",
                 quantile(v, 500 - w), quantile(v, 500 + w), record);
        if (!t->quick)
            order(t, K_ORDER_TIME, CMP_SEQ, "time", tail);
    }
    snprintf(tail, sizeof tail, "%s%s ORDER BY {+%s}", where_, in_window, record);
    order(t, K_ORDER_FILE, CMP_SEQ, "rowid", tail);
}

/* Whether an equality on column is taken over by table (its values are
 * looked for only then). */
static bool taken_over(file_run *fr, const char *table, const char *column)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s('') WHERE {%s} = 1", table, column);
    char *pushed = expand(sql, false), *hidden = expand(sql, true);
    bool taken = plan_index(fr->twin_db, pushed) != plan_index(fr->twin_db, hidden);
    free(pushed);
    free(hidden);
    return taken;
}

/* Columns of table, but the hidden path: the narrow projection leaves out
 * the ordinal, what is resolved from the stream before the record (comm,
 * dso, sym...) and perf_records' whole record (fields, data: costly, and
 * read by the full one); both leave out srcfile and srcline (line tables:
 * slow, and nothing a scan decides). */
static void projections(file_run *fr, table_run *t, values *v)
{
    text narrow = {0}, full = {0};
    puts_(&full, "rowid");
    result r;
    text q = {0};
    printf_(&q, "SELECT name FROM pragma_table_xinfo('%s') WHERE hidden = 0", t->table);
    run(fr->twin_db, q.s, &r);
    free(q.s);
    static const char *const symbolic[] = {
        "comm", "dso", "dso_offset", "sym", "sym_offset", "sym_status", "inlined", "origin",
        "srcfile", "srcline", "fields", "data",
    };
    for (size_t i = 0; i < r.n; i++) {
        char name[64];
        const char *colon = strchr(r.rows[i].s, ':');
        snprintf(name, sizeof name, "%.*s", (int)strtoul(r.rows[i].s + 1, NULL, 10), colon + 1);
        if (strcmp(name, "time") == 0)
            t->has_time = true;
        static const char *const ids[] = { "pid", "tid", "cpu", "event" };
        for (int k = 0; k < 4; k++)
            if (strcmp(name, ids[k]) == 0)
                v->has[k] = taken_over(fr, t->table, name);
        if (t->ordinal && strcmp(name, t->ordinal) == 0)
            t->lookup = taken_over(fr, t->table, name);
        if (strcmp(name, "srcfile") == 0 || strcmp(name, "srcline") == 0)
            continue;
        printf_(&full, ", \"%s\"", name);
        bool skip = t->ordinal && strcmp(name, t->ordinal) == 0;
        for (size_t k = 0; k < sizeof symbolic / sizeof *symbolic; k++)
            skip = skip || strcmp(name, symbolic[k]) == 0;
        if (!skip)
            printf_(&narrow, "%s\"%s\"", narrow.len ? ", " : "", name);
    }
    result_free(&r);
    t->narrow = take(&narrow);
    t->full = take(&full);
}

/* The tables whose rows are records, the name of their ordinal, what they
 * take over, and whether their rows cost (perf_callchains: a row per frame,
 * each placed in the maps): they get -q's pairs whatever the option. */
static const struct {
    const char *name, *ordinal;
    bool order_by_time, grouped, costly;
} tables[] = {
    { "perf_samples", "record", true, true, false },
    { "perf_records", "record", false, false, false },
    { "perf_mmaps", "record", true, false, false },
    { "perf_comms", "record", true, false, false },
    { "perf_tasks", "record", true, false, false },
    { "perf_lost", "record", true, false, false },
    { "perf_switches", "record", true, false, false },
    { "perf_callchains", "sample", true, true, true },
    { "perf_stats", "record", false, false, false },
};

static void grouped_pairs(table_run *t)
{
    file_run *fr = t->fr;
    char sql[512];
    const char *keys = strcmp(t->table, "perf_samples") == 0 ? "comm, pid" : "sym, depth";
    const char *plus = strcmp(t->table, "perf_samples") == 0 ? "{+comm}, {+pid}"
                                                              : "{+sym}, {+depth}";
    snprintf(sql, sizeof sql, "SELECT %s, count(*), total(period) FROM %s(%s) GROUP BY %s",
             keys, t->table, fr->quoted, plus);
    if (!t->quick)
        pair(fr, K_GROUPED, CMP_SET, sql, t->quick);
    snprintf(sql, sizeof sql, "SELECT %s, count(*) FROM %s(%s) GROUP BY %s ORDER BY %s",
             keys, t->table, fr->quoted, plus, plus);
    pair(fr, K_GROUPED, CMP_SEQ, sql, t->quick);
    snprintf(sql, sizeof sql, "SELECT DISTINCT %s FROM %s(%s) ORDER BY %s", keys, t->table,
             fr->quoted, plus);
    if (!t->quick)
        pair(fr, K_GROUPED, CMP_SEQ, sql, t->quick);
}

static void file_pairs(file_run *fr)
{
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        table_run t = { fr, tables[i].name, NULL, NULL, tables[i].ordinal, false, false,
                        fr->quick || tables[i].costly };
        values v;
        memset(&v, 0, sizeof v);
        projections(fr, &t, &v);
        read_values(fr, t.table, t.lookup ? t.ordinal : NULL, &v);
        if (t.has_time)
            time_pairs(&t, &v);
        identity_pairs(&t, &v);
        if (t.lookup)
            ordinal_pairs(&t, &v);
        order_pairs(&t, &v, tables[i].order_by_time, t.ordinal);
        if (tables[i].grouped)
            grouped_pairs(&t);
        free_values(&v);
        free(t.narrow);
        free(t.full);
    }
}

static char *quote(const char *s)
{
    text t = {0};
    puts_(&t, "'");
    for (; *s; s++)
        put(&t, *s == '\'' ? "''" : s, *s == '\'' ? 2 : 1);
    puts_(&t, "'");
    return take(&t);
}

int main(int argc, char **argv)
{
    sqlite3_auto_extension((void (*)(void))sqlite3_perfvtab_init);
    bool verbose = false, require = false, quick = false;
    totals all;
    memset(&all, 0, sizeof all);
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = true;
            continue;
        }
        if (strcmp(argv[i], "-q") == 0) {
            quick = true;
            continue;
        }
        if (strcmp(argv[i], "-r") == 0) {
            require = true;
            continue;
        }
        totals before = all;
        file_run fr = { argv[i], quote(argv[i]), open_db(), open_db(), verbose, quick, 0, NULL,
                        &all };
        file_pairs(&fr);
        sqlite3_close(fr.twin_db);
        sqlite3_close(fr.warm_db);
        unsigned long runs = all.runs - before.runs;
        if (fr.failures) {
            printf("not ok - twins %s: %u of %lu runs differ from the hidden twin; first: %.900s\n",
                   argv[i], fr.failures, runs, fr.first_failure);
            status = 1;
        } else {
            printf("ok - twins %s: %lu runs equal their hidden twins (%lu both fail, %lu only "
                   "the twin)\n", argv[i], runs, all.both_failed - before.both_failed,
                   all.twin_failed - before.twin_failed);
        }
        free(fr.first_failure);
        free(fr.quoted);
        fflush(stdout);
    }
    text kinds = {0};
    bool every = true;
    for (int k = 0; k < KINDS; k++) {
        printf_(&kinds, "%s%s %lu", k ? ", " : "", kind_names[k], all.taken[k]);
        every = every && all.taken[k] > 0;
    }
    printf("# twins: %lu pairs, %lu runs; pairs taken over, by kind: %s\n", all.pairs, all.runs,
           kinds.s);
    if (require) {
        printf("%s - twins: every kind is taken over by some pair%s\n", every ? "ok" : "not ok",
               every ? "" : ": some kind by none");
        status |= !every;
    }
    free(kinds.s);
    return status;
}
