/*
 * What the files of the shared module know of a table and of each other;
 * internal to ext/.  The module (vtab_module.c) is SQLite's entry into a
 * table; it reads the plan (vtab_plan.c) and hands each concern to its
 * file: the path argument (vtab_args.c), the constraints pushed down
 * (vtab_constraints.c), a cursor's files and lifetime (vtab_cursor.c), the
 * cursor kept for the next lookup (vtab_keeper.c), and grouped scans
 * (vtab_grouped.c).
 */
#ifndef PV_VTAB_TAB_H
#define PV_VTAB_TAB_H

#include "render/row_groups.h"
#include "vtab_common.h"

/* Constraints the reader tests itself (record_filter.h), in the order of
 * their idxNum bits and of their arguments (see pv_plan_decode_args). */
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
    /* The cursor that looked up an ordinal last (vtab_keeper.c), kept
     * after its close while another cursor still reads its file. */
    struct PvCursor *keeper;
    bool keeper_closed;
} PvTab;

/* A key of a grouped scan: a column, and whether it sorts descending. */
typedef struct PvGroupKey {
    int column;
    bool desc;
} PvGroupKey;

/*
 * A plan: what xBestIndex chose and xFilter does.  vtab_plan.c alone turns
 * it into SQLite's idxNum, idxStr and argument order, and back (the bits
 * are documented above pv_plan_decode_args).
 */
typedef struct PvPlan {
    /* The arguments xFilter is given, in this order: the path (an
     * equality on the hidden column), the constraints pushed down (bit k:
     * kind k, PUSH_*), the ordinal of a lookup (an equality on
     * PvTab.ordinal_column). */
    bool has_path;
    unsigned pushed;
    bool by_ordinal;
    /* The order rows come in, and whether it is the query's ORDER BY. */
    pv_record_order order;
    bool order_consumed;
    /* The table's own order (PvCursor.row_order), consumed; 0: none. */
    unsigned row_order;
    /* The columns read (bit i: column i; 63: any beyond): the cursor
     * decodes only those.  ~0 when the plan does not say. */
    uint64_t columns_used;
    /* A grouped scan, and its keys in ORDER BY's order. */
    bool grouped;
    unsigned nr_keys;
    PvGroupKey keys[PV_ROW_GROUPS_MAX_CELLS];

    /* xFilter only: the argument values (NULL: not given), and the plan
     * as SQLite passed it, to tell a later xFilter of the same plan. */
    sqlite3_value *path, *pushed_value[PUSH_KINDS], *ordinal;
    int idx_num;
    const char *idx_str;
} PvPlan;

/* vtab_plan.c: xBestIndex of every table, and the plan xFilter is given. */
int pv_vtab_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info);
/* xFilter's plan: its arguments, idx_num and idx_str, then (rest) the
 * order, columns read and groups; together they set every field. */
void pv_plan_decode_args(int idxNum, const char *idxStr, int argc, sqlite3_value **argv,
                         PvPlan *plan);
void pv_plan_decode_rest(PvPlan *plan);

/* vtab_args.c: the path argument. */
/* CREATE VIRTUAL TABLE's argument without its quotes (sqlite3_malloc'd). */
char *pv_vtab_unquote(const char *arg);
/* Index of the column called name in a declaration list, or -1. */
int pv_vtab_column_index(const char *columns, const char *name);
int pv_vtab_count_columns(const char *columns);
/* The path an xFilter is given, as bytes (NULL: none) and as text. */
typedef struct PvPathArg {
    const char *bytes;
    size_t len;
} PvPathArg;
PvPathArg pv_vtab_path_arg(const PvTab *tab, const PvPlan *plan);
const char *pv_vtab_path_text(const PvTab *tab, const PvPlan *plan);

/* vtab_constraints.c: the plan's constraint values into cur->wanted and
 * the ordinal asked for; 0, or -1 with err set. */
int pv_vtab_read_constraints(PvCursor *cur, const PvPlan *plan, pv_error *err);
void pv_vtab_read_ordinal(PvCursor *cur, const PvPlan *plan);

/* vtab_cursor.c: a cursor's files and lifetime. */
int pv_vtab_start_file(PvCursor *cur, const char *path, pv_error *err);
int pv_vtab_next_file(PvCursor *cur, pv_error *err);
/* Per row and column: armed again when another cursor of the connection,
 * sharing the file, took the file's stop over (or dropped it when it
 * closed).  Inline: a pointer compared, on every call SQLite makes. */
static inline void pv_vtab_keep_stop(PvCursor *cur)
{
    if (cur->file && pv_file_stop(cur->file) != &cur->stop.stop)
        pv_file_set_stop(cur->file, &cur->stop.stop);
}
void pv_vtab_release_file(PvCursor *cur);
void pv_vtab_reset_cursor(PvCursor *cur);
void pv_vtab_free_cursor(PvCursor *cur);
/* A cursor of tab at its end, its state zeroed; NULL: out of memory. */
PvCursor *pv_vtab_new_cursor(const PvTab *tab);
/* err as the statement's error; the cursor is at its end. */
int pv_vtab_cursor_error(PvCursor *cur, const pv_error *err);

/* vtab_keeper.c: the cursor kept for the next lookup. */
bool pv_keeper_serves(const PvCursor *cur, const PvPlan *plan, PvPathArg path);
void pv_keeper_take(PvTab *tab, PvCursor *cur, const PvPlan *plan, PvPathArg path);
void pv_keeper_set(PvTab *tab, PvCursor *cur, const PvPlan *plan, const char *path);
/* On xOpen: a kept cursor whose statement ended goes. */
void pv_keeper_drop_idle(PvTab *tab);
/* On xClose: whether cur is kept instead of freed. */
bool pv_keeper_keeps(PvTab *tab, PvCursor *cur);
void pv_keeper_free(PvTab *tab);

/* vtab_grouped.c: grouped scans. */
int pv_grouped_scan(PvCursor *cur, const PvTab *tab, const PvPlan *plan, const char *path);
void pv_grouped_next(PvCursor *cur);
void pv_grouped_column(PvCursor *cur, sqlite3_context *ctx, int i);
void pv_grouped_free(PvCursor *cur);

#endif
