/*
 * Values and errors handed to SQLite (vtab_results.c): what every table and
 * SQL function of ext/ results with, so that the rule on which memory may go
 * uncopied is kept in one place.
 */
#ifndef PV_VTAB_RESULTS_H
#define PV_VTAB_RESULTS_H

#include <sqlite3ext.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "base/pv_strbuf.h"
#include "decode/sample.h"
#include "render/hash_groups.h"

SQLITE_EXTENSION_INIT3

/* Results for u64 file values: the same 64 bits as a signed INTEGER. */
static inline void pv_result_u64(sqlite3_context *ctx, uint64_t v)
{
    sqlite3_result_int64(ctx, (sqlite3_int64)v);
}

/* A value from a table's value callback or a grouped scan as the result:
 * NULL, an integer, or text that is a C string (copied). */
void pv_result_value(sqlite3_context *ctx, const pv_value *v);
/* The text built in b as the result (copied), or out of memory if building
 * it failed. */
void pv_result_strbuf(sqlite3_context *ctx, pv_strbuf *b);
/* A name with static storage duration: a string literal or an entry of a
 * static const table (pv_cpumode_name, pv_record_type_name,
 * pv_feature_name).  Only such text may go to SQLite uncopied; anything a
 * cursor, a symbolizer, a profile or a file's state owns goes with
 * SQLITE_TRANSIENT, since min()/max(), sorters and subqueries keep values
 * after the cursor moves on or the file is closed. */
void pv_result_static_name(sqlite3_context *ctx, const char *literal);
/* A text or blob from the file's bytes (copied). */
void pv_result_file_text(sqlite3_context *ctx, const char *s, uint64_t n);
void pv_result_file_blob(sqlite3_context *ctx, const void *p, uint64_t n);
/* Reports a reader error from xColumn. */
int pv_result_error(sqlite3_context *ctx, const pv_error *err);
/* The SQLite result code of err: SQLITE_NOMEM, SQLITE_INTERRUPT or SQLITE_ERROR. */
int pv_error_code(const pv_error *err);

/* A field of a record's sample_id trailer as the result: NULL where the
 * record's event did not record it (no sample_id_all, or the bit not in its
 * sample_type), as perf script prints nothing for it. */
typedef enum { PV_TRAILER_TIME, PV_TRAILER_PID, PV_TRAILER_TID, PV_TRAILER_CPU } pv_trailer_field;
void pv_result_trailer(sqlite3_context *ctx, const pv_sample_id *t, pv_trailer_field field);

#endif
