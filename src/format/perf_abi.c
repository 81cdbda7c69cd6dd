#include "format/perf_abi.h"

#include <stddef.h>

const char *pv_cpumode_name(unsigned cpumode)
{
    static const char *const names[] = {
        "unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user",
    };
    return cpumode < sizeof names / sizeof names[0] ? names[cpumode] : "unknown";
}

/* Each list's numbers on its side of 64: the trailer is read by number
 * (below 64), the fields writer by list, and the two must agree. */
#define CHECK_KERNEL(NAME, number, name, writer) \
    _Static_assert(number < PV_RECORD_KERNEL_TYPE_END, #NAME " is a kernel type");
#define CHECK_USER(NAME, number, name, writer) \
    _Static_assert(number >= PV_RECORD_KERNEL_TYPE_END, #NAME " is a user type");
PV_KERNEL_RECORD_TYPES(CHECK_KERNEL)
PV_USER_RECORD_TYPES(CHECK_USER)

const char *pv_record_type_name(uint32_t type)
{
    /* The spelling `perf report --stats` prints. */
    static const char *const names[] = {
        PV_KERNEL_RECORD_TYPES(PV_RECORD_TYPE_NAME)
        PV_USER_RECORD_TYPES(PV_RECORD_TYPE_NAME)
    };
    return type < sizeof names / sizeof names[0] ? names[type] : NULL;
}
