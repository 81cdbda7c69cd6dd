/*
 * A profile in one pass: per event and function, the samples whose ip is
 * in it ("self") and the samples with it anywhere on the stack, each
 * sample once ("children"), as perf report --no-children / --children
 * count them.  Stacks are the callchain's frames and, for --call-graph
 * dwarf, the unwound user frames with the functions inlined at them.
 *
 * SQL's GROUP BY sorts every row; over millions of samples and frames
 * that sort costs more than reading the file.  This counts into a hash
 * table keyed by the resolved function instead, so a whole-file profile
 * costs one walk.
 */
#ifndef PV_PROFILE_H
#define PV_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/key_table.h"
#include "base/pv_error.h"
#include "format/perf_file.h"
#include "symbols/symbolizer.h"

typedef struct pv_profile_row {
    int attr_index;             /* the event */
    uint32_t counted_in;        /* while counting: the last sample (numbered from 1,
                                   again after 2^32 - 1) whose children count it */
    const char *dso;            /* NULL: no map held the address */
    const char *sym;            /* NULL: unresolved, then addr names the row */
    uint64_t addr;              /* unresolved: dso_offset, or the ip without a dso */
    bool inlined;               /* sym names a function inlined there (debug info) */
    uint64_t sym_start;         /* sym, not inlined: dso_offset - sym_offset at its first
                                   frame, which with the texts of dso and sym tells
                                   the function apart in any symbolizer
                                   (analysis/profile_parallel.c) */
    uint64_t self_samples, self_period;
    uint64_t samples, period;   /* children: on the stack, once per sample */
} pv_profile_row;

typedef struct pv_profile {
    pv_profile_row *rows;
    size_t nr_rows;
    uint32_t *slots;            /* hash of rows (their indices), while counting */
    size_t nr_slots;
    size_t last;                /* while counting: the row found last, tried first
                                   (a sample's frames and the next sample are
                                   often one function); any value is safe */
    char **names;               /* inlined functions' names, one copy each */
    size_t nr_names, cap_names;
    pv_key_table name_keys;     /* names' numbers in names, while counting */
    /* per event (attr index): the sum of its rows' self periods, the
     * denominator of perf report's percentages, added as SQL's sum() adds
     * them (signed 64-bit); overflowed: that sum would fail */
    int64_t *event_periods;
    bool *event_overflowed;
    size_t nr_events;
    /* a row's frames gave two sym_starts: sym_start does not name it */
    bool starts_differ;
    /* what the rows point into besides the caller's symbolizer
     * (profile_parallel.c's workers), freed by free_kept; NULL: nothing */
    struct pv_profile_kept *kept;
    void (*free_kept)(struct pv_profile_kept *kept);
} pv_profile;

/* Counts every sample of f; with_children also walks the callchains. */
int pv_profile_build(pv_file *f, pv_symbolizer *s, bool with_children, pv_profile *out,
                     pv_error *err);
void pv_profile_free(pv_profile *p);

/* The same over the samples of range only (sample_pass.h), for a worker
 * thread of analysis/profile_parallel.h: no event periods are summed. */
struct pv_sample_range;
int pv_profile_build_range(pv_file *f, pv_symbolizer *s, bool with_children,
                           struct pv_sample_range *range, pv_profile *out, pv_error *err);
/* Sums the event periods of a profile built by ranges; false when out of
 * memory. */
bool pv_profile_sum_events(pv_profile *p);

/* The event's total self period (event_periods above) into *total: 0 when
 * it is known, -1 when the signed 64-bit sum overflowed. */
int pv_profile_event_period(const pv_profile *p, int attr_index, int64_t *total);

#endif
