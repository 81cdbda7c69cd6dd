/*
 * A recording's samples of one event as pprof's tables (render/pprof_encode.h),
 * for perf_pprof(): what `go tool pprof`, Pyroscope, Parca and Grafana read.
 *
 *   - sample types: ("samples", "count") and the event's period: cpu-clock
 *     ("cpu", "nanoseconds"), task-clock ("task-clock", "nanoseconds"),
 *     any other event (its name, "count"); the period is pprof's default,
 *     so its percentages are perf report's (of the period);
 *   - a sample's stack is perf_callchains' frames, leaf first: the
 *     callchain's (kernel frames included), the branch stack's for
 *     --call-graph lbr, the DWARF-unwound user frames; a sample without a
 *     callchain is its ip alone;
 *   - a location is an address in a mapping (the map record's start, end
 *     and file offset, the dso's name and build-id); its Lines are the
 *     function perf names (the symbol) with its source line when the
 *     debug info has one, and, for a DWARF-unwound frame, the functions
 *     inlined there first, innermost first, as pprof expects.  An address
 *     without a symbol has no Line (pprof shows the address);
 *   - labels (text): pid, tid, cpu (when recorded) and comm;
 *   - identical samples (same stack and labels) are one, their values summed.
 */
#ifndef PV_PPROF_PROFILE_H
#define PV_PPROF_PROFILE_H

#include <stddef.h>

#include "base/pv_error.h"
#include "format/perf_file.h"
#include "render/pprof_encode.h"
#include "symbols/symbolizer.h"

/* The event perf_pprof takes without a name: the first of the file's,
 * passing over perf's "dummy" events (which have no samples of their
 * own); -1 when the file has no other. */
int pv_pprof_default_event(pv_file *f);
/* The event named name (as perf_events.name), or -1. */
int pv_pprof_find_event(pv_file *f, const char *name);

/* A profile of one or more files' samples (perf_pprof over a pattern or a
 * list of paths): the files' samples are added one file after another into
 * the same tables, so that equal stacks, locations, functions and mappings
 * (the same binary at the same address) are one.  The first file's event
 * gives the sample types; the duration is the sum of each file's, from its
 * first to its last sample. */
typedef struct pv_pprof_builder pv_pprof_builder;

/* NULL: out of memory. */
pv_pprof_builder *pv_pprof_builder_new(void);
/* Adds the samples of event attr_index of f, symbolized by sym (which need
 * live only for the call).  0, or -1 with err set. */
int pv_pprof_add(pv_pprof_builder *b, pv_file *f, pv_symbolizer *sym, size_t attr_index,
                 pv_error *err);
/* Hands the tables over to *out (pv_pprof_tables_free them). */
int pv_pprof_finish(pv_pprof_builder *b, pv_pprof_tables *out, pv_error *err);
void pv_pprof_builder_free(pv_pprof_builder *b);

#endif
