/*
 * What the reader skipped or distrusted in a file, and why: the rows of
 * perf_diagnostics.  One pass over the feature sections and the whole record
 * stream; damage that makes other tables fail is a row here, so a user sees
 * all of a file's problems in one query instead of meeting them one error
 * at a time.
 *
 * kinds (severity):
 *   damaged_feature (error)      a feature section that does not decode;
 *                                message = the decoder's error
 *   unknown_feature (info)       a feature bit this reader has no decoder for
 *                                (value = section size; perf_features.raw has it)
 *   unreadable_records (error)   the record stream stops making sense: the
 *                                walk's error; records after it are not read
 *   malformed_record (error)     records of one type whose body does not
 *                                decode (count per type, first one's error)
 *   unknown_record_type (info)   records of a type this reader does not know
 *                                (count per type; perf_records lists them);
 *                                warning for a type no writer uses (from
 *                                PV_RECORD_TYPE_LIMIT): a damaged record
 *   unknown_sample_id (warning)  samples whose id belongs to no event
 *   out_of_order (warning)       events timed before what perf had already
 *                                flushed at a FINISHED_ROUND (see below):
 *                                perf's "N out of order events recorded"
 *                                (value = the time flushed when the first
 *                                late event came)
 *   lost (warning)               LOST records: count = records ("lost N
 *                                chunks"), value = events lost in all
 *   lost_samples (warning)       LOST_SAMPLES records: count = records,
 *                                value = samples lost in all ("Total Lost
 *                                Samples")
 *   trailing_garbage (warning)   pipe mode: bytes at the end that are not a
 *                                record (value = how many)
 *   unfinished_recording         perf record was stopped before it wrote the
 *     (warning)                  header's data size and the feature sections
 *                                (pv_file.unfinished); value = bytes of a
 *                                record cut short at the end, dropped
 *   compressed_size_overstated   COMPRESSED2 containers whose data_size is
 *     (info, or warning beyond   larger than the record holds: the record's
 *     the 7 bytes of padding     size is trusted (value = the largest excess)
 *     perf 6.16+ adds)
 *   compressed2_size_mismatch    COMPRESSED2 records sized by what the
 *     (warning)                  bytes after them prove, not by header.size
 *                                (stream/file_walk.c); value = how many
 *   jitdump_missing (warning)    a process mapped a jit-PID.dump that is not
 *                                found (or not a jitdump of that process)
 *                                where the symbolizer looks (jitdump.h):
 *                                its JIT frames stay unnamed
 *   jitdump_damaged (warning)    a jitdump read short: its records up to the
 *                                damage name frames (value = code loads read)
 *   jitdump_file_names (info)    debug entries whose file name is not text
 *                                (node 20 writes memory bytes there): no
 *                                source line for them (value = how many)
 *   offcpu_raw_unreadable        perf 6.14+ offcpu-time samples whose raw
 *     (warning)                  data is too short for the fields perf
 *                                writes there (decode/sample.c): left as
 *                                recorded, no perf_offcpu rows; count =
 *                                value = how many
 *   short_mmap2 (info)           MMAP2 records in the layout of Linux
 *                                3.12-3.15 and RHEL 7's 3.10: no prot and
 *                                flags (decode/record_maps.c); count =
 *                                value = how many
 *
 * Out of order, as perf's ordered-events queue defines it: perf record
 * writes FINISHED_ROUND after each pass over the ring buffers; when perf
 * report reads round k's marker it hands on every queued event up to the
 * largest time seen by round k-1's marker.  An event read after that with
 * an earlier (non-zero) time comes too late to be sorted in.  Time going
 * backwards inside a round is normal (the buffers interleave) and not
 * reported.
 */
#ifndef PV_DIAGNOSTICS_H
#define PV_DIAGNOSTICS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "base/pv_error.h"

typedef struct pv_diagnostic {
    const char *kind;
    const char *severity;       /* "error", "warning" or "info" */
    bool has_record;
    uint64_t record;            /* the first record concerned */
    bool has_offset;
    uint64_t file_offset;       /* where: record header or feature section */
    uint64_t count;             /* how many records, features, ... */
    bool has_value;
    uint64_t value;             /* a quantity of the kind (see above) */
    char *message;
} pv_diagnostic;

typedef struct pv_diagnostics {
    pv_diagnostic *items;
    size_t nr, capacity;
} pv_diagnostics;

/* Reads f's features and record stream and fills out, ordered by file
 * offset.  Damage in the file is rows, never an error; -1 only when memory
 * runs out. */
int pv_diagnostics_collect(pv_file *f, pv_diagnostics *out, pv_error *err);
/* The same, with perf_symbol_path's sysroot and symbol directory (NULL:
 * none), where the jitdumps a recording maps are looked for too. */
int pv_diagnostics_collect_paths(pv_file *f, const char *sysroot, const char *symdir,
                                 pv_diagnostics *out, pv_error *err);
void pv_diagnostics_free(pv_diagnostics *d);

#endif
