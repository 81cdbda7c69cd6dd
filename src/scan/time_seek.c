#include "scan/time_seek.h"

#include <stdlib.h>
#include <string.h>

#include "base/pv_array.h"
#include "decode/sample.h"
#include "format/features.h"
#include "format/perf_abi.h"
#include "base/pv_alloc.h"

/* A record is at most 64 KiB: a true boundary lies within this of any
 * offset (AUXTRACE data aside, where the proof fails). */
#define RESYNC_SPAN ((uint64_t)64 << 10)
/* Bytes read when a probe's window moves: probes skip around. */
#define PROBE_WINDOW (8u << 10)
/* A probe's chain: this many plausible records. */
#define PROBE_RECORDS 16
/* Records, and bytes, a round proof walks before it takes a FINISHED_ROUND
 * as its own: 8 records, and 64 KiB or a FINISHED_ROUND passed 4 records
 * in.  Bytes inside one record that chain like records end within 64 KiB,
 * where they land on the true next record (the chain is the true one from
 * there) or fail; a FINISHED_ROUND among them, with plausible records on
 * both sides, is rare, and two of them rarer still. */
#define RECORDS_BEFORE_ROUND 8
#define BYTES_BEFORE_ROUND (RESYNC_SPAN + 8)
/* A round proof walks at most this far (and at most 1/32 of the section);
 * rounds are far smaller in practice. */
#define ROUND_SPAN_MAX ((uint64_t)4 << 20)
/* Round proofs tried, each further back, before starting at the beginning. */
#define ROUND_ATTEMPTS 8
/* Bisection stops when the interval is this small. */
#define RESOLUTION ((uint64_t)64 << 10)

bool pv_time_seek_possible(const pv_file *f)
{
    return !f->pipe && f->nr_segments == 0 && !f->unfinished &&
           !pv_file_has_feature(f, PV_FEATURE_COMPRESSED) && f->data_section.size > 0;
}

/* Types perf record writes into the data section of a finished file. */
static bool known_type(uint32_t type)
{
    if (type >= PV_RECORD_MMAP && type <= PV_RECORD_AUX_OUTPUT_HW_ID)
        return true;
    switch (type) {
    case PV_RECORD_HEADER_BUILD_ID:
    case PV_RECORD_FINISHED_ROUND:
    case PV_RECORD_ID_INDEX:
    case PV_RECORD_AUXTRACE_INFO:
    case PV_RECORD_AUXTRACE:
    case PV_RECORD_AUXTRACE_ERROR:
    case PV_RECORD_THREAD_MAP:
    case PV_RECORD_CPU_MAP:
    case PV_RECORD_EVENT_UPDATE:
    case PV_RECORD_TIME_CONV:
    case PV_RECORD_FINISHED_INIT:
        return true;
    default:
        return false;
    }
}

/* Whether the next header of w can be a true record's, read before its
 * body: a bogus size must not cost a read of 64 KiB. */
static bool plausible_header(pv_walk *w)
{
    pv_record h;
    pv_error ignored;
    if (pv_walk_peek_header(w, &h, &ignored) != 1)
        return false;
    return h.size % 8 == 0 && known_type(h.type) && w->end_offset - h.file_offset >= h.size &&
           (h.type != PV_RECORD_FINISHED_ROUND || h.size == PV_RECORD_HEADER_SIZE);
}

/* A trailer perf record synthesized (the MMAPs, COMMs, KSYMBOLs of what ran
 * before it started, a few hundred KiB on a busy machine): its id and time
 * are 0, an id perf reads as its first event's.  Not accepted, a probe
 * landing there finds no boundary and the seek gives up. */
static bool synthesized(const pv_sample_id *id)
{
    return id->id == 0 && id->identifier == 0 && id->time == 0;
}

/* Whether rec can be a true record; *timed and *time: the time perf
 * queues it by, when it has one that is not perf's "none" (0 or ~0). */
