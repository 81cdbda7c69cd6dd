/*
 * Deferred user callchains (Linux 6.19, perf 7.0 `--call-graph fp,defer`),
 * found for the samples that wait for them.
 *
 * With attr.defer_callchain the kernel does not walk the user stack in the
 * interrupt: a sample's callchain ends in PERF_CONTEXT_USER_DEFERRED and a
 * cookie, and when the task goes back to user space one CALLCHAIN_DEFERRED
 * record (decode/record_types.h) carries that cookie and the user part.
 *
 * perf 7 holds such a sample back until the next CALLCHAIN_DEFERRED record
 * of the same tid comes, in time order; if that record's cookie is the
 * sample's, the sample's chain (less the cookie) and the record's entries
 * make one chain, else the sample goes on kernel-only.  Samples still held
 * at the end go on kernel-only too.  The same rule here, without holding:
 * a lazy cursor stands on the sample, and the record comes later in the
 * file, so the records are indexed once per file, on first need, by one
 * walk over the stream (it asks the file's pv_stop before each read), and
 * kept with the file (pv_file_state).  The key of a record or sample is
 * (time, ordinal), time 0 when it carries none, so that a file without
 * times keeps file order, as perf does.
 *
 * The index holds each record's entries (host order): its memory is the
 * deferred records' own size and a few words more per record, and it
 * refuses to grow past PV_DEFERRED_MAX_BYTES (an error, not fewer rows).
 */
#ifndef PV_DEFERRED_CHAINS_H
#define PV_DEFERRED_CHAINS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "decode/sample.h"
#include "format/perf_file.h"

#define PV_DEFERRED_MAX_BYTES ((uint64_t)512 << 20)

/* The task a record or sample is of: its tid, or PV_DEFERRED_NO_TID when
 * it carries none (perf's -1). */
#define PV_DEFERRED_NO_TID UINT64_MAX

typedef struct pv_deferred_record {
    uint64_t tid, time, ordinal;
    uint64_t cookie;
    uint64_t first_entry, nr_entries;   /* in pv_deferred_chains.entries */
} pv_deferred_record;

typedef struct pv_deferred_chains {
    pv_deferred_record *records;    /* sorted by (tid, time, ordinal) */
    uint64_t nr_records;
    uint64_t *entries;              /* every record's entries, one after another */
    uint64_t nr_entries;
    /* samples whose chain waits for a deferred one, and those whose
     * record never came (kernel-only), with the first of these */
    uint64_t waiting, unmatched;
    uint64_t first_unmatched_record, first_unmatched_offset;
} pv_deferred_chains;

/* The cookie of a sample whose callchain ends in PERF_CONTEXT_USER_DEFERRED
 * and its cookie; false for any other sample. */
bool pv_sample_deferred_cookie(const pv_sample *s, uint64_t *cookie);

/* The file's index, built the first time it is asked for. */
int pv_deferred_chains_get(pv_file *f, const pv_deferred_chains **out, pv_error *err);

/* The entries that complete a sample waiting with cookie: 1 with *entries
 * and *nr set (PERF_CONTEXT_USER first, as the kernel writes them), 0 when
 * its record never came. */
int pv_deferred_chains_find(const pv_deferred_chains *dc, const pv_sample *s, uint64_t cookie,
                            const uint64_t **entries, uint64_t *nr);

#endif
