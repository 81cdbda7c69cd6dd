#include "format/perf_abi.h"

#include <stddef.h>

const char *pv_cpumode_name(unsigned cpumode)
{
    static const char *const names[] = {
        "unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user",
    };
    return cpumode < sizeof names / sizeof names[0] ? names[cpumode] : "unknown";
}

const char *pv_record_type_name(uint32_t type)
{
    /* The spelling `perf report --stats` prints. */
    static const char *const kernel[] = {
        [PV_RECORD_MMAP] = "MMAP",
        [PV_RECORD_LOST] = "LOST",
        [PV_RECORD_COMM] = "COMM",
        [PV_RECORD_EXIT] = "EXIT",
        [PV_RECORD_THROTTLE] = "THROTTLE",
        [PV_RECORD_UNTHROTTLE] = "UNTHROTTLE",
        [PV_RECORD_FORK] = "FORK",
        [PV_RECORD_READ] = "READ",
        [PV_RECORD_SAMPLE] = "SAMPLE",
        [PV_RECORD_MMAP2] = "MMAP2",
        [PV_RECORD_AUX] = "AUX",
        [PV_RECORD_ITRACE_START] = "ITRACE_START",
        [PV_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
        [PV_RECORD_SWITCH] = "SWITCH",
        [PV_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
        [PV_RECORD_NAMESPACES] = "NAMESPACES",
        [PV_RECORD_KSYMBOL] = "KSYMBOL",
        [PV_RECORD_BPF_EVENT] = "BPF_EVENT",
        [PV_RECORD_CGROUP] = "CGROUP",
        [PV_RECORD_TEXT_POKE] = "TEXT_POKE",
        [PV_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
    };
    static const char *const user[] = {
        "ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND",
        "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP",
        "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
        "TIME_CONV", "FEATURE", "COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
    };
    if (type < sizeof kernel / sizeof kernel[0])
        return kernel[type];
    if (type >= PV_RECORD_HEADER_ATTR && type - PV_RECORD_HEADER_ATTR < sizeof user / sizeof user[0])
        return user[type - PV_RECORD_HEADER_ATTR];
    return NULL;
}
