#include "scan/record_iter.h"

/* The scan's post goes from the board, and it posts no more. */
static void stop_posting(pv_record_iter *it)
{
    if (it->board)
        pv_record_board_withdraw(it->board, it);
    it->board = NULL;
}

int pv_record_iter_filter(pv_record_iter *it, pv_file *file, const pv_record_filter *wanted,
                          const char *event_name, pv_error *err)
{
    it->filter = *wanted;
    it->filter.event_matches = NULL;
    if (event_name && pv_record_filter_set_event(&it->filter, file, event_name, err))
        return -1;
    return 0;
}

int pv_record_iter_scan(pv_record_iter *it, pv_file *file, pv_record_type_test wants,
                        pv_record_order order, bool watch_rounds, pv_error *err)
{
    stop_posting(it);
    it->looking_up = false;
    if (pv_ordered_scan_start(&it->scan, file, &it->filter, wants, order, err))
        return -1;
    if (watch_rounds)
        pv_ordered_scan_watch_rounds(&it->scan);
    if (pv_record_board_get(file, &it->board, err))
        return -1;
    return 0;
}

int pv_record_iter_look_up(pv_record_iter *it, pv_file *file, pv_record_type_test wants,
                           bool none, uint64_t ordinal, pv_error *err)
{
    stop_posting(it);
    it->looking_up = true;
    if (!it->lookup_started) {
        it->lookup_started = true;
        if (pv_record_lookup_start(&it->lookup, file, &it->filter, wants, err))
            return -1;
    }
    it->ordinal_pending = !none;
    it->ordinal = ordinal;
    return 0;
}

int pv_record_iter_scanned(pv_record_iter *it, const pv_record *rec, int rc)
{
    if (rc <= 0) {
        stop_posting(it);
        return rc;
    }
    /* a scan posts only while a lookup reads the board */
    if (it->board && it->board->readers)
        pv_record_board_post(it->board, it, rec);
    return 1;
}

int pv_record_iter_next_slow(pv_record_iter *it, pv_record *rec, pv_error *err)
{
    if (!it->looking_up)
        return pv_record_iter_next(it, rec, err);
    /* the one record asked for, then the end */
    int rc = 0;
    if (it->ordinal_pending) {
        it->ordinal_pending = false;
        rc = pv_record_lookup_find(&it->lookup, it->ordinal, rec, err);
    }
    return pv_record_iter_scanned(it, rec, rc);
}

bool pv_record_iter_rounds_broken(const pv_record_iter *it)
{
    return pv_ordered_scan_rounds_broken(&it->scan);
}

void pv_record_iter_end(pv_record_iter *it)
{
    stop_posting(it);
    pv_ordered_scan_end(&it->scan);
    if (it->lookup_started)
        pv_record_lookup_end(&it->lookup);
    it->lookup_started = false;
    pv_record_filter_free(&it->filter);
}
