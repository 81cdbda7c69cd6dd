/*
 * The constraints a plan pushed down (vtab_plan.c), read from xFilter's
 * arguments into what the reader tests (record_filter.h), and the ordinal
 * a lookup asks for.  Values are compared as SQLite compares them with
 * the INTEGER or TEXT column; one the reader cannot test is left to
 * SQLite, which tests every pushed constraint again.
 */
#include <string.h>

#include "vtab_tab.h"

/* An integer bound from a constraint's value; false when the value is not
 * a number (the reader then does not filter: SQLite still does).  A real
 * is rounded outwards, so that no row SQLite would keep is dropped. */
static bool integer_bound(sqlite3_value *v, bool lower, int64_t *out)
{
    switch (sqlite3_value_numeric_type(v)) {
    case SQLITE_INTEGER:
        *out = sqlite3_value_int64(v);
        return true;
    case SQLITE_FLOAT: {
        double d = sqlite3_value_double(v);
        if (!(d > -9.2e18 && d < 9.2e18))
            return false;
        int64_t i = (int64_t)d;
        if (lower && (double)i > d) i--;
        if (!lower && (double)i < d) i++;
        *out = i;
        return true;
    }
    default:
        return false;
    }
}

/* The ordinal asked for (idxNum bit 11) from its argv value, compared as
 * SQLite compares it with the INTEGER column: numeric affinity applied to
 * the value (sqlite3_value_numeric_type), so '5' and 5.0 are 5.  SQLite
 * does not test the equality again (omit, see pv_vtab_best_index): a value
 * no ordinal equals (NULL, negative, fractional, text that is not a
 * number, a blob) is a lookup with no rows. */
void pv_vtab_read_ordinal(PvCursor *cur, const PvPlan *plan)
{
    cur->by_ordinal = false;
    cur->ordinal_none = false;
    if (!plan->ordinal)
        return;
    sqlite3_value *v = plan->ordinal;
    switch (sqlite3_value_numeric_type(v)) {
    case SQLITE_NULL:
        /* NULL equals nothing */
        cur->by_ordinal = cur->ordinal_none = true;
        return;
    case SQLITE_INTEGER: {
        sqlite3_int64 i = sqlite3_value_int64(v);
        cur->by_ordinal = true;
        cur->ordinal_none = i < 0;
        cur->ordinal = (uint64_t)i;
        return;
    }
    case SQLITE_FLOAT: {
        /* 5.0 = 5; an ordinal is below 2^63 */
        double d = sqlite3_value_double(v);
        cur->by_ordinal = true;
        cur->ordinal_none = !(d >= 0 && d < 9.2e18) || (double)(uint64_t)d != d;
        cur->ordinal = cur->ordinal_none ? 0 : (uint64_t)d;
        return;
    }
    default:
        cur->by_ordinal = cur->ordinal_none = true;
        return;
    }
}

int pv_vtab_read_constraints(PvCursor *cur, const PvPlan *plan, pv_error *err)
{
    pv_record_filter *filter = &cur->wanted;
    memset(filter, 0, sizeof *filter);
    sqlite3_free(cur->event_name);
    cur->event_name = NULL;
    for (int k = 0; k < PUSH_KINDS; k++) {
        sqlite3_value *v = plan->pushed_value[k];
        if (!v)
            continue;
        int64_t i;
        switch (k) {
        case PUSH_TIME_MIN:
        case PUSH_TIME_EQ:
            if (integer_bound(v, true, &i) && (!filter->has_time_min || i > filter->time_min)) {
                filter->time_min = i;
                filter->has_time_min = true;
            }
            if (k == PUSH_TIME_MIN)
                break;
            /* fall through */
        case PUSH_TIME_MAX:
            if (integer_bound(v, false, &i) && (!filter->has_time_max || i < filter->time_max)) {
                filter->time_max = i;
                filter->has_time_max = true;
            }
            break;
        case PUSH_PID:
        case PUSH_TID:
            /* A pid that is not an int32 matches no row; keep SQLite's say. */
            if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER)
                break;
            i = sqlite3_value_int64(v);
            if (i < INT32_MIN || i > INT32_MAX)
                break;
            if (k == PUSH_PID) { filter->pid = (int32_t)i; filter->has_pid = true; }
            else { filter->tid = (int32_t)i; filter->has_tid = true; }
            break;
        case PUSH_CPU:
            if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER)
                break;
            i = sqlite3_value_int64(v);
            if (i < 0 || i > UINT32_MAX)
                break;
            filter->cpu = (uint32_t)i;
            filter->has_cpu = true;
            break;
        case PUSH_EVENT:
            if (sqlite3_value_type(v) == SQLITE_TEXT) {
                cur->event_name = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(v));
                if (!cur->event_name)
                    return pv_error_set(err, "out of memory");
            }
            break;
        }
    }
    filter->active = filter->has_time_min || filter->has_time_max || filter->has_pid ||
                     filter->has_tid || filter->has_cpu || cur->event_name;
    pv_vtab_read_ordinal(cur, plan);
    return 0;
}
