/*
 * Values handed to SQLite by every table: copied (SQLITE_TRANSIENT) unless
 * they are names with static storage duration; see vtab_results.h.
 */
#include "vtab_results.h"

#include <string.h>


void pv_result_strbuf(sqlite3_context *ctx, pv_strbuf *b)
{
    if (b->failed) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_text64(ctx, pv_strbuf_text(b), b->len, SQLITE_TRANSIENT, SQLITE_UTF8);
}

void pv_result_value(sqlite3_context *ctx, const pv_value *v)
{
    if (v->type == PV_VALUE_INT)
        sqlite3_result_int64(ctx, v->i);
    else if (v->type == PV_VALUE_TEXT)
        /* -1: the copy ends in a NUL, so reading it as text copies no more */
        sqlite3_result_text(ctx, v->bytes, -1, SQLITE_TRANSIENT);
}

void pv_result_static_name(sqlite3_context *ctx, const char *literal)
{
    /* Static storage outlives every statement: see vtab_results.h. */
    sqlite3_result_text(ctx, literal, -1, SQLITE_STATIC);
}

/* Copied: the record's bytes live in the walk's window, which moves on at
 * the next row, while SQLite may keep a value longer (min(), a sorter). */
void pv_result_file_text(sqlite3_context *ctx, const char *s, uint64_t n)
{
    sqlite3_result_text64(ctx, s, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

void pv_result_file_blob(sqlite3_context *ctx, const void *p, uint64_t n)
{
    sqlite3_result_blob64(ctx, p ? p : "", n, SQLITE_TRANSIENT);
}

int pv_error_code(const pv_error *err)
{
    switch (err->kind) {
    case PV_ERROR_NOMEM:
        return SQLITE_NOMEM;
    case PV_ERROR_STOPPED:
        return SQLITE_INTERRUPT;
    default:
        return SQLITE_ERROR;
    }
}

int pv_result_error(sqlite3_context *ctx, const pv_error *err)
{
    sqlite3_result_error(ctx, err->msg, -1);
    int code = pv_error_code(err);
    if (code != SQLITE_ERROR)
        sqlite3_result_error_code(ctx, code);
    return code;
}

void pv_result_trailer(sqlite3_context *ctx, const pv_sample_id *t, pv_trailer_field field)
{
    switch (field) {
    case PV_TRAILER_TIME:
        if (t->fields & PV_SAMPLE_TIME)
            pv_result_u64(ctx, t->time);
        break;
    case PV_TRAILER_PID:
        if (t->fields & PV_SAMPLE_TID)
            sqlite3_result_int(ctx, (int32_t)t->pid);
        break;
    case PV_TRAILER_TID:
        if (t->fields & PV_SAMPLE_TID)
            sqlite3_result_int(ctx, (int32_t)t->tid);
        break;
    case PV_TRAILER_CPU:
        if (t->fields & PV_SAMPLE_CPU)
            pv_result_u64(ctx, t->cpu);
        break;
    }
}
