/*
 * What every perfvtab table shares: the hidden `path` argument, the
 * per-connection cache of opened files (file_cache.h), the cursor, the
 * rows that are records (PvRecordRows), results and errors.
 *
 * A table is a PvTableDef: its columns, the callbacks that position a
 * cursor on rows and give their values, and the settings that say what the
 * planner may push down, look up, order or group.  vtab_module.c turns
 * each into a SQLite module that works both as a table-valued function and
 * with CREATE VIRTUAL TABLE (vtab_tab.h lists the files it hands each
 * concern to).
 */
#ifndef PV_VTAB_COMMON_H
#define PV_VTAB_COMMON_H

#include <sqlite3ext.h>
#include <stdbool.h>
#include <stdint.h>

#include "file_cache.h"
#include "path_args.h"
#include "format/perf_file.h"
#include "base/pv_error.h"
#include "base/pv_strbuf.h"
#include "render/row_groups.h"
#include "scan/record_filter.h"
#include "scan/record_iter.h"
#include "scan/time_order.h"
#include "stream/record_walk.h"
#include "stop_probe.h"
#include "vtab_results.h"

SQLITE_EXTENSION_INIT3

typedef struct PvTableDef PvTableDef;
typedef struct PvCursor {
    sqlite3_vtab_cursor base;   /* must be first */
    /* asks SQLite whether the statement must stop (ext/stop_probe.h);
     * stays with the cursor when pv_keeper_take swaps what follows it */
    PvStopProbe stop;
    /* The current row's column kept_column (-1: none), an integer or NULL
     * as the table gave it (pv_cursor_keep_int), answered again by xColumn
     * without the table or the call's checks: a join's inner loop reads
     * the outer row's column once per inner row.  xFilter clears it, and a
     * table that keeps values clears it when its row moves (perf_samples:
     * its decode), so that a scan of the others pays no store a row; it
     * stays with the cursor when pv_keeper_take swaps what follows. */
    int kept_column;
    bool kept_null;
    int64_t kept_value;
    /* a call failed for want of memory: what the cursor built may be short */
    bool spent;
    const PvTableDef *def;
    PvCache *cache;
    pv_file *file;
    bool eof;
    sqlite3_int64 rowid;
    uint64_t columns_used;      /* bit i: column i is read (63: any beyond) */
    /* The constraints pushed down, parsed once per xFilter and applied to
     * each file (event names resolve per file); event_name is the cursor's. */
    pv_record_filter wanted;
    char *event_name;
    /* A pattern or a list of paths (path_args.h): the files, read one
     * after another; none when the argument names one file. */
    PvPathList paths;
    size_t next_path;
    /* The order rows come in (time_order.h): perf's unless the query's
     * ORDER BY was consumed (see pv_plan_decode_args).  In file order, a
     * grouped scan may watch perf's round rule (watch_rounds), and learns
     * whether a file broke it (rounds_broken: see pv_grouped_scan). */
    pv_record_order order;
    bool watch_rounds, rounds_broken;
    /* An equality on the record's ordinal (see PvRecordRows): the one
     * record asked for, or none (ordinal_none: a NULL, negative or
     * fractional value).  ordinal_path: the file it was asked of, so that
     * the next xFilter with another ordinal goes on with the same lookup
     * (vtab_keeper.c). */
    bool by_ordinal, ordinal_none;
    uint64_t ordinal;
    int ordinal_idx_num;
    char *ordinal_path, *ordinal_idx_str;
    size_t ordinal_path_len;
    pv_strbuf text;             /* scratch for JSON/text values, reused per row */
    void *state;                /* the table's own, def->state_size bytes */
    /* A grouped scan (vtab_grouped.c): every row read in xFilter into
     * groups, then handed out group after group; entry is the current one,
     * repeat how many more times it is a row. */
    pv_row_groups *groups;
    size_t entry;
    uint64_t repeat;
    int8_t cell_of[64];         /* column -> cell of groups, -1: not read */
    /* The table's own order the rows are asked in (PvTableDef.row_orders):
     * 1 + its index, 0: none. */
    unsigned row_order;
} PvCursor;

/* The table's value of column i for the current row, an integer (not
 * null) or NULL, kept for the row's next reads of it (PvCursor.kept_column). */
