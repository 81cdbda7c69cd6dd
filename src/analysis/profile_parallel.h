/*
 * perf_profile's pass on several threads: the file's records cut into
 * parts by file offset, each part's samples counted by a thread of its own
 * (its own opening of the file, its own symbolizer, its own rows), then
 * the parts' rows merged in file order.  The rows, their order and the
 * event periods come out as pv_profile_build's (docs/speed.md, "Cores").
 *
 * A symbolizer made fresh at a record resolves it as one that read every
 * record before it (symbolizer.h: it replays the maps up to it), so a part
 * needs nothing from the parts before it.  A row is a function, which the
 * sequential pass tells apart by its symbolizer's pointers; across
 * symbolizers it is the dso's and symbol's texts with the symbol's start
 * (pv_profile_row.sym_start), or the address of an unresolved frame.
 * Where that cannot be shown to name one function (a row whose frames
 * gave two starts, two rows of one part with one name, a jitdump's code,
 * which is replaced at one address) the split gives up, and the caller
 * counts on one thread.
 */
#ifndef PV_PROFILE_PARALLEL_H
#define PV_PROFILE_PARALLEL_H

#include <stdbool.h>

#include "analysis/profile.h"
#include "base/pv_error.h"
#include "format/perf_file.h"
#include "symbols/symbolizer.h"

/* The least bytes of records a thread is given: below it a thread costs
 * more (the maps replayed to its part, its symbol tables) than it saves.
 * The environment's PERFVTAB_PROFILE_PART_MIN replaces it (tests). */
#define PV_PROFILE_PART_MIN (16u << 20)
/* The flat pass does about a sixth of the children pass's work a record
 * (no chain is symbolized) for the same symbol tables and map replay, so
 * its parts are longer: 16 MB parts of a 36 MB recording of short
 * processes cut its critical path 1.12x for 2.3x the memory. */
#define PV_PROFILE_FLAT_PART_MIN (64u << 20)
/* The most threads a profile uses. */
#define PV_PROFILE_MAX_THREADS 64

/* Counts f's profile on up to nr_threads threads besides the calling one,
 * which waits, asking the file's stop; each part opens f's path again and
 * a symbolizer with paths; with_children as pv_profile_build's (without,
 * each part reads only its samples' fixed fields).  1: not split (one
 * thread, a small file, a stream, pipe mode, a directory, compressed records, DWARF
 * stacks to unwind, no proof of the rows' identity, a part's error):
 * the caller builds it with pv_profile_build, whose answer (rows or error)
 * is the one.  0: out is the profile.  -1 with err set: interrupted (the
 * file's stop, asked on this thread, stops every thread).  No thread
 * outlives the call. */
int pv_profile_build_parallel(pv_file *f, const pv_symbol_paths *paths, unsigned nr_threads,
                              bool with_children, pv_profile *out, pv_error *err);

/* Frees what a merged profile's rows point into (pv_profile_free calls it). */
struct pv_profile_kept;
void pv_profile_kept_free(struct pv_profile_kept *kept);

#endif
