/*
 * Queries for fuzz_sql, generated from a few choice bytes (the input's
 * last 16: they are part of the file too, which is harmless, and let the
 * fuzzer steer the SQL as it steers the file).  Each query names a module
 * and columns picked from the live schema (pragma_module_list and
 * pragma_table_xinfo), so new tables and columns are covered unasked.
 *
 * The shapes are the ones that keep a value after the row that made it:
 * min()/max(), count(DISTINCT), group_concat, GROUP BY and ORDER BY
 * (sorters), subqueries, window functions, UNION, joins of two tables over
 * one file, a glob and a JSON path list (the first file's symbolizer is
 * freed before the second file's rows), and two statements over one file
 * stepped alternately.  SQLite itself reads the kept values, so a value
 * that points into a cursor is a use-after-free that ASan reports.
 */
#ifndef PV_FUZZ_QUERY_GEN_H
#define PV_FUZZ_QUERY_GEN_H
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QG_MAX_MODULES 32
#define QG_MAX_COLUMNS 48
#define QG_NAME 48

typedef struct {
    char name[QG_NAME];
    int nr_columns;
    char columns[QG_MAX_COLUMNS][QG_NAME];   /* the visible ones, then "path" */
    int nr_texts;                            /* TEXT and BLOB columns: the ones */
    int texts[QG_MAX_COLUMNS];               /* whose bytes SQLite may keep */
} qg_module;

typedef struct {
    int nr_modules;
    qg_module modules[QG_MAX_MODULES];
} qg_schema;

typedef struct {
    const uint8_t *bytes;
    size_t len;
    size_t at;
} qg_choices;

static qg_choices qg_choices_from_tail(const uint8_t *data, size_t size)
{
    size_t n = size < 16 ? size : 16;
    qg_choices c = { data + (size - n), n, 0 };
    return c;
}

static unsigned qg_pick(qg_choices *c, unsigned range)
{
    if (range == 0)
        return 0;
    uint32_t x = c->len ? c->bytes[c->at % c->len] : 0;
    /* mixed with the position, so that a run of equal bytes (a file's
     * zero padding) still varies */
    x ^= (uint32_t)++c->at * 0x9E3779B1u;
    x ^= x >> 15;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    return x % range;
}

static void qg_schema_load(sqlite3 *db, qg_schema *s)
{
    memset(s, 0, sizeof *s);
    sqlite3_stmt *modules = NULL;
    if (sqlite3_prepare_v2(db,
            "SELECT name FROM pragma_module_list WHERE name LIKE 'perf\\_%' ESCAPE '\\' "
            "ORDER BY name", -1, &modules, NULL) != SQLITE_OK)
        abort();
    while (sqlite3_step(modules) == SQLITE_ROW && s->nr_modules < QG_MAX_MODULES)
        snprintf(s->modules[s->nr_modules++].name, QG_NAME, "%s", sqlite3_column_text(modules, 0));
    sqlite3_finalize(modules);
    for (int i = 0; i < s->nr_modules; i++) {
        qg_module *m = &s->modules[i];
        sqlite3_stmt *cols = NULL;
        if (sqlite3_prepare_v2(db, "SELECT name, type IN ('TEXT', 'BLOB') FROM "
                               "pragma_table_xinfo(?1) WHERE hidden = 0 ORDER BY cid",
                               -1, &cols, NULL) != SQLITE_OK)
            abort();
        sqlite3_bind_text(cols, 1, m->name, -1, SQLITE_STATIC);
        while (sqlite3_step(cols) == SQLITE_ROW && m->nr_columns < QG_MAX_COLUMNS - 1) {
            if (sqlite3_column_int(cols, 1))
                m->texts[m->nr_texts++] = m->nr_columns;
            snprintf(m->columns[m->nr_columns++], QG_NAME, "%s", sqlite3_column_text(cols, 0));
        }
        sqlite3_finalize(cols);
        snprintf(m->columns[m->nr_columns++], QG_NAME, "path");
    }
}