static bool plausible(const pv_file *f, const pv_record *rec, bool *timed, uint64_t *time)
{
    *timed = false;
    if (rec->size % 8 != 0 || !known_type(rec->type))
        return false;
    if (rec->type == PV_RECORD_FINISHED_ROUND)
        return rec->size == PV_RECORD_HEADER_SIZE;
    if (rec->type >= PV_RECORD_KERNEL_TYPE_END)
        return true;
    pv_error ignored;
    pv_sample_id id;
    if (rec->type == PV_RECORD_SAMPLE) {
        pv_sample s;
        if (pv_sample_decode(f, rec, &s, &ignored) || s.attr_index < 0)
            return false;
        if (s.sample_type & PV_SAMPLE_TIME) {
            *timed = s.time != 0 && s.time != UINT64_MAX;
            *time = s.time;
        }
        return true;
    }
    if (pv_sample_id_decode(f, rec, &id, &ignored))
        return false;
    if ((id.fields & (PV_SAMPLE_ID | PV_SAMPLE_IDENTIFIER)) && id.attr_index < 0 &&
        !synthesized(&id))
        return false;
    if (id.fields & PV_SAMPLE_TIME) {
        *timed = id.time != 0 && id.time != UINT64_MAX;
        *time = id.time;
    }
    return true;
}

/* The first 8-byte-aligned offset (from the section's start) at or after at. */
static uint64_t aligned_at(const pv_file *f, uint64_t at)
{
    uint64_t begin = f->data_section.offset;
    uint64_t c = begin + ((at - begin) & ~(uint64_t)7);
    return c < at ? c + 8 : c;
}

/* The chain from candidate c: 1 when PROBE_RECORDS records (or all up to
 * the section's end) are plausible. */
static int probe_chain(pv_file *f, pv_walk *w, uint64_t c, pv_time_probe *out)
{
    pv_walk_seek(w, 0, c, 0);
    pv_record rec;
    pv_error ignored;
    unsigned n = 0;
    out->timed = false;
    while (n < PROBE_RECORDS) {
        if (w->next_offset < w->end_offset && !plausible_header(w))
            return 0;
        int rc = pv_walk_next(w, &rec, &ignored);
        if (rc < 0)
            return 0;
        if (rc == 0)
            break;
        bool timed;
        uint64_t time;
        if (!plausible(f, &rec, &timed, &time))
            return 0;
        n++;
        if (timed && (!out->timed || time < out->min_time)) {
            out->min_time = time;
            out->timed = true;
        }
    }
    if (n == 0)
        return 0;
    out->proven = true;
    out->boundary = c;
    return 1;
}

int pv_time_probe_at(pv_file *f, pv_walk *w, uint64_t at, pv_time_probe *out, pv_error *err)
{
    (void)err;
    memset(out, 0, sizeof *out);
    uint64_t begin = f->data_section.offset;
    uint64_t end = begin + f->data_section.size;
    if (at < begin || at >= end)
        return 0;
    w->window_limit = PROBE_WINDOW;
    for (uint64_t c = aligned_at(f, at); c < end && c - at <= RESYNC_SPAN; c += 8)
        if (probe_chain(f, w, c, out))
            break;
    out->walked = w->next_offset > at ? w->next_offset - at : 0;
    if (!out->proven)
        memset(out, 0, sizeof *out);
    return 0;
}

/* The round proof from candidate c (see pv_time_round_at): 1 when the
 * chain is plausible as far as it had to go.  Rounds are numbered by the
 * FINISHED_ROUNDs the chain takes as its own: F1, F2, ...; a time below
 * time_min in the round after F(k+1) makes the place past Fk a start. */
