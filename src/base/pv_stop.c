#include "base/pv_stop.h"

#include <stddef.h>

/* per thread: each connection's statements run on the thread that steps them */
static _Thread_local pv_stop_scope *current;

void pv_stop_enter(pv_stop_scope *scope, pv_stop_check *check, void *arg)
{
    scope->check = check;
    scope->arg = arg;
    scope->outer = current;
    current = scope;
}

void pv_stop_leave(pv_stop_scope *scope)
{
    if (current == scope)
        current = scope->outer;
}

bool pv_stop_requested(void)
{
    return current && current->check && current->check(current->arg);
}

int pv_stop_check_point(const char *what, pv_error *err)
{
    if (!pv_stop_requested())
        return 0;
    return pv_error_set_kind(err, PV_ERROR_STOPPED, "%s: interrupted", what);
}
