/*
 * Numbers of the perf.data ABI: sample_type and read_format bits, record
 * types (made from record_type_list.h), misc bits, callchain context
 * markers.  Values from the kernel's <linux/perf_event.h> and perf's
 * tools/perf/util/event.h, kept here so that the reader builds against any
 * kernel headers.
 */
#ifndef PV_PERF_ABI_H
#define PV_PERF_ABI_H

#include <stdbool.h>
#include <stdint.h>

#include "format/record_type_list.h"

/* Every record starts with {u32 type; u16 misc; u16 size}. */
#define PV_RECORD_HEADER_SIZE 8
/* The kernel's BUILD_ID_SIZE_MAX: MMAP2 and build-id tables hold at most
 * this many bytes of build-id. */
#define PV_BUILD_ID_MAX 20

enum {
    PV_SAMPLE_IP = 1u << 0,
    PV_SAMPLE_TID = 1u << 1,
    PV_SAMPLE_TIME = 1u << 2,
    PV_SAMPLE_ADDR = 1u << 3,
    PV_SAMPLE_READ = 1u << 4,
    PV_SAMPLE_CALLCHAIN = 1u << 5,
    PV_SAMPLE_ID = 1u << 6,
    PV_SAMPLE_CPU = 1u << 7,
    PV_SAMPLE_PERIOD = 1u << 8,
    PV_SAMPLE_STREAM_ID = 1u << 9,
    PV_SAMPLE_RAW = 1u << 10,
    PV_SAMPLE_BRANCH_STACK = 1u << 11,
    PV_SAMPLE_REGS_USER = 1u << 12,
    PV_SAMPLE_STACK_USER = 1u << 13,
    PV_SAMPLE_WEIGHT = 1u << 14,
    PV_SAMPLE_DATA_SRC = 1u << 15,
    PV_SAMPLE_IDENTIFIER = 1u << 16,
    PV_SAMPLE_TRANSACTION = 1u << 17,
    PV_SAMPLE_REGS_INTR = 1u << 18,
    PV_SAMPLE_PHYS_ADDR = 1u << 19,
    PV_SAMPLE_AUX = 1u << 20,
    PV_SAMPLE_CGROUP = 1u << 21,
    PV_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
    PV_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
    PV_SAMPLE_WEIGHT_STRUCT = 1u << 24,
    PV_SAMPLE_BIT_COUNT = 25,
};

enum {
    PV_FORMAT_TOTAL_TIME_ENABLED = 1u << 0,
    PV_FORMAT_TOTAL_TIME_RUNNING = 1u << 1,
    PV_FORMAT_ID = 1u << 2,
    PV_FORMAT_GROUP = 1u << 3,
    PV_FORMAT_LOST = 1u << 4,
};

/* branch_sample_type bits: CALL_STACK (--call-graph lbr) makes the branch
 * stack the user call stack; HW_INDEX puts hw_idx between nr and entries */
#define PV_BRANCH_CALL_STACK (1u << 11)
#define PV_BRANCH_HW_INDEX (1u << 17)
/* Linux 6.8: a u64 of event counts per branch entry, after the entries */
#define PV_BRANCH_COUNTERS (1u << 19)

/* PV_RECORD_MMAP, PV_RECORD_SAMPLE, ...: one per row of record_type_list.h */
enum {
    PV_KERNEL_RECORD_TYPES(PV_RECORD_TYPE_ENUM)
    PV_RECORD_KERNEL_TYPE_END = 64,  /* types below carry a sample_id_all trailer */
    PV_USER_RECORD_TYPES(PV_RECORD_TYPE_ENUM)
    /* No writer uses a type from here up (the kernel's are below 64, perf's
     * below 100, simpleperf's from 32768): such a record is damaged. */
    PV_RECORD_TYPE_LIMIT = 0x10000,
};

/* misc */
#define PV_MISC_CPUMODE_MASK 7u
#define PV_MISC_MMAP_BUILD_ID (1u << 14)
#define PV_MISC_COMM_EXEC (1u << 13)
#define PV_MISC_MMAP_DATA (1u << 13)
#define PV_MISC_SWITCH_OUT (1u << 13)
#define PV_MISC_SWITCH_OUT_PREEMPT (1u << 14)
#define PV_MISC_BUILD_ID_SIZE (1u << 15)

/* Callchain entries at or above this are context markers, not addresses. */
#define PV_CONTEXT_MAX ((uint64_t)-4095)
#define PV_CONTEXT_HV ((uint64_t)-32)
#define PV_CONTEXT_KERNEL ((uint64_t)-128)
#define PV_CONTEXT_USER ((uint64_t)-512)
/* Linux 6.19: the user part comes later, in a CALLCHAIN_DEFERRED record;
 * the entry after this marker is the cookie that names that record */
#define PV_CONTEXT_USER_DEFERRED ((uint64_t)-640)
#define PV_CONTEXT_GUEST ((uint64_t)-2048)
#define PV_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PV_CONTEXT_GUEST_USER ((uint64_t)-2560)

/* Name of a cpumode (misc & 7) as the SQL contract spells it. */
const char *pv_cpumode_name(unsigned cpumode);
/* perf's name for a record type ("MMAP", "SAMPLE", ...) or NULL if unknown. */
const char *pv_record_type_name(uint32_t type);
/* For a record type added after perf 6.1, perf's name for it and the
 * kernel and/or perf release that added it ("perf 6.17"); false for other
 * types (older ones, and numbers nothing is known to use). */
bool pv_record_type_origin(uint32_t type, const char **name, const char **since);

#endif
