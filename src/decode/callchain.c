#include "decode/callchain.h"

#include "format/perf_abi.h"

unsigned pv_callchain_marker_cpumode(uint64_t v)
{
    switch (v) {
    case PV_CONTEXT_KERNEL: return 1;
    case PV_CONTEXT_USER: return 2;
    /* the user part follows, stitched from CALLCHAIN_DEFERRED (perf 7) */
    case PV_CONTEXT_USER_DEFERRED: return 2;
    case PV_CONTEXT_HV: return 3;
    default: return 0;
    }
}

bool pv_callchain_is_corrupt(const pv_sample *s)
{
    uint64_t n = s->callchain_nr;
    /* a deferred chain's last entry is its cookie, not an address */
    if (n >= 2 && pv_sample_u64_at(s, s->callchain, n - 2) == PV_CONTEXT_USER_DEFERRED)
        n--;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = pv_sample_u64_at(s, s->callchain, i);
        if (pv_callchain_is_marker(v) && pv_callchain_marker_cpumode(v) == 0)
            return true;
    }
    return false;
}