/* Steps stmt to the end, reading every column of every row as blob and as
 * text (both conversions run, and the bytes are read). */
static void qg_read_rows(sqlite3_stmt *stmt)
{
    volatile size_t sink = 0;
    int columns = sqlite3_column_count(stmt);
    while (sqlite3_step(stmt) == SQLITE_ROW)
        for (int i = 0; i < columns; i++) {
            const unsigned char *p = sqlite3_column_blob(stmt, i);
            int n = sqlite3_column_bytes(stmt, i);
            for (int k = 0; p && k < n; k++)
                sink += p[k];
            sqlite3_column_text(stmt, i);
        }
    (void)sink;
}

/* Text and blob columns half the time: a number cannot dangle. */
static const char *qg_column(const qg_module *m, qg_choices *c)
{
    if (m->nr_texts > 0 && qg_pick(c, 2) == 0)
        return m->columns[m->texts[qg_pick(c, (unsigned)m->nr_texts)]];
    return m->columns[qg_pick(c, (unsigned)m->nr_columns)];
}

/* A column both modules have, for a join; NULL if none. */
static const char *qg_common_column(const qg_module *a, const qg_module *b, qg_choices *c)
{
    const char *common[QG_MAX_COLUMNS];
    unsigned nr = 0;
    for (int i = 0; i < a->nr_columns; i++)
        for (int k = 0; k < b->nr_columns; k++)
            if (strcmp(a->columns[i], b->columns[k]) == 0 && strcmp(a->columns[i], "path") != 0)
                common[nr++] = a->columns[i];
    return nr ? common[qg_pick(c, nr)] : NULL;
}

/* The table's argument, always aliased t (json_each has columns of the
 * same names as some tables'): the file, a glob over the file and its twin, or
 * (as ?2 through json_each) a JSON list of both. */
typedef struct {
    char glob[80];
    char json_list[160];
} qg_sources;

static void qg_sources_init(qg_sources *s, const char *path, int fd, int twin_fd)
{
    char a[16], b[16];
    snprintf(a, sizeof a, "%d", fd);
    snprintf(b, sizeof b, "%d", twin_fd);
    size_t la = strlen(a);
    if (la == strlen(b) && la > 0 && strncmp(a, b, la - 1) == 0)
        snprintf(s->glob, sizeof s->glob, "/proc/self/fd/%.*s[%c%c]", (int)(la - 1), a, a[la - 1],
                 b[la - 1]);
    else
        snprintf(s->glob, sizeof s->glob, "/proc/self/fd/%.*s[%c]", (int)(la - 1), a, a[la - 1]);
    snprintf(s->json_list, sizeof s->json_list, "[\"%s\", \"/proc/self/fd/%d\"]", path, twin_fd);
}

static char *qg_source(qg_choices *c, const qg_sources *s, const char *module)
{
    /* half the queries over two files: the first one's state is freed
     * before the second one's rows */
    switch (qg_pick(c, 4)) {
    case 0: return sqlite3_mprintf("\"%w\"(%Q) AS t", module, s->glob);
    case 1: return sqlite3_mprintf("json_each(?2) AS j, \"%w\"(j.value) AS t", module);
    case 2: return sqlite3_mprintf("\"%w\"(%Q) AS t", module, s->glob);
    default: return sqlite3_mprintf("\"%w\"(?1) AS t", module);
    }
}

