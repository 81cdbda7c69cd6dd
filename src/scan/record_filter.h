/*
 * What a query asks of a record's identity — its time range, pid, tid, cpu
 * and event — tested in the reader, before a row is made of it.
 *
 * The identity of a record is what its sample (for SAMPLE) or its
 * sample_id_all trailer (other kernel records) says, as the columns read
 * it: pv_record_identity_fixed (sample.h), so that the filter fails on no
 * record whose columns read without failing.  A record whose
 * identity lacks a field that is filtered on does not match: its column
 * would be NULL, and NULL satisfies no comparison.
 */
#ifndef PV_RECORD_FILTER_H
#define PV_RECORD_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "base/pv_error.h"
#include "stream/record_walk.h"

typedef struct pv_record_filter {
    bool active;             /* any of the below */
    bool has_time_min, has_time_max, has_pid, has_tid, has_cpu, has_event;
    int64_t time_min, time_max;   /* inclusive */
    int32_t pid, tid;
    uint32_t cpu;
    /* attr indexes whose event name matched (has_event); none: no row */
    uint8_t *event_matches;
} pv_record_filter;

/* 1: the record passes, 0: it does not, -1: error decoding it. */
int pv_record_filter_test(const pv_record_filter *filter, const pv_file *f, const pv_record *rec,
                          pv_error *err);

/* Sets has_event from a name, resolving it against the file's events. */
int pv_record_filter_set_event(pv_record_filter *filter, pv_file *f, const char *name,
                               pv_error *err);
void pv_record_filter_free(pv_record_filter *filter);

#endif
