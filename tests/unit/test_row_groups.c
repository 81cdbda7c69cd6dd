/*
 * Unit tests of src/render/row_groups.c (the rows of a grouped scan):
 * groups come out sorted by their keys as an SQL ORDER BY under BINARY
 * sorts them (NULL, integers, text by bytes; descending keys reversed),
 * the rows of a group together in the order their first rows came, rows
 * equal in every cell once with their count and first id; text equal by
 * bytes wherever it lies, and texts at a reused address told apart.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdio.h>
#include <string.h>

#include "render/row_groups.h"
#include "unit_check.h"

static pv_value text(const char *s)
{
    return (pv_value){ PV_VALUE_TEXT, 0, 0, s, strlen(s) };
}

static pv_value integer(int64_t i)
{
    return (pv_value){ PV_VALUE_INT, i, 0, NULL, 0 };
}

static pv_value null(void)
{
    return (pv_value){ PV_VALUE_NULL, 0, 0, NULL, 0 };
}

/* "key:value*count" per entry, joined by spaces */
static void describe(const pv_row_groups *g, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    for (size_t k = 0; k < g->nr_entries && n < size; k++) {
        pv_value key = pv_row_groups_cell(g, k, 0), value = pv_row_groups_cell(g, k, 1);
        char key_text[32];
        if (key.type == PV_VALUE_TEXT)
            snprintf(key_text, sizeof key_text, "%.*s", (int)key.len, (const char *)key.bytes);
        else if (key.type == PV_VALUE_INT)
            snprintf(key_text, sizeof key_text, "%lld", (long long)key.i);
        else
            snprintf(key_text, sizeof key_text, "NULL");
        n += (size_t)snprintf(out + n, size - n, "%s%s:%lld*%llu@%lld", k ? " " : "", key_text,
                              (long long)value.i, (unsigned long long)pv_row_groups_count(g, k),
                              (long long)pv_row_groups_id(g, k));
    }
}

static void grouping_tests(bool descending)
{
    pv_row_groups g;
    pv_row_groups_init(&g, 1, 2, &descending);
    char buf_b1[] = "b", buf_b2[] = "b";    /* one text at two addresses */
    char reused[] = "a";
    struct { pv_value key; int64_t value; } rows[] = {
        { text(buf_b1), 1 }, { integer(7), 1 }, { null(), 5 }, { text(reused), 2 },
        { text(buf_b2), 1 }, { text("ab"), 1 }, { integer(-3), 1 }, { text(buf_b1), 3 },
        { null(), 5 },
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pv_value cells[2] = { rows[i].key, integer(rows[i].value) };
        failed |= pv_row_groups_add(&g, cells, (int64_t)i);
    }
    /* the address of "a" now holds another text: not taken for "a" */
    reused[0] = 'c';
    pv_value cells[2] = { text(reused), integer(4) };
    failed |= pv_row_groups_add(&g, cells, 9);
    failed |= pv_row_groups_finish(&g);
    char got[512];
    describe(&g, got, sizeof got);
    const char *want = descending
        ? "c:4*1@9 b:1*2@0 b:3*1@7 ab:1*1@5 a:2*1@3 7:1*1@1 -3:1*1@6 NULL:5*2@2"
        : "NULL:5*2@2 -3:1*1@6 7:1*1@1 a:2*1@3 ab:1*1@5 b:1*2@0 b:3*1@7 c:4*1@9";
    check(!failed && strcmp(got, want) == 0,
          descending ? "row groups: sorted descending, a group's rows together, equal rows counted"
                     : "row groups: sorted as SQL sorts (NULL, integers, text by bytes), equal rows counted",
          "got '%s', want '%s'", got, want);
    check(g.rows == 10 && g.nr_groups == 7, "row groups: rows and groups counted",
          "%llu rows, %zu groups", (unsigned long long)g.rows, g.nr_groups);
    pv_row_groups_free(&g);
}

static void refusal_tests(void)
{
    pv_row_groups g;
    pv_row_groups_init(&g, 1, 1, NULL);
    pv_value real = { PV_VALUE_REAL, 0, 1.5, NULL, 0 };
    int rc = pv_row_groups_add(&g, &real, 0);
    check(rc == -1, "row groups: a real is refused (only NULL, integers and text are kept)", "rc %d", rc);
    rc = pv_row_groups_finish(&g);
    check(rc == 0 && g.nr_entries == 0, "row groups: no rows, no entries", "rc %d, %zu", rc, g.nr_entries);
    pv_row_groups_free(&g);
}

int main(void)
{
    grouping_tests(false);
    grouping_tests(true);
    refusal_tests();
    return failures ? 1 : 0;
}