static inline void pv_cursor_keep_int(PvCursor *cur, int i, bool not_null, int64_t v)
{
    cur->kept_column = i;
    cur->kept_null = !not_null;
    cur->kept_value = v;
}

/* An order a table's first() can hand its rows out in: its keys, as an
 * ORDER BY on those columns (BINARY collation, NULLs first) sorts them.  A
 * query whose ORDER BY is the first min_keys or more of them, each in the
 * same direction, has it consumed (vtab_plan.c); so has one whose ORDER BY
 * follows leading keys that the query pins to one value (column = value). */
enum { PV_ROW_ORDER_MAX_KEYS = 8 };
typedef struct PvRowOrder {
    unsigned nr_keys, min_keys;
    struct {
        int column;
        bool desc;
    } keys[PV_ROW_ORDER_MAX_KEYS];
} PvRowOrder;

struct PvTableDef {
    const char *name;
    /* Column declarations, without the hidden path column. */
    const char *columns;
    size_t state_size;
    /* The bytes of the state that start zeroed (0: all): scratch buffers
     * after them are not cleared, since a correlated subquery opens a
     * cursor for each outer row. */
    size_t state_zeroed;
    /* Positions on the first row (or sets eof).  0 or -1 with err set. */
    int (*first)(PvCursor *cur, pv_error *err);
    int (*next)(PvCursor *cur, pv_error *err);
    /* Results column i of the current row. */
    int (*column)(PvCursor *cur, sqlite3_context *ctx, int i);
    /* Optional: xNext and xColumn themselves, for a table whose common
     * row and column take neither the file nor memory (a record the scan
     * holds, a value the row already read): they answer those, spared
     * the checks of a call that can read or allocate, and hand every
     * other call to pv_vtab_next_checked or pv_vtab_column_checked (a tail
     * call: nothing saved on the common path).  Never asked during a
     * grouped scan; row_column is asked of every column, the path's too. */
    int (*row_next)(PvCursor *cur);
    int (*row_column)(PvCursor *cur, sqlite3_context *ctx, int i);
    /* Frees what first/next allocated in state (may be NULL). */
    void (*reset)(PvCursor *cur);
    /* For tables of records (see PvRecordRows): which record types are
     * rows (NULL: all), and what to decode when the cursor lands on one. */
    bool (*wants)(uint32_t type);
    int (*decode)(PvCursor *cur, pv_error *err);
    /* Which constraints the reader may test itself (PV_PUSHDOWN_*): only
     * when the table's columns of those names hold the record's identity
     * as record_filter.h reads it. */
    unsigned pushdown;
    /* For tables of records (PvRecordRows): the column that holds the
     * record's ordinal ("record"; "sample" in perf_callchains), whose
     * equality is answered by looking the record up (record_lookup.h)
     * instead of scanning; rows_per_ordinal_many when a record gives
     * several rows.  NULL: no such lookup. */
    const char *ordinal_column;
    bool rows_per_ordinal_many;
    /* Grouped scans: the columns (bit i: column i) whose value value()
     * gives, as the column callback would result it.  Text is a C string
     * the table owns until the next row.  0 or -1 with err set. */
    uint64_t groupable;
    /* Of those, the columns that differ from row to row (record, time):
     * a query that reads one is left to SQLite, since the groups would
     * then hold a copy of every row (SQLite's sorter spills to disk). */
    uint64_t row_unique;
    int (*value)(PvCursor *cur, int i, pv_value *out, pv_error *err);
    /* Columns whose values come from records replayed before the row (the
     * maps and comms a sample's symbols and thread name are read from),
     * ~0 when the rows themselves do (perf_callchains: frames unwound and
     * expanded through the maps).  The symbolizer replays them as far as
     * perf had when it handed the row out, which a file that breaks perf's
     * round rule makes depend on the order rows are asked in: a query that
     * reads them has its rows scanned in perf's order (PV_ORDER_PERF),
     * whatever its ORDER BY or GROUP BY (vtab_plan.c). */
    uint64_t replayed_columns;
    /* The orders first() can sort the rows in (PvCursor.row_order says
     * which is asked for); at most 7. */
    const PvRowOrder *row_orders;
    unsigned nr_row_orders;
};

/* Whether a query reading columns (bit i: column i) reads values replayed
 * in perf's order (PvTableDef.replayed_columns). */
