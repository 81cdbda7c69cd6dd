#include "base/pv_stop.h"

#include <stddef.h>

bool pv_stop_said(const pv_stop *stop)
{
    return stop && stop->check && pthread_equal(stop->thread, pthread_self()) &&
           stop->check(stop->arg);
}

int pv_stop_check_point(const pv_stop *stop, const char *what, pv_error *err)
{
    if (!pv_stop_said(stop))
        return 0;
    return pv_error_set_kind(err, PV_ERROR_STOPPED, "%s: interrupted", what);
}
