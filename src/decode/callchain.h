/*
 * Reading a sample's callchain as perf does: u64 entries, leaf first, with
 * PERF_CONTEXT_* markers (values >= -4095) saying whose addresses follow.
 *
 * perf knows three markers (PERF_CONTEXT_HV, _KERNEL, _USER), and perf 7 a
 * fourth, PERF_CONTEXT_USER_DEFERRED (Linux 6.19), which ends a chain
 * whose user part comes later (decode/deferred_chains.h): its last entry,
 * the cookie after that marker, is no address.  Any other value that high means the chain is corrupt
 * (a user stack walk that read garbage, say), and perf then discards the
 * whole callchain: the sample keeps only its own ip.  So do we.
 */
#ifndef PV_CALLCHAIN_H
#define PV_CALLCHAIN_H

#include <stdbool.h>

#include "decode/sample.h"

/* PERF_RECORD_MISC_* cpumodes */
#define PV_CPUMODE_KERNEL 1u
#define PV_CPUMODE_USER 2u

/* The cpumode (PERF_RECORD_MISC_*) a marker announces; 0 when v is no
 * marker perf accepts. */
unsigned pv_callchain_marker_cpumode(uint64_t v);

/* A value >= PERF_CONTEXT_MAX that is not a known marker. */
bool pv_callchain_is_corrupt(const pv_sample *s);

static inline bool pv_callchain_is_marker(uint64_t v)
{
    return v >= (uint64_t)-4095;
}

#endif
