#include "symbols/demangle.h"

#include <libiberty/demangle.h>

char *pv_demangle(const char *name)
{
    return cplus_demangle(name, DMGL_NO_OPTS);
}
