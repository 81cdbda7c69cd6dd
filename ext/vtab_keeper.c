/*
 * The cursor kept for the next lookup.
 *
 * SQLite opens a correlated subquery's cursor anew for each outer row (and
 * closes the last one after opening the next).  A new cursor takes over
 * the lookup, walk and symbolizer of the one that looked up an ordinal
 * last, when that one is done (at its end: a cursor in the middle of its
 * rows is some query's, still read) and its file is still read by another
 * cursor if it is closed (then its statement most likely still runs; else
 * the file may have changed since).  The two swap what they hold.
 */
#include <stddef.h>
#include <string.h>

#include "file_cache.h"
#include "vtab_tab.h"

/* Whether another cursor than cur holds cur's file: the outer query of a
 * correlated subquery is still reading it. */
static bool file_shared(const PvCursor *cur)
{
    return cur->file && pv_cache_file_users(cur->cache, cur->file) >= 2;
}

/* Whether cur's lookup serves a filter of plan over path. */
bool pv_keeper_serves(const PvCursor *cur, const PvPlan *plan, PvPathArg path)
{
    return cur->file && cur->by_ordinal && cur->paths.nr == 0 &&
           plan->idx_num == cur->ordinal_idx_num && path.bytes && cur->ordinal_path &&
           path.len == cur->ordinal_path_len &&
           memcmp(path.bytes, cur->ordinal_path, path.len) == 0 && plan->idx_str &&
           cur->ordinal_idx_str && strcmp(plan->idx_str, cur->ordinal_idx_str) == 0;
}

void pv_keeper_take(PvTab *tab, PvCursor *cur, const PvPlan *plan, PvPathArg path)
{
    PvCursor *keeper = tab->keeper;
    if (!keeper || keeper == cur || !keeper->eof || keeper->spent ||
        !pv_keeper_serves(keeper, plan, path))
        return;
    if (tab->keeper_closed && !file_shared(keeper)) {
        pv_vtab_free_cursor(keeper);
        tab->keeper = NULL;
        return;
    }
    PvCursor held = *keeper;
    size_t head = offsetof(PvCursor, spent);
    memcpy((char *)keeper + head, (char *)cur + head, sizeof *cur - head);
    memcpy((char *)cur + head, (char *)&held + head, sizeof *cur - head);
    if (tab->keeper_closed)
        pv_vtab_free_cursor(keeper);
    tab->keeper = cur;
    tab->keeper_closed = false;
}

/* cur looks up an ordinal of path: it becomes the keeper, remembering the
 * plan and path its lookup serves. */
void pv_keeper_set(PvTab *tab, PvCursor *cur, const PvPlan *plan, const char *path)
{
    if (tab->keeper && tab->keeper != cur && tab->keeper_closed)
        pv_vtab_free_cursor(tab->keeper);
    tab->keeper = cur;
    tab->keeper_closed = false;
    cur->ordinal_idx_num = plan->idx_num;
    /* NULL: no going on */
    cur->ordinal_path = sqlite3_mprintf("%s", path);
    cur->ordinal_path_len = strlen(path);
    cur->ordinal_idx_str = plan->idx_str ? sqlite3_mprintf("%s", plan->idx_str) : NULL;
}

void pv_keeper_drop_idle(PvTab *tab)
{
    /* a kept cursor whose file nobody reads any more: its statement ended */
    if (tab->keeper && tab->keeper_closed && !file_shared(tab->keeper)) {
        pv_vtab_free_cursor(tab->keeper);
        tab->keeper = NULL;
    }
}

bool pv_keeper_keeps(PvTab *tab, PvCursor *cur)
{
    if (tab->keeper != cur)
        return false;
    if (cur->by_ordinal && file_shared(cur) && !cur->spent) {
        tab->keeper_closed = true;
        return true;
    }
    tab->keeper = NULL;
    return false;
}

void pv_keeper_free(PvTab *tab)
{
    if (tab->keeper && tab->keeper_closed)
        pv_vtab_free_cursor(tab->keeper);
}