static inline bool pv_reads_replayed(const PvTableDef *def, uint64_t columns)
{
    return def->replayed_columns == ~(uint64_t)0 || (columns & def->replayed_columns);
}

/*
 * A table's columns are listed once, as an X-macro, so that the enum the
 * column callback switches on and the declaration SQLite reads cannot drift:
 *
 *   #define COMMS_COLUMNS(X) X(RECORD, record, INTEGER) X(COMM, comm, TEXT) ...
 *   enum { COMMS_COLUMNS(PV_COLUMN_ENUM) };          COL_RECORD, COL_COMM, ...
 *   .columns = PV_COLUMNS_DECL(COMMS_COLUMNS),       "record INTEGER, comm TEXT, ..."
 *
 * A name that is an SQL keyword is written quoted, X(TRANSACTION,
 * "transaction", INTEGER), and is declared so.  The type is one of the
 * PV_SQL_TYPE_ names below (a typo does not compile); NONE declares the
 * column without a type.
 */
#define PV_SQL_TYPE_INTEGER " INTEGER"
#define PV_SQL_TYPE_TEXT " TEXT"
#define PV_SQL_TYPE_BLOB " BLOB"
#define PV_SQL_TYPE_REAL " REAL"
#define PV_SQL_TYPE_NONE ""
#define PV_COLUMN_ENUM(NAME, name, type) COL_##NAME,
#define PV_COLUMN_DECL(NAME, name, type) ", " #name PV_SQL_TYPE_##type
/* The declarations joined, past the ", " before the first. */
#define PV_COLUMNS_DECL(LIST) (&(LIST(PV_COLUMN_DECL))[2])

enum {
    PV_PUSHDOWN_TIME = 1,       /* column time: the sample's or trailer's time */
    PV_PUSHDOWN_IDENTITY = 2,   /* pid, tid, cpu, event: the sample's or trailer's */
    /* event alone, for a table not of records: its first() reads the name
     * (PvCursor.event_name), SQLite tests the equality again */
    PV_PUSHDOWN_EVENT_NAME = 4,
};

/* Tables whose rows are the records of some types begin their state with a
 * PvRecordRows and use pv_record_rows_* as first/next/reset: the reader's
 * record iterator (scan/record_iter.h: the scan in the cursor's order, or
 * the lookup of the ordinal asked for) and the rowid (the record's
 * ordinal) are done once, here (ext/record_rows.c). */
typedef struct PvRecordRows {
    pv_record_iter iter;
    pv_record record;           /* the row's record, as the iterator handed it out */
} PvRecordRows;

/* The cursor's constraints (PvCursor.wanted) for the iterator, with its
 * event resolved for the cursor's file. */
int pv_record_rows_filter(PvCursor *cur, pv_error *err);
/* Starts the scan, or the lookup of the ordinal asked for, without moving
 * to a row (for a first() of its own). */
int pv_record_rows_start(PvCursor *cur, pv_error *err);
int pv_record_rows_first(PvCursor *cur, pv_error *err);
int pv_record_rows_next(PvCursor *cur, pv_error *err);
/* pv_record_rows_next's common row, for a row_next: true when the
 * cursor is on the next record, one pinned in the walk's buffer, its
 * decode left to the caller; false when next answers. */
static inline bool pv_record_rows_take_pinned(PvCursor *cur)
{
    PvRecordRows *rows = cur->state;
    if (!pv_record_iter_take_pinned(&rows->iter, &rows->record))
        return false;
    cur->rowid = (sqlite3_int64)rows->record.index;
    return true;
}
void pv_record_rows_reset(PvCursor *cur);

static inline bool pv_column_used(const PvCursor *cur, int i)
{
    return (cur->columns_used >> (i < 63 ? i : 63)) & 1;
}

/* Text of the scratch buffer as the result (copied), or an error. */
static inline void pv_result_text_buffer(PvCursor *cur, sqlite3_context *ctx)
{
    pv_result_strbuf(ctx, &cur->text);
}

/* xNext and xColumn as the module makes them, the checks included
 * (vtab_module.c): what a table's row_next and row_column hand on. */
int pv_vtab_next_checked(PvCursor *cur);
int pv_vtab_column_checked(PvCursor *cur, sqlite3_context *ctx, int i);

/* Each registered module takes its own reference to the cache. */
int pv_register_table(sqlite3 *db, const PvTableDef *def, PvCache *cache);

#endif
