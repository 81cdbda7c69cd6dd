/*
 * A cursor's life: made zeroed, given one file after another (a pattern's
 * or a list's), each released with what the table decoded from it, reset
 * for each xFilter and freed.  While it reads a file, the file's reads
 * stop when the statement is interrupted (stop_probe.h).
 */
#include <string.h>

#include "file_cache.h"
#include "vtab_tab.h"

static size_t state_zero_size(const PvTableDef *def)
{
    return def->state_zeroed ? def->state_zeroed : def->state_size;
}

PvCursor *pv_vtab_new_cursor(const PvTab *tab)
{
    PvCursor *cur = sqlite3_malloc(sizeof *cur);
    if (!cur)
        return NULL;
    memset(cur, 0, sizeof *cur);
    cur->kept_column = -1;
    cur->def = tab->def;
    cur->cache = tab->cache;
    cur->eof = true;
    if (tab->def->state_size) {
        cur->state = sqlite3_malloc64(tab->def->state_size);
        if (!cur->state) {
            sqlite3_free(cur);
            return NULL;
        }
        memset(cur->state, 0, state_zero_size(tab->def));
    }
    return cur;
}

/* The reads of cur's file (its scan's, its symbolizer's) stop when the
 * statement is interrupted (ext/stop_probe.h): armed when the scan starts,
 * from the thread that runs it. */
static void arm_stop(PvCursor *cur)
{
    const pv_stop *stop = pv_stop_probe_arm(&cur->stop, ((PvTab *)cur->base.pVtab)->db);
    if (cur->file)
        pv_file_set_stop(cur->file, stop);
}

/* Lets go of the current file and what the table decoded from it. */
void pv_vtab_release_file(PvCursor *cur)
{
    if (cur->def->reset)
        cur->def->reset(cur);
    if (cur->state)
        memset(cur->state, 0, state_zero_size(cur->def));
    if (cur->file) {
        pv_file_clear_stop(cur->file, &cur->stop.stop);
        pv_cache_release_file(cur->cache, cur->file);
    }
    cur->file = NULL;
    cur->eof = true;
}

static void free_paths(PvCursor *cur)
{
    pv_path_list_free(&cur->paths);
    cur->next_path = 0;
}

void pv_vtab_reset_cursor(PvCursor *cur)
{
    pv_vtab_release_file(cur);
    cur->by_ordinal = cur->ordinal_none = false;
    sqlite3_free(cur->ordinal_path);
    cur->ordinal_path = NULL;
    sqlite3_free(cur->ordinal_idx_str);
    cur->ordinal_idx_str = NULL;
    pv_grouped_free(cur);
    free_paths(cur);
    sqlite3_free(cur->event_name);
    cur->event_name = NULL;
    memset(&cur->wanted, 0, sizeof cur->wanted);
}

void pv_vtab_free_cursor(PvCursor *cur)
{
    pv_stop_probe_finish(&cur->stop);
    pv_vtab_reset_cursor(cur);
    pv_strbuf_free(&cur->text);
    sqlite3_free(cur->state);
    sqlite3_free(cur);
}

int pv_vtab_cursor_error(PvCursor *cur, const pv_error *err)
{
    sqlite3_free(cur->base.pVtab->zErrMsg);
    cur->base.pVtab->zErrMsg = sqlite3_mprintf("%s", err->msg);
    cur->eof = true;
    return pv_error_code(err);
}

/* Opens path and positions the cursor on its first row. */
int pv_vtab_start_file(PvCursor *cur, const char *path, pv_error *err)
{
    const pv_stop *stop = pv_stop_probe_arm(&cur->stop, ((PvTab *)cur->base.pVtab)->db);
    if (pv_cache_acquire_file(cur->cache, path, stop, &cur->file, err))
        return -1;
    arm_stop(cur);
    /* only tables of records are given constraints (PvTableDef.pushdown);
     * the others read the event name themselves */
    if (cur->wanted.active && !(cur->def->pushdown & PV_PUSHDOWN_EVENT_NAME) &&
        pv_record_rows_filter(cur, err))
        return -1;
    cur->eof = false;
    return cur->def->first(cur, err);
}

/* At the end of one file of a pattern or list, goes on with the next that has
 * rows. */
int pv_vtab_next_file(PvCursor *cur, pv_error *err)
{
    while (cur->eof && cur->next_path < cur->paths.nr) {
        pv_vtab_release_file(cur);
        if (pv_vtab_start_file(cur, cur->paths.paths[cur->next_path++], err))
            return -1;
    }
    return 0;
}