static char *qg_generate(qg_choices *c, const qg_schema *schema, const qg_sources *sources)
{
    const qg_module *m = &schema->modules[qg_pick(c, (unsigned)schema->nr_modules)];
    const qg_module *m2 = &schema->modules[qg_pick(c, (unsigned)schema->nr_modules)];
    const char *col = qg_column(m, c), *other = qg_column(m, c), *col2 = qg_column(m2, c);
    unsigned limit = 1 + qg_pick(c, 40), offset = qg_pick(c, 8);
    char *from = qg_source(c, sources, m->name);
    char *from2 = qg_source(c, sources, m2->name);
    char *sql = NULL;
    switch (qg_pick(c, 11)) {
    case 0:
        sql = sqlite3_mprintf("SELECT min(t.\"%w\"), max(t.\"%w\"), count(DISTINCT t.\"%w\"), "
                              "length(group_concat(t.\"%w\", '|')), count(*) FROM %s",
                              col, col, col, col, from);
        break;
    case 1:
        sql = sqlite3_mprintf("SELECT t.\"%w\", count(*), max(t.\"%w\") FROM %s GROUP BY 1 "
                              "ORDER BY 2 DESC, 1 LIMIT %u OFFSET %u",
                              col, other, from, limit, offset);
        break;
    case 2:
        sql = sqlite3_mprintf("SELECT * FROM %s ORDER BY t.\"%w\" DESC, t.\"%w\" LIMIT %u OFFSET %u",
                              from, col, other, limit, offset);
        break;
    case 3:
        sql = sqlite3_mprintf("SELECT max(x), min(y), count(DISTINCT x) FROM (SELECT t.\"%w\" AS x, "
                              "t.\"%w\" AS y FROM %s ORDER BY 2 LIMIT %u)", col, other, from, limit);
        break;
    case 4:
        sql = sqlite3_mprintf("SELECT t.\"%w\", t.\"%w\" FROM %s WHERE t.\"%w\" = (SELECT max(t.\"%w\") "
                              "FROM %s) OR t.\"%w\" IN (SELECT t.\"%w\" FROM %s LIMIT %u)",
                              col, other, from, col, col, from, other, other, from, limit);
        break;
    case 5: {
        /* a join: the outer side limited, the inner table scanned per row */
        const char *key = qg_common_column(m, m2, c);
        if (key)
            sql = sqlite3_mprintf("SELECT max(a.\"%w\"), min(b.\"%w\"), count(*) FROM (SELECT *, path "
                                  "FROM \"%w\"(?1) LIMIT %u) AS a JOIN \"%w\"(?1) AS b "
                                  "ON a.\"%w\" = b.\"%w\"",
                                  col, col2, m->name, limit, m2->name, key, key);
        else
            sql = sqlite3_mprintf("SELECT max(a.\"%w\"), min(b.\"%w\"), count(*) FROM (SELECT *, path "
                                  "FROM \"%w\"(?1) LIMIT %u) AS a, (SELECT *, path FROM \"%w\"(?1) "
                                  "LIMIT %u) AS b", col, col2, m->name, limit, m2->name, limit);
        break;
    }
    case 6:
        sql = sqlite3_mprintf("SELECT t.\"%w\" FROM %s UNION SELECT t.\"%w\" FROM %s ORDER BY 1 "
                              "LIMIT %u OFFSET %u", col, from, col2, from2, limit, offset);
        break;
    case 7:
        sql = sqlite3_mprintf("SELECT t.\"%w\", row_number() OVER (PARTITION BY t.\"%w\" ORDER BY "
                              "t.\"%w\") FROM %s LIMIT %u", col, other, col, from, limit * 8);
        break;
    case 8:
        sql = sqlite3_mprintf("SELECT length(perf_sum_by(t.\"%w\", t.\"%w\", 1)) FROM %s",
                              col, other, from);
        break;
    case 9:
        sql = sqlite3_mprintf("SELECT DISTINCT t.\"%w\", t.\"%w\" FROM %s LIMIT %u OFFSET %u",
                              col, other, from, limit, offset);
        break;
    default:
        sql = sqlite3_mprintf("SELECT (SELECT max(t.\"%w\") FROM %s), (SELECT min(t.\"%w\") FROM %s)",
                              col, from, col2, from2);
        break;
    }
    sqlite3_free(from);
    sqlite3_free(from2);
    return sql;
}

/* Two statements over one file, stepped in turn: each keeps its own cursor
 * on the same cached file while the other moves. */
