/*
 * PvRecordRows: the rows of a table that are records of the file, handed
 * out by the reader's record iterator (scan/record_iter.h), scanned in the
 * cursor's order or, for an equality on the ordinal, looked up.  The
 * tables of records use these as their first/next/reset (vtab_common.h).
 */
#include "vtab_common.h"

int pv_record_rows_filter(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    return pv_record_iter_filter(&rows->iter, cur->file, &cur->wanted, cur->event_name, err);
}

int pv_record_rows_start(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    if (cur->by_ordinal)
        return pv_record_iter_look_up(&rows->iter, cur->file, cur->def->wants, cur->ordinal_none,
                                      cur->ordinal, err);
    return pv_record_iter_scan(&rows->iter, cur->file, cur->def->wants, cur->order,
                               cur->watch_rounds, err);
}

/* The row after the record the iterator gave (rc), or the end. */
static int rows_took(PvCursor *cur, int rc, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    if (rc <= 0) {
        cur->eof = rc == 0;
        if (pv_record_iter_rounds_broken(&rows->iter))
            cur->rounds_broken = true;
        return rc;
    }
    cur->rowid = (sqlite3_int64)rows->record.index;
    return cur->def->decode ? cur->def->decode(cur, err) : 0;
}

static __attribute__((noinline)) int rows_next_slow(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    return rows_took(cur, pv_record_iter_next(&rows->iter, &rows->record, err), err);
}

int pv_record_rows_next(PvCursor *cur, pv_error *err)
{
    /* the common row apart, so that it saves no registers and makes no
     * call but the table's decode (a tail call) */
    if (pv_record_rows_take_pinned(cur))
        return cur->def->decode ? cur->def->decode(cur, err) : 0;
    return rows_next_slow(cur, err);
}

int pv_record_rows_first(PvCursor *cur, pv_error *err)
{
    if (pv_record_rows_start(cur, err))
        return -1;
    return pv_record_rows_next(cur, err);
}

void pv_record_rows_reset(PvCursor *cur)
{
    pv_record_iter_end(&((PvRecordRows *)cur->state)->iter);
}
