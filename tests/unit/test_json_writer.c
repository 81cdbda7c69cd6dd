/*
 * Unit tests of src/base/json_writer.c: each case writes a document and compares
 * the exact text; every well-formed result is also checked with SQLite's
 * json_valid, and every misuse must leave the buffer failed (text "").
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "base/json_writer.h"
#include "unit_check.h"

static sqlite3 *db;

static bool json_valid(const char *text)
{
    sqlite3_stmt *stmt;
    bool valid = false;
    if (sqlite3_prepare_v2(db, "SELECT json_valid(?1)", -1, &stmt, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    if (sqlite3_step(stmt) == SQLITE_ROW)
        valid = sqlite3_column_int(stmt, 0) == 1;
    sqlite3_finalize(stmt);
    return valid;
}

/* The writer's text equals want, parses, and is one complete value. */
static void check_text(const char *what, pv_json_writer *w, const char *want)
{
    const char *got = pv_strbuf_text(w->out);
    check(strcmp(got, want) == 0, what, "got [%s], want [%s]", got, want);
    char name[160];
    snprintf(name, sizeof name, "%s: complete", what);
    check(pv_json_complete(w), name, "depth %u, key pending %d, failed %d", w->depth,
          w->key_pending, w->out->failed);
    snprintf(name, sizeof name, "%s: json_valid", what);
    check(json_valid(got), name, "[%s] does not parse", got);
}

/* A misuse marks the buffer failed. */
static void check_misuse(const char *what, pv_json_writer *w)
{
    check(w->out->failed && strcmp(pv_strbuf_text(w->out), "") == 0 && !pv_json_complete(w),
          what, "the buffer is not failed: [%s]", w->out->text ? w->out->text : "");
}

static void test_scalars(void)
{
    pv_strbuf b = {0};
    pv_json_writer w;
    pv_json_init(&w, &b);
    pv_json_u64(&w, 0);
    check_text("u64 0", &w, "0");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_u64(&w, UINT64_MAX);
    check_text("u64 max", &w, "18446744073709551615");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_i64(&w, INT64_MIN);
    check_text("i64 min", &w, "-9223372036854775808");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_i64(&w, (int64_t)UINT64_C(0xffffffff81000000));
    check_text("i64 of a kernel address", &w, "-2130706432");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_i64(&w, 42);
    check_text("i64 positive", &w, "42");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_double(&w, 3.0);
    check_text("double integral", &w, "3");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_double(&w, 0.1);
    check_text("double 0.1 at 15 digits", &w, "0.1");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_double(&w, 0.1 + 0.2);
    check_text("double at 17 digits when 15 do not read back", &w, "0.30000000000000004");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_double(&w, -1e300);
    check_text("double with an exponent", &w, "-1e+300");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_double(&w, INFINITY);
    check_text("double infinity is null", &w, "null");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_double(&w, NAN);
    check_text("double NaN is null", &w, "null");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_real(&w, 3.0);
    check_text("real integral gets .0", &w, "3.0");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_real(&w, 0.1);
    check_text("real 0.1 at 17 digits", &w, "0.10000000000000001");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_real(&w, -1e300);
    check_text("real with an exponent", &w, "-1.0000000000000001e+300");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_real(&w, -INFINITY);
    check_text("real infinity is null", &w, "null");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_bool(&w, true);
    check_text("bool true", &w, "true");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_null(&w);
    check_text("null", &w, "null");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_cstring(&w, NULL);
    check_text("cstring NULL is null", &w, "null");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    static const uint8_t bytes[] = {0x00, 0x1f, 0xab, 0xff};
    pv_json_hex(&w, bytes, sizeof bytes);
    check_text("hex", &w, "\"001fabff\"");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_hex(&w, NULL, 0);
    check_text("hex of nothing", &w, "\"\"");
    pv_strbuf_free(&b);
}

