/*
 * PvRecordRows: the rows of a table that are records of the file, read by
 * a scan (scan/record_scan.h) or, for an equality on the ordinal, looked up
 * (scan/record_lookup.h, copying the record an outer scan of the same file
 * posts on its board, scan/record_board.h).  The tables of records use
 * these as their first/next/reset (vtab_common.h).
 */
#include "vtab_common.h"

#include "file_cache.h"

/* The scan's post goes from the board, and it posts no more. */
static void stop_posting(PvRecordRows *rows)
{
    if (rows->board)
        pv_record_board_withdraw(rows->board, rows);
    rows->board = NULL;
}

int pv_record_rows_start(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    stop_posting(rows);
    if (cur->by_ordinal) {
        if (!rows->lookup_started) {
            rows->lookup_started = true;
            if (pv_record_lookup_start(&rows->lookup, cur->file, &rows->filter, cur->def->wants,
                                       err))
                return -1;
        }
        rows->ordinal_pending = !cur->ordinal_none;
        return 0;
    }
    if (pv_ordered_scan_start(&rows->scan, cur->file, &rows->filter, cur->def->wants, cur->order,
                              err))
        return -1;
    if (cur->watch_rounds)
        pv_ordered_scan_watch_rounds(&rows->scan);
    if (pv_record_board_get(cur->file, &rows->board, err))
        return -1;
    return 0;
}

int pv_record_rows_next(PvCursor *cur, pv_error *err)
{
    PvRecordRows *rows = cur->state;
    int rc;
    if (cur->by_ordinal) {
        /* the one record asked for, then the end */
        rc = 0;
        if (rows->ordinal_pending) {
            rows->ordinal_pending = false;
            rc = pv_record_lookup_find(&rows->lookup, cur->ordinal, &rows->record, err);
        }
    } else {
        rc = pv_ordered_scan_next(&rows->scan, &rows->record, err);
    }
    if (rc <= 0) {
        stop_posting(rows);
        cur->eof = rc == 0;
        if (pv_ordered_scan_rounds_broken(&rows->scan))
            cur->rounds_broken = true;
        return rc;
    }
    if (rows->board)
        pv_record_board_post(rows->board, rows, &rows->record);
    cur->rowid = (sqlite3_int64)rows->record.index;
    return cur->def->decode ? cur->def->decode(cur, err) : 0;
}

int pv_record_rows_first(PvCursor *cur, pv_error *err)
{
    if (pv_record_rows_start(cur, err))
        return -1;
    return pv_record_rows_next(cur, err);
}

void pv_record_rows_reset(PvCursor *cur)
{
    PvRecordRows *rows = cur->state;
    stop_posting(rows);
    pv_ordered_scan_end(&rows->scan);
    if (rows->lookup_started)
        pv_record_lookup_end(&rows->lookup);
    rows->lookup_started = false;
    pv_record_filter_free(&rows->filter);
}