static void qg_step_alternately(sqlite3 *db, const qg_schema *schema, qg_choices *c,
                                const char *path)
{
    sqlite3_stmt *stmt[2] = { NULL, NULL };
    for (int i = 0; i < 2; i++) {
        const qg_module *m = &schema->modules[qg_pick(c, (unsigned)schema->nr_modules)];
        char *sql = sqlite3_mprintf("SELECT *, path FROM \"%w\"(?1)", m->name);
        if (!sql || sqlite3_prepare_v2(db, sql, -1, &stmt[i], NULL) != SQLITE_OK) {
            fprintf(stderr, "fuzz_sql: %s: %s\n", sql ? sql : "(no memory)", sqlite3_errmsg(db));
            abort();
        }
        sqlite3_free(sql);
        sqlite3_bind_text(stmt[i], 1, path, -1, SQLITE_STATIC);
    }
    volatile size_t sink = 0;
    bool live[2] = { true, true };
    while (live[0] || live[1])
        for (int i = 0; i < 2; i++) {
            if (!live[i])
                continue;
            if (sqlite3_step(stmt[i]) != SQLITE_ROW) {
                live[i] = false;
                continue;
            }
            for (int k = 0; k < sqlite3_column_count(stmt[i]); k++) {
                const unsigned char *t = sqlite3_column_text(stmt[i], k);
                sink += t ? strlen((const char *)t) : 0;
            }
        }
    (void)sink;
    sqlite3_finalize(stmt[0]);
    sqlite3_finalize(stmt[1]);
}

/* Every input: the extremes of one text column over both files, the shape
 * most likely to keep a value after its file's state is freed (the first
 * shapes above may not reach it often on inputs that have few rows). */
static void qg_keep_across_files(sqlite3 *db, const qg_schema *schema, qg_choices *c,
                                 const qg_sources *sources)
{
    const qg_module *m = &schema->modules[qg_pick(c, (unsigned)schema->nr_modules)];
    if (m->nr_texts == 0)
        return;
    const char *col = m->columns[m->texts[qg_pick(c, (unsigned)m->nr_texts)]];
    char *sql = sqlite3_mprintf("SELECT max(\"%w\"), min(\"%w\"), count(DISTINCT \"%w\") "
                                "FROM \"%w\"(%Q)", col, col, col, m->name, sources->glob);
    sqlite3_stmt *stmt = NULL;
    if (!sql || sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        fprintf(stderr, "fuzz_sql: %s: %s\n", sql ? sql : "(no memory)", sqlite3_errmsg(db));
        abort();
    }
    if (getenv("FUZZ_SQL_ECHO"))
        fprintf(stderr, "%s\n", sql);
    qg_read_rows(stmt);
    sqlite3_finalize(stmt);
    sqlite3_free(sql);
}

static void qg_run_generated(sqlite3 *db, const qg_schema *schema, qg_choices *c,
                             const char *path, int fd, int twin_fd)
{
    if (schema->nr_modules == 0)
        abort();
    qg_sources sources;
    qg_sources_init(&sources, path, fd, twin_fd);
    unsigned count = 3 + qg_pick(c, 4);
    for (unsigned q = 0; q < count; q++) {
        char *sql = qg_generate(c, schema, &sources);
        sqlite3_stmt *stmt = NULL;
        if (!sql || sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
            /* generated SQL must be valid, or the fuzzer fuzzes nothing */
            fprintf(stderr, "fuzz_sql: generated %s: %s\n", sql ? sql : "(no memory)",
                    sqlite3_errmsg(db));
            abort();
        }
        sqlite3_bind_text(stmt, 1, path, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, sources.json_list, -1, SQLITE_STATIC);
        if (getenv("FUZZ_SQL_ECHO"))
            fprintf(stderr, "%s\n", sql);
        qg_read_rows(stmt);
        sqlite3_finalize(stmt);
        sqlite3_free(sql);
    }
    qg_keep_across_files(db, schema, c, &sources);
    qg_step_alternately(db, schema, c, path);
}
#endif
