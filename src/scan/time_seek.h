/*
 * Where a scan for a time window may start, found without reading the
 * stream from its beginning.
 *
 * perf record writes its records in rounds, each ended by a FINISHED_ROUND,
 * and perf reads them trusting one rule (its ordered-events queue): no
 * record of a round is earlier than a record of the round before the
 * previous one.  So when round j holds a time below t, every record of
 * the rounds up to j - 2 is below t, and a scan for times >= t may start
 * at round j - 1.  Offsets in the data section are bisected for such a
 * round, as late as possible.
 *
 * It goes in two steps.  Probes bisect the offsets for the last place whose
 * records are timed below t; they only steer.  Then a round proof, from a
 * little before that place and further back a round at a time until it
 * holds, finds a FINISHED_ROUND F whose round is followed by a round with
 * a time below t: by the rule, nothing before F is at or past t, and the
 * scan starts just past F.
 *
 * Every probe lands at an arbitrary offset, so it first proves a record
 * boundary: from each 8-byte-aligned candidate it walks forward and keeps
 * the first candidate whose records are all plausible (a known type, a
 * size that is a multiple of 8 within the data section, a SAMPLE that
 * decodes with the id of a known event, a trailer that decodes with a
 * known id, or with id and time 0 as perf synthesizes them, a
 * FINISHED_ROUND of 8 bytes): 16 records for a steering probe;
 * for a round proof, at least 8 records and 64 KiB (or a FINISHED_ROUND
 * already passed) before F, then F's round and the next, whose times must
 * keep the rule against the records before F.
 * Bytes inside a record that look like a header lead to implausible
 * records further on, and the next candidate is tried.
 *
 * Any failure of proof (no rounds within reach, a broken rule, a compressed
 * or pipe-mode file, a --threads directory, an unfinished file) answers
 * "start at the beginning": the caller reads the stream as before.
 */
#ifndef PV_TIME_SEEK_H
#define PV_TIME_SEEK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "format/perf_file.h"
#include "stream/record_walk.h"

/* What a probe found: a chain of plausible records from a boundary at or
 * after its offset, and their lowest time. */
typedef struct pv_time_probe {
    bool proven;
    uint64_t boundary;
    bool timed;
    uint64_t min_time;
    uint64_t walked;      /* bytes from the probe's offset to where it stopped */
} pv_time_probe;

/* What a round proof found, walking from a boundary it proved. */
typedef struct pv_time_round {
    bool proven;          /* a plausible chain through FINISHED_ROUNDs, or to the end */
    bool rule_broken;     /* its times break the round rule */
    uint64_t boundary;    /* the record header the chain starts at */
    /* early: start is just past a FINISHED_ROUND F, and the round after
     * F's round holds a time below time_min, so that no record before
     * start is at or past time_min; the last such F the walk met */
    bool early;
    uint64_t start;
    uint64_t early_time;  /* the time below time_min that made it so */
    uint64_t round_bytes; /* the rounds' mean length, 0 when under two were met */
    uint64_t trust_bytes; /* from boundary to just past the first FINISHED_ROUND taken */
    uint64_t walked;
} pv_time_round;

/* Whether the file's stream can be entered in the middle: one data
 * section, not pipe mode, not compressed, finished. */
bool pv_time_seek_possible(const pv_file *f);

/* A probe at offset at of the data section.  w is a walk of f, reused
 * between probes.  0, out->proven false when no chain is proven.  A read
 * error proves nothing, like a damaged record: the scan that follows from
 * the start meets it and says it.  (-1 with err is left for errors that
 * cannot wait.) */
int pv_time_probe_at(pv_file *f, pv_walk *w, uint64_t at, pv_time_probe *out, pv_error *err);
/* A round proof at offset at for a scan of times >= time_min (time_min >
 * 0: a time of 0 or ~0 is perf's "none"): a chain proven over at least 8
 * records and 64 KiB or a FINISHED_ROUND, then its FINISHED_ROUNDs and
 * their rounds' times, until a whole round has none below time_min.  As
 * pv_time_probe_at. */
int pv_time_round_at(pv_file *f, pv_walk *w, uint64_t at, uint64_t time_min, pv_time_round *out,
                     pv_error *err);

/* Where a scan for times >= time_min may start: 1 with *start a record
 * boundary past which, by the round rule, lie all the records at or past
 * time_min (a proven one, or the data section's start when the window
 * begins there); the starts proven are kept with the file and serve later
 * windows without a round proof.  0 when a proof failed (no rounds, the
 * rule broken, implausible records or a read error, a file that cannot be
 * entered in the middle): read the stream as before.  -1 as the probes. */
int pv_time_seek_start(pv_file *f, uint64_t time_min, uint64_t *start, pv_error *err);

#endif
