/*
 * What the SQLite layer's shared module (vtab_common.c) and its planner
 * (vtab_plan.c) both know of a table: its connection-level state and the
 * meaning of the plan's idxNum bits.  Internal to ext/.
 */
#ifndef PV_VTAB_TAB_H
#define PV_VTAB_TAB_H

#include "vtab_common.h"

/* Constraints the reader tests itself, in the order of their idxNum bits
 * (see pv_vtab_best_index). */
enum {
    PUSH_TIME_MIN, PUSH_TIME_MAX, PUSH_TIME_EQ, PUSH_PID, PUSH_TID, PUSH_CPU, PUSH_EVENT,
    PUSH_KINDS
};

typedef struct PvTab {
    sqlite3_vtab base;      /* must be first */
    const PvTableDef *def;
    PvCache *cache;
    /* the connection: reads a JSON list of paths (path_args.h), asks for
     * its interrupt (stop_probe.h) */
    sqlite3 *db;
    int path_column;        /* index of the hidden path column */
    char *default_path;     /* from CREATE VIRTUAL TABLE ... USING m('path') */
    /* columns named time, pid, tid, cpu, event when pushed down, else -1 */
    int time_column, pid_column, tid_column, cpu_column, event_column;
    /* Rows are records in a scan (PvRecordRows), whose order can be
     * chosen; with time in order_time_column (-1: none, or rows without a
     * time among them) and the record's ordinal in record_column (-1: none). */
    bool ordered_rows;
    int order_time_column, record_column;
    /* The column whose equality is a lookup by ordinal (-1: none). */
    int ordinal_column;
    /* The cursor that looked up an ordinal last (see take_lookup), kept
     * after its close while another cursor still reads its file. */
    struct PvCursor *keeper;
    bool keeper_closed;
} PvTab;

/*
 * idxNum bit 0: the path comes from an equality constraint (argv[0]).
 * Then, each with the next argv value in bit order, constraints the reader
 * tests before a row reaches SQLite (record_filter.h); SQLite checks them
 * again (omit = 0), so the reader may let through more than asked for:
 *   bit 1  time >= or > value   (a lower bound; with a time index, only the
 *   bit 2  time <= or < value    chunks that meet the range are read)
 *   bit 3  time = value
 *   bit 4  pid = value     bit 5  tid = value     bit 6  cpu = value
 *   bit 7  event = value (an event name)
 * Then the order rows come in (time_order.h), when SQLite need not sort:
 *   bit 8  ORDER BY time (then record): strictly by time
 *   bit 9  ORDER BY record (or rowid): file order; also when SQLite
 *          sorts or groups the rows itself, so that they cost no ordering
 *   neither: perf's time order, the default
 *   bit 10 the order is SQLite's ORDER BY (orderByConsumed)
 *   bit 11 record = value (perf_callchains: sample = value), the next
 *          argv: the one record is looked up (record_lookup.h), not
 *          scanned for, and SQLite does not test the equality again
 *          (omit).  Such a plan pushes nothing else down: SQLite
 *          tests the rest on the record's rows, and a join or correlated
 *          subquery asking for one ordinal after another keeps its lookup
 *          (see pvFilter).
 *   bit 12 a grouped scan: the query's GROUP BY or DISTINCT only needs
 *          the rows of a group together (sqlite3_vtab_distinct() 1 or 2);
 *          xFilter reads them all into groups (render/row_groups.h) and
 *          hands them out sorted by the keys, so SQLite's sorter never
 *          sees a row.  With rows equal in every column read stored
 *          once, what is held grows with the distinct rows.
 * idxStr: hex of colUsed, so the cursor decodes only the columns read;
 * for a grouped scan, then ":" and the key columns, each in hex and
 * followed by "+" (ascending) or "-" (descending).
 */
enum {
    IDX_ORDER_TIME = 1 << 8, IDX_ORDER_FILE = 1 << 9, IDX_ORDER_CONSUMED = 1 << 10,
    IDX_ORDINAL = 1 << 11, IDX_GROUPED = 1 << 12,
};

/* xBestIndex of every table (vtab_plan.c). */
int pv_vtab_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info);

#endif
