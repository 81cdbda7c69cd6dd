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

/* Record types since perf 6.1, known to this reader or not: the
 * diagnostic of an unknown type names the release that brought it, and
 * docs/schema.md's table lists the same.  Numbers from the kernel's
 * include/uapi/linux/perf_event.h (kernel types) and perf's
 * tools/lib/perf/include/perf/event.h (perf's own). */
bool pv_record_type_origin(uint32_t type, const char **name, const char **since)
{
    static const struct {
        uint32_t type;
        const char *name, *since;
    } origins[] = {
        {22, "CALLCHAIN_DEFERRED", "Linux 6.19 and perf 7.0"},
        {83, "COMPRESSED2", "perf 6.15"},
        {84, "BPF_METADATA", "perf 6.17"},
        {85, "SCHEDSTAT_CPU", "perf 7.0"},
        {86, "SCHEDSTAT_DOMAIN", "perf 7.0"},
    };
    for (size_t i = 0; i < sizeof origins / sizeof origins[0]; i++)
        if (origins[i].type == type) {
            *name = origins[i].name;
            *since = origins[i].since;
            return true;
        }
    return false;
}