static int round_chain(pv_file *f, pv_walk *w, uint64_t c, uint64_t time_min, uint64_t span,
                       pv_time_round *out)
{
    pv_walk_seek(w, 0, c, 0);
    uint64_t limit = w->end_offset - c < span ? w->end_offset : c + span;
    unsigned records = 0, rounds = 0;     /* rounds: FINISHED_ROUNDs taken */
    uint64_t past_previous = 0, past_last = 0;  /* just past F(k-1), Fk */
    uint64_t first_past = 0;                     /* just past F1 */
    bool passed_round = false;    /* a FINISHED_ROUND not trusted, 4 records in */
    /* the highest time before F(k-1) and before Fk: the round rule's floor
     * for the round after Fk is the first */
    bool floor_known = false, high_known = false, now_known = false;
    uint64_t floor = 0, high = 0, now = 0;
    bool round_early = false;             /* the current round has a time below time_min */
    bool at_end = false;
    pv_record rec;
    pv_error ignored;
    memset(out, 0, sizeof *out);
    while (w->next_offset < limit) {
        if (!plausible_header(w))
            return 0;
        int rc = pv_walk_next(w, &rec, &ignored);
        if (rc < 0)
            return 0;
        if (rc == 0) {
            at_end = true;
            break;
        }
        bool timed;
        uint64_t time;
        if (!plausible(f, &rec, &timed, &time))
            return 0;
        records++;
        if (rec.type == PV_RECORD_FINISHED_ROUND) {
            if (rounds == 0 && (records <= RECORDS_BEFORE_ROUND ||
                                (rec.file_offset - c < BYTES_BEFORE_ROUND && !passed_round))) {
                passed_round = records > RECORDS_BEFORE_ROUND / 2;
                continue;     /* too close to the candidate to be trusted */
            }
            /* a whole round without an early time: starts further on are
             * not to be looked for */
            if (rounds >= 2 && !round_early)
                break;
            rounds++;
            if (rounds == 1)
                first_past = w->next_offset;
            past_previous = past_last;
            past_last = w->next_offset;
            floor = high;
            floor_known = high_known;
            high = now;
            high_known = now_known;
            round_early = false;
            continue;
        }
        if (!timed)
            continue;
        if (!now_known || time > now)
            now = time;
        now_known = true;
        if (rounds >= 2 && floor_known && time < floor) {
            out->rule_broken = true;      /* below what perf has flushed */
            break;
        }
        if (time < time_min) {
            round_early = true;
            if (rounds >= 2 && (!out->early || out->start != past_previous)) {
                out->early = true;
                out->start = past_previous;
                out->early_time = time;
            }
        }
    }
    at_end = at_end || w->next_offset >= w->end_offset;
    /* no round of its own in reach, and not for lack of stream */
    if (rounds == 0 && !at_end)
        return 0;
    out->proven = true;
    out->boundary = c;
    out->walked = w->next_offset - c;
    if (rounds >= 2)
        out->round_bytes = (past_last - first_past) / (rounds - 1);
    out->trust_bytes = rounds ? first_past - c : out->walked;
    return 1;
}

int pv_time_round_at(pv_file *f, pv_walk *w, uint64_t at, uint64_t time_min, pv_time_round *out,
                     pv_error *err)
{
    (void)err;
    memset(out, 0, sizeof *out);
    uint64_t begin = f->data_section.offset;
    uint64_t end = begin + f->data_section.size;
    if (at < begin || at >= end)
        return 0;
    uint64_t span = f->data_section.size / 32 < ROUND_SPAN_MAX ? f->data_section.size / 32
                                                                 : ROUND_SPAN_MAX;
    if (span < 2 * RESYNC_SPAN)
        span = 2 * RESYNC_SPAN;
    w->window_limit = PROBE_WINDOW;
    for (uint64_t c = aligned_at(f, at); c < end && c - at <= RESYNC_SPAN; c += 8) {
        if (round_chain(f, w, c, time_min, span, out))
            break;
        /* a chain that ran out of reach without a bad record is the true
         * one, in a stream without rounds here: stop trying */
        if (w->next_offset - c >= span)
            break;
    }
    if (!out->proven)
        memset(out, 0, sizeof *out);
    return 0;
}

/* The starts proven so far in a file, kept with it: a later window seeks
 * with its probes alone when one of them fits.  A start is good for any
 * time_min above its early time. */
