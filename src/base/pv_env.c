#include "base/pv_env.h"

#include <stdlib.h>
#include <string.h>

uint64_t pv_env_number(const char *name, uint64_t least, uint64_t fallback)
{
    const char *s = getenv(name);
    /* strtoull alone would take leading blanks and a sign ("-1": 2^64 - 1) */
    if (!s || *s < '0' || *s > '9')
        return fallback;
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    return *end == '\0' && n >= least ? (uint64_t)n : fallback;
}

bool pv_env_flag(const char *name)
{
    const char *s = getenv(name);
    return s && *s && strcmp(s, "0") != 0;
}