static void test_escaping(void)
{
    pv_strbuf b = {0};
    pv_json_writer w;

    pv_json_init(&w, &b);
    static const char quoted[] = "a\"b\\c/d\n\t\x01\x7f";
    pv_json_string(&w, quoted, sizeof quoted - 1);
    check_text("string escapes quote, backslash and control bytes", &w,
               "\"a\\\"b\\\\c/d\\u000a\\u0009\\u0001\\u007f\"");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    static const char utf8[] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5";
    pv_json_string(&w, utf8, sizeof utf8 - 1);
    check_text("string keeps valid UTF-8", &w, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    /* a lone continuation byte, an overlong '/', a surrogate, a cut sequence */
    static const char bad[] = "\x80x\xc0\xaf\xed\xa0\x80\xe2\x82";
    pv_json_string(&w, bad, sizeof bad - 1);
    check_text("string writes invalid UTF-8 as \\u00XX", &w,
               "\"\\u0080x\\u00c0\\u00af\\u00ed\\u00a0\\u0080\\u00e2\\u0082\"");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    static const char nul_inside[] = {'a', 0, 'b'};
    pv_json_string(&w, nul_inside, sizeof nul_inside);
    check_text("string of explicit length holds a NUL", &w, "\"a\\u0000b\"");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_object_begin(&w);
    pv_json_key_len(&w, "k\"ey", 4);
    pv_json_string(&w, "", 0);
    pv_json_key(&w, "\xff");
    pv_json_u64(&w, 1);
    pv_json_object_end(&w);
    check_text("keys are escaped like strings", &w, "{\"k\\\"ey\":\"\",\"\\u00ff\":1}");
    pv_strbuf_free(&b);
}

static void test_nesting(void)
{
    pv_strbuf b = {0};
    pv_json_writer w;

    pv_json_init(&w, &b);
    pv_json_object_begin(&w);
    pv_json_object_end(&w);
    check_text("empty object", &w, "{}");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_array_begin(&w);
    pv_json_array_end(&w);
    check_text("empty array", &w, "[]");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_array_begin(&w);
    pv_json_array_begin(&w);
    pv_json_array_end(&w);
    pv_json_object_begin(&w);
    pv_json_object_end(&w);
    pv_json_array_begin(&w);
    pv_json_u64(&w, 1);
    pv_json_array_end(&w);
    pv_json_array_end(&w);
    check_text("empty containers as elements", &w, "[[],{},[1]]");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_object_begin(&w);
    pv_json_key(&w, "name");
    pv_json_cstring(&w, "cycles");
    pv_json_key(&w, "ids");
    pv_json_array_begin(&w);
    pv_json_i64(&w, -1);
    pv_json_u64(&w, 7);
    pv_json_array_end(&w);
    pv_json_key(&w, "cpus");
    pv_json_array_begin(&w);
    pv_json_object_begin(&w);
    pv_json_key(&w, "core_id");
    pv_json_i64(&w, 0);
    pv_json_key(&w, "online");
    pv_json_bool(&w, false);
    pv_json_object_end(&w);
    pv_json_object_begin(&w);
    pv_json_key(&w, "core_id");
    pv_json_i64(&w, 1);
    pv_json_key(&w, "tag");
    pv_json_null(&w);
    pv_json_object_end(&w);
    pv_json_array_end(&w);
    pv_json_key(&w, "empty");
    pv_json_object_begin(&w);
    pv_json_object_end(&w);
    pv_json_key(&w, "last");
    pv_json_double(&w, 0.5);
    pv_json_object_end(&w);
    check_text("nested objects and arrays", &w,
               "{\"name\":\"cycles\",\"ids\":[-1,7],\"cpus\":[{\"core_id\":0,\"online\":false},"
               "{\"core_id\":1,\"tag\":null}],\"empty\":{},\"last\":0.5}");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_array_begin(&w);
    for (int i = 0; i < PV_JSON_MAX_DEPTH - 1; i++)
        pv_json_array_begin(&w);
    for (int i = 0; i < PV_JSON_MAX_DEPTH; i++)
        pv_json_array_end(&w);
    char want[2 * PV_JSON_MAX_DEPTH + 1];
    memset(want, '[', PV_JSON_MAX_DEPTH);
    memset(want + PV_JSON_MAX_DEPTH, ']', PV_JSON_MAX_DEPTH);
    want[2 * PV_JSON_MAX_DEPTH] = 0;
    check_text("nesting PV_JSON_MAX_DEPTH deep", &w, want);
    pv_strbuf_free(&b);
}

static void test_raw(void)
{
    pv_strbuf b = {0};
    pv_json_writer w;

    pv_json_init(&w, &b);
    pv_json_array_begin(&w);
    pv_json_raw(&w, "{\"a\":1}", 7);
    pv_strbuf *out = pv_json_raw_begin(&w);
    pv_strbuf_puts(out, "\"IP|TID\"");
    pv_json_u64(&w, 2);
    pv_json_array_end(&w);
    check_text("raw values take their commas", &w, "[{\"a\":1},\"IP|TID\",2]");

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_object_begin(&w);
    pv_json_key(&w, "attr");
    pv_json_raw(&w, "{}", 2);
    pv_json_key(&w, "s");
    pv_strbuf_puts(pv_json_raw_begin(&w), "\"x\"");
    pv_json_object_end(&w);
    check_text("raw values after keys", &w, "{\"attr\":{},\"s\":\"x\"}");

    /* The writer appends to what the buffer holds. */
    pv_strbuf_reset(&b);
    pv_strbuf_puts(&b, "[1,");
    pv_json_init(&w, &b);
    pv_json_array_begin(&w);
    pv_json_array_end(&w);
    pv_strbuf_puts(&b, "]");
    const char *got = pv_strbuf_text(&b);
    check(strcmp(got, "[1,[]]") == 0 && pv_json_complete(&w), "appends after existing text",
          "got [%s]", got);
    pv_strbuf_free(&b);
}

static void test_misuse(void)
{
    pv_strbuf b = {0};
    pv_json_writer w;

    pv_json_init(&w, &b);
    pv_json_object_begin(&w);
    pv_json_u64(&w, 1);
    pv_json_object_end(&w);
    check_misuse("misuse: a value in an object without its key", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_array_begin(&w);
    pv_json_key(&w, "k");
    pv_json_u64(&w, 1);
    pv_json_array_end(&w);
    check_misuse("misuse: a key in an array", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_key(&w, "k");
    check_misuse("misuse: a key at the top level", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_object_begin(&w);
    pv_json_key(&w, "k");
    pv_json_key(&w, "l");
    check_misuse("misuse: two keys in a row", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_object_begin(&w);
    pv_json_key(&w, "k");
    pv_json_object_end(&w);
    check_misuse("misuse: a key without its value", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_array_begin(&w);
    pv_json_object_end(&w);
    check_misuse("misuse: an array closed as an object", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_array_end(&w);
    check_misuse("misuse: a close with nothing open", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_u64(&w, 1);
    pv_json_u64(&w, 2);
    check_misuse("misuse: two values at the top level", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    for (int i = 0; i <= PV_JSON_MAX_DEPTH; i++)
        pv_json_array_begin(&w);
    check_misuse("misuse: nesting deeper than PV_JSON_MAX_DEPTH", &w);

    pv_strbuf_reset(&b);
    pv_json_init(&w, &b);
    pv_json_array_begin(&w);
    check(!pv_json_complete(&w) && !b.failed, "an open array is not complete but not failed",
          "complete %d, failed %d", pv_json_complete(&w), b.failed);
    pv_strbuf_free(&b);
}

int main(void)
{
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        printf("not ok - sqlite3_open\n");
        return 1;
    }
    test_scalars();
    test_escaping();
    test_nesting();
    test_raw();
    test_misuse();
    sqlite3_close(db);
    return failures != 0;
}
