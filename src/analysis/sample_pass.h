/*
 * One pass over a recording's samples in stream order, decoded, as the
 * whole-file analyses (perf_profile, perf_pprof) read them: each sample of
 * a known event is handed to a callback, with its record.
 */
#ifndef PV_SAMPLE_PASS_H
#define PV_SAMPLE_PASS_H

#include "base/pv_error.h"
#include "decode/sample.h"
#include "format/perf_file.h"
#include "format/record.h"

/* 0 from the callback goes on; -1 (err set) stops the pass. */
typedef int (*pv_sample_visit)(void *ctx, const pv_record *r, const pv_sample *s, pv_error *err);

/* Calls visit for every sample of f whose event is known; 0, or -1 with
 * err set (a damaged record, or the callback's error). */
int pv_sample_pass(pv_file *f, pv_sample_visit visit, void *ctx, pv_error *err);

/* The same with each sample decoded as far as its fixed fields
 * (pv_sample_decode_fixed: event, ip, pid/tid, time, period...), as
 * perf_samples decodes it for those columns and the symbols: for a pass
 * that reads no callchain, branch stack or registers. */
int pv_sample_pass_fixed(pv_file *f, pv_sample_visit visit, void *ctx, pv_error *err);

/* A part of the pass, for a worker thread (analysis/profile_parallel.h):
 * the samples whose records start at file offsets [from, to) of a single
 * uncompressed file.  The records before from are stepped over unread.
 * *cancel (read atomically) set by another thread stops the pass with
 * PV_ERROR_STOPPED; a record out of a COMPRESSED container sets
 * *compressed and ends the pass (-1): its offset is its container's, so
 * it cannot be split. */
typedef struct pv_sample_range {
    uint64_t from, to;
    const int *cancel;
    bool compressed;
} pv_sample_range;
int pv_sample_pass_range(pv_file *f, bool fixed_only, pv_sample_range *range,
                         pv_sample_visit visit, void *ctx, pv_error *err);

#endif
