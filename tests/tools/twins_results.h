/*
 * twins.c's text and query results: rows kept as typed, counted values,
 * compared as multisets or in order.  Included by twins.c alone.
 */
#ifndef PV_TWINS_RESULTS_H
#define PV_TWINS_RESULTS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* ------------------------------------------------------------------ */
/* Text */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void die(const char *what)
{
    fprintf(stderr, "twins: %s\n", what);
    exit(2);
}

static void put(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (t->len + n + 1 > cap)
            cap *= 2;
        t->s = realloc(t->s, cap);
        if (!t->s)
            die("out of memory");
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = 0;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void printf_(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        die("cannot format");
    char *buf = malloc((size_t)n + 1);
    if (!buf)
        die("out of memory");
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    va_end(ap);
    put(t, buf, (size_t)n);
    free(buf);
}

static char *take(text *t)
{
    char *s = t->s ? t->s : strdup("");
    if (!s)
        die("out of memory");
    memset(t, 0, sizeof *t);
    return s;
}

/* ------------------------------------------------------------------ */
/* Results */

/* A row's values, each typed and counted (bytes may hold NULs). */
typedef struct row {
    char *s;
    size_t len;
} row;

static int row_cmp(const row *a, const row *b)
{
    int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

typedef struct result {
    row *rows;
    size_t n, cap;
    bool failed;
    char *error;
} result;

static void result_free(result *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->rows[i].s);
    free(r->rows);
    free(r->error);
    memset(r, 0, sizeof *r);
}

/* A value as text that tells its type: equal texts, equal values. */
static void put_value(text *t, sqlite3_stmt *st, int i)
{
    char buf[64];
    int n;
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        put(t, "N;", 2);
        return;
    case SQLITE_INTEGER:
        n = snprintf(buf, sizeof buf, "I%lld;", (long long)sqlite3_column_int64(st, i));
        put(t, buf, (size_t)n);
        return;
    case SQLITE_FLOAT:
        n = snprintf(buf, sizeof buf, "R%.17g;", sqlite3_column_double(st, i));
        put(t, buf, (size_t)n);
        return;
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_column_text(st, i);
        int len = sqlite3_column_bytes(st, i);
        n = snprintf(buf, sizeof buf, "T%d:", len);
        put(t, buf, (size_t)n);
        put(t, s ? s : "", (size_t)len);
        put(t, ";", 1);
        return;
    }
    default: {
        /* a blob's bytes as they are, after their count */
        const char *b = sqlite3_column_blob(st, i);
        int len = sqlite3_column_bytes(st, i);
        n = snprintf(buf, sizeof buf, "B%d:", len);
        put(t, buf, (size_t)n);
        put(t, b ? b : "", (size_t)len);
        put(t, ";", 1);
        return;
    }
    }
}

static void run(sqlite3 *db, const char *sql, result *r)
{
    memset(r, 0, sizeof *r);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        int columns = sqlite3_column_count(st);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            text values = {0};
            for (int i = 0; i < columns; i++)
                put_value(&values, st, i);
            if (r->n == r->cap) {
                r->cap = r->cap ? 2 * r->cap : 64;
                r->rows = realloc(r->rows, r->cap * sizeof *r->rows);
                if (!r->rows)
                    die("out of memory");
            }
            r->rows[r->n].len = values.len;
            r->rows[r->n++].s = take(&values);
        }
    }
    if (rc != SQLITE_DONE) {
        r->failed = true;
        r->error = strdup(sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
}

/* The idxNum of the first virtual table scan in sql's plan, or -1. */
static long plan_index(sqlite3 *db, const char *sql)
{
    text q = {0};
    printf_(&q, "EXPLAIN QUERY PLAN ");
    puts_(&q, sql);
    sqlite3_stmt *st = NULL;
    long index = -1;
    if (sqlite3_prepare_v2(db, q.s, -1, &st, NULL) == SQLITE_OK) {
        while (index < 0 && sqlite3_step(st) == SQLITE_ROW) {
            const char *d = (const char *)sqlite3_column_text(st, 3);
            const char *at = d ? strstr(d, "VIRTUAL TABLE INDEX ") : NULL;
            if (at)
                index = strtol(at + strlen("VIRTUAL TABLE INDEX "), NULL, 10);
        }
    }
    sqlite3_finalize(st);
    free(q.s);
    return index;
}

static int by_text(const void *a, const void *b)
{
    return row_cmp(a, b);
}

/* Whether every row of part is in whole (multisets, both sorted). */
static bool contained(const result *part, const result *whole)
{
    size_t j = 0;
    for (size_t i = 0; i < part->n; i++) {
        while (j < whole->n && row_cmp(&whole->rows[j], &part->rows[i]) < 0)
            j++;
        if (j == whole->n || row_cmp(&whole->rows[j], &part->rows[i]) != 0)
            return false;
        j++;
    }
    return true;
}

/* The first value of a row (the ORDER BY key the queries put first). */
static size_t first_value_len(const row *r)
{
    const char *v = r->s;
    if (v[0] == 'T' || v[0] == 'B') {
        const char *colon = strchr(v, ':');
        return (size_t)(colon - v) + 1 + strtoul(v + 1, NULL, 10) + 1;
    }
    return (size_t)(strchr(v, ';') - v) + 1;
}

#endif