typedef struct proven_start {
    uint64_t start, early_time;
} proven_start;

typedef struct proven_starts {
    proven_start *items;
    size_t nr, capacity;
} proven_starts;

static const char proven_starts_key;

static void free_proven_starts(void *p)
{
    proven_starts *ps = p;
    free(ps->items);
    free(ps);
}

static proven_starts *kept_starts(pv_file *f)
{
    void *kept;
    if (pv_file_state_get(f, &proven_starts_key, &kept))
        return kept;
    proven_starts *ps = pv_calloc(1, sizeof *ps);
    pv_error ignored;
    if (!ps || pv_file_state_set(f, &proven_starts_key, ps, free_proven_starts, &ignored)) {
        free(ps);
        return NULL;    /* nothing kept: every window proves its own */
    }
    return ps;
}

static void keep_start(proven_starts *ps, uint64_t start, uint64_t early_time)
{
    if (ps && pv_array_grow((void **)&ps->items, &ps->capacity, ps->nr + 1, sizeof *ps->items))
        ps->items[ps->nr++] = (proven_start){start, early_time};
}

/* The latest kept start good for time_min, if it is no earlier than from. */
static bool kept_start_for(const proven_starts *ps, uint64_t time_min, uint64_t from,
                           uint64_t *start)
{
    bool found = false;
    for (size_t i = 0; ps && i < ps->nr; i++)
        if (ps->items[i].early_time < time_min && ps->items[i].start >= from &&
            (!found || ps->items[i].start > *start)) {
            *start = ps->items[i].start;
            found = true;
        }
    return found;
}

int pv_time_seek_start(pv_file *f, uint64_t time_min, uint64_t *start, pv_error *err)
{
    uint64_t begin = f->data_section.offset;
    *start = begin;
    if (!pv_time_seek_possible(f) || time_min == 0 || time_min == UINT64_MAX)
        return 0;
    pv_walk w;
    pv_walk_start(&w, f);
    int rc = 1;
    /* Bisect for the last place whose records are timed below time_min:
     * records there only steer, the round proof below decides. */
    uint64_t lo = begin, hi = begin + f->data_section.size;
    while (hi - lo > RESOLUTION) {
        uint64_t mid = lo + (((hi - lo) / 2) & ~(uint64_t)7);
        pv_time_probe p;
        if (pv_time_probe_at(f, &w, mid, &p, err)) {
            rc = -1;
            break;
        }
        if (!p.proven) {
            rc = 0;
            break;
        }
        if (p.timed && p.min_time < time_min)
            lo = mid;
        else
            hi = mid;
    }
    /* Then from a little before there, further back each time, until a
     * round is proven early enough; or a start an earlier window proved. */
    uint64_t step = RESOLUTION + RESYNC_SPAN / 2;
    uint64_t at = lo - begin > step ? lo - step : begin;
    proven_starts *kept = rc == 1 ? kept_starts(f) : NULL;
    bool found = kept && at > begin && kept_start_for(kept, time_min, at - step, start);
    for (int attempt = 0; rc == 1 && !found && at > begin && attempt < ROUND_ATTEMPTS; attempt++) {
        pv_time_round r;
        if (pv_time_round_at(f, &w, at, time_min, &r, err)) {
            rc = -1;
            break;
        }
        if (!r.proven || r.rule_broken) {
            rc = 0;
            break;
        }
        if (r.early) {
            *start = r.start;
            keep_start(kept, r.start, r.early_time);
            found = true;
        }
        /* back by what it took to trust a FINISHED_ROUND and about three
         * of the rounds seen; further each time it is not enough */
        uint64_t rounds_back = r.trust_bytes + 3 * r.round_bytes + RESOLUTION;
        step = attempt == 0 ? rounds_back : (2 * step > rounds_back ? 2 * step : rounds_back);
        at = at - begin > step ? at - step : begin;
    }
    pv_walk_end(&w);
    if (rc <= 0)
        *start = begin;
    return rc;
}
