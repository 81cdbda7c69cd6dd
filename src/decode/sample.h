/*
 * PERF_RECORD_SAMPLE and the sample_id_all trailer of other records.
 *
 * A sample's body is the fields its event's sample_type selects, in the
 * kernel's order (see pv_sample_decode).  Arrays and blobs are not copied:
 * they point into the record bytes and are read with pv_load_u64, which
 * handles byte order.
 */
#ifndef PV_SAMPLE_H
#define PV_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "format/record_reader.h"
#include "base/byte_reader.h"
#include "base/pv_strbuf.h"
#include "stream/record_walk.h"

typedef struct pv_sample_regs {
    uint64_t abi;          /* PERF_SAMPLE_REGS_ABI_*, 0 = none recorded */
    uint64_t mask;         /* which registers: attr.sample_regs_user/intr */
    uint64_t nr;
    const uint8_t *values; /* nr u64 */
} pv_sample_regs;

/* Which form of perf 6.14+'s offcpu-time sample (format/offcpu_event.h)
 * a sample is, once its raw data has been read. */
typedef enum pv_sample_offcpu {
    PV_SAMPLE_OFFCPU_NONE,      /* not such a sample */
    PV_SAMPLE_OFFCPU_DIRECT,    /* written as the interval ended: time is its end */
    PV_SAMPLE_OFFCPU_SUMMED,    /* a sum written when the recording ended */
    PV_SAMPLE_OFFCPU_UNREADABLE /* its raw data holds no such fields: left as recorded */
} pv_sample_offcpu;

typedef struct pv_sample {
    int attr_index;        /* the event, or -1 if its id matches no event */
    uint64_t sample_type;  /* fields present */
    bool swap;
    uint16_t misc;
    uint64_t record_index; /* the record's ordinal (pv_record.index) */

    uint64_t identifier;
    uint64_t ip;
    uint32_t pid, tid;
    uint64_t time;
    uint64_t addr;
    uint64_t id;
    uint64_t stream_id;
    uint32_t cpu;
    /* PERIOD, or as perf reports it when the sample has none: the event's
     * fixed attr.sample_period; has_period is false only in freq mode
     * without PERIOD, where no period is known */
    uint64_t period;
    bool has_period;

    uint64_t read_format;
    const uint8_t *read;   /* the read block, read_size bytes */
    uint64_t read_size;

    uint64_t callchain_nr;
    const uint8_t *callchain;

    uint32_t raw_size;
    const uint8_t *raw;

    uint64_t branch_nr;
    /* the event samples BRANCH_STACK with branch_sample_type CALL_STACK
     * (--call-graph lbr): the branch stack is the user call stack */
    bool branch_call_stack;
    bool has_branch_hw_idx;
    uint64_t branch_hw_idx;
    const uint8_t *branches;   /* branch_nr entries of {from, to, flags} */
    /* branch_sample_type has PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8): one
     * u64 per entry after them, the counts of up to branch_counter_nr
     * events (the PMU's caps) in fields of branch_counter_width bits */
    bool has_branch_counters;
    const uint8_t *branch_counters;    /* branch_nr u64 */

    pv_sample_regs regs_user;
    uint64_t stack_user_size;
    const uint8_t *stack_user;
    uint64_t stack_user_dyn_size;

    uint64_t weight;       /* WEIGHT, or WEIGHT_STRUCT's full u64 */
    uint64_t data_src;
    uint64_t transaction;
    pv_sample_regs regs_intr;
    uint64_t phys_addr;
    uint64_t cgroup;
    uint64_t data_page_size;
    uint64_t code_page_size;
    uint64_t aux_size;
    const uint8_t *aux;

    /* perf 6.14+'s offcpu-time samples: pid, tid, period, ip, callchain
     * and cgroup above are the ones the raw data holds, not the BPF
     * output's own (pv_sample_decode says how); offcpu_problem says why
     * an UNREADABLE one's raw data was not read (static text). */
    pv_sample_offcpu offcpu;
    const char *offcpu_problem;
} pv_sample;

/* The identity of a record: which event, task, time and cpu it is of.
 * pv_sample_id_decode reads it from the sample_id_all trailer of a record
 * other than SAMPLE (types below 64); pv_record_identity_decode reads it
 * from any record, a SAMPLE's from the sample itself. */
typedef struct pv_sample_id {
    int attr_index;
    uint64_t fields;       /* the PV_SAMPLE_ID_FIELDS bits it holds */
    uint32_t pid, tid;
    uint64_t time;
    uint64_t id;
    uint64_t stream_id;
    uint32_t cpu;
    uint64_t identifier;
    uint64_t size;         /* bytes of trailer at the record's end */
} pv_sample_id;

/* The sample_type bits that make a record's identity, in a trailer. */
#define PV_SAMPLE_ID_FIELDS (PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_ID | \
                             PV_SAMPLE_STREAM_ID | PV_SAMPLE_CPU | PV_SAMPLE_IDENTIFIER)

/* The event (attr index) a record belongs to; -1 if its id is unknown. */
int pv_record_attr_index(const pv_file *f, const pv_record *rec);
/* Whether every SAMPLE of f is its first event's (attr_index 0): one
 * event, or samples without an id. */
static inline bool pv_samples_one_event(const pv_file *f)
{
    return f->nr_attrs == 1 || f->sample_id_word < 0;
}
/* pv_record_attr_index of a SAMPLE (rec->type PV_RECORD_SAMPLE): inline, as a scan
 * of a column or two asks it of every row. */
static inline int pv_sample_attr_index(const pv_file *f, const pv_record *rec)
{
    if (pv_samples_one_event(f))
        return 0;
    uint64_t body = (uint64_t)rec->size - PV_RECORD_HEADER_SIZE;
    uint64_t at = (uint64_t)f->sample_id_word * 8;
    if (body < at || body - at < 8)
        return -1;
    return pv_file_attr_for_id(f, pv_load_u64(rec->bytes + PV_RECORD_HEADER_SIZE + at, f->swap));
}

/* Where every SAMPLE of f holds its id's word (an offset in the record,
 * header included) for pv_sample_attr_index_dense: where the file has
 * several events, a dense table of ids and its own byte order; else 0. */
uint16_t pv_sample_dense_id_at(const pv_file *f);
/* pv_sample_attr_index of rec, a SAMPLE of at least id_at + 8 bytes, id_at
 * from pv_sample_dense_id_at: the id's word looked up in the table, no
 * call. */
static inline int pv_sample_attr_index_dense(const pv_file *f, const pv_record *rec, uint16_t id_at)
{
    uint64_t k = pv_load_u64(rec->bytes + id_at, false) - f->id_base;
    return k < f->nr_id_dense ? f->id_dense[k] : -1;
}

int pv_sample_decode(const pv_file *f, const pv_record *rec, pv_sample *s, pv_error *err);
/* Only the fields at fixed places (identifier, ip, pid/tid, time, addr, id,
 * stream_id, cpu, period) and attr_index/sample_type: what most queries
 * read, without the cost of the rest.  Other fields are not set.  A
 * sample of perf 6.14+'s offcpu-time event is decoded whole: some of
 * those fields come from its raw data. */
int pv_sample_decode_fixed(const pv_file *f, const pv_record *rec, pv_sample *s, pv_error *err);

/* The fields at fixed places, one at a time: a scan that reads a column
 * or two (count(*), sum(period)) reads those words and no others. */
typedef enum pv_fixed_field {
    PV_FIELD_IDENTIFIER, PV_FIELD_IP, PV_FIELD_PID, PV_FIELD_TID, PV_FIELD_TIME, PV_FIELD_ADDR,
    PV_FIELD_ID, PV_FIELD_STREAM_ID, PV_FIELD_CPU, PV_FIELD_PERIOD, PV_FIXED_FIELDS
} pv_fixed_field;

/* Where an event's samples hold each fixed field, worked out once per
 * event (pv_sample_places_init). */
typedef struct pv_sample_places {
    uint16_t at[PV_FIXED_FIELDS];   /* offset in the record (header included); 0: not sampled */
    uint16_t end;                   /* a record shorter than this is cut */
    bool has_period;                /* as pv_sample.has_period */
    uint64_t period;                /* the event's own when PERIOD is not sampled */
    bool embedded;                  /* perf 6.14+'s offcpu-time: only the full decode knows */
} pv_sample_places;

void pv_sample_places_init(const pv_file *f, size_t attr_index, pv_sample_places *p);

/* The word of a fixed field at offset at of rec (pv_sample_places.at, in
 * the record), of 8 bytes or (pid, tid, cpu) 4, as pv_sample_field reads it. */
static inline uint64_t pv_sample_word(const pv_file *f, const pv_record *rec, uint16_t at,
                                      bool wide)
{
    return wide ? pv_load_u64(rec->bytes + at, f->swap) : pv_load_u32(rec->bytes + at, f->swap);
}

/* The field of rec (a SAMPLE of the event places describes) as
 * pv_sample_decode_fixed reads it: 1 *value set; 0 the event does not
 * sample it (NULL; period: none known); -1 the record is too short, or
 * its fields are in its raw data (places.embedded): pv_sample_decode_fixed
 * gives the error or the value. */
static inline int pv_sample_field(const pv_file *f, const pv_record *rec,
                                  const pv_sample_places *p, pv_fixed_field field,
                                  uint64_t *value)
{
    if (rec->size < p->end || p->embedded)
        return -1;
    uint16_t at = p->at[field];
    if (at == 0) {
        if (field != PV_FIELD_PERIOD || !p->has_period)
            return 0;
        *value = p->period;
        return 1;
    }
    *value = pv_sample_word(f, rec, at,
                            field != PV_FIELD_PID && field != PV_FIELD_TID && field != PV_FIELD_CPU);
    return 1;
}

/* Decodes the trailer of a kernel record other than SAMPLE.  A record
 * without a trailer (sample_id_all off, or a user record type) gives
 * fields == 0. */
int pv_sample_id_decode(const pv_file *f, const pv_record *rec, pv_sample_id *out, pv_error *err);

/* The identity of any record: a SAMPLE's from the sample (decoded whole,
 * so that a malformed one is an error here too; attr_index -1 and no
 * fields when its id names no event), another kernel record's from its
 * trailer as pv_sample_id_decode reads it.  size is 0 for a SAMPLE. */
int pv_record_identity_decode(const pv_file *f, const pv_record *rec, pv_sample_id *out,
                              pv_error *err);
/* The same as the tables' columns read it: a SAMPLE's from its fields at
 * fixed places alone (pv_sample_decode_fixed), so that a sample whose
 * callchain or other later field does not decode keeps the time, pid, tid,
 * cpu and event its columns show; -1 only when those fields are cut, as
 * the columns then fail.  What the reader filters and indexes records by:
 * it must fail no read that the columns alone would not. */
int pv_record_identity_fixed(const pv_file *f, const pv_record *rec, pv_sample_id *out,
                             pv_error *err);

/* Where a SAMPLE of this sample_type holds its TIME (an offset in the
 * record, header included), or 0 when it samples no TIME. */
uint64_t pv_sample_time_offset(uint64_t sample_type);

/* The TIME word of a SAMPLE at offset at (pv_sample_time_offset of its
 * event); false when the record ends before it. */
static inline bool pv_sample_time_at(const pv_file *f, const pv_record *rec, uint64_t at,
                                     uint64_t *time)
{
    if (at == 0 || rec->size < at || rec->size - at < 8)
        return false;
    *time = pv_load_u64(rec->bytes + at, f->swap);
    return true;
}

/* Only a record's time, as perf reads it to queue the record: a SAMPLE's
 * TIME field, another kernel record's trailer time; *has_time false for
 * user records and records whose event does not sample TIME.  Cheaper than
 * the identity for a SAMPLE (one word read); -1 on a record too short. */
int pv_record_time(const pv_file *f, const pv_record *rec, bool *has_time, uint64_t *time,
                   pv_error *err);

/* Decodes a kernel record's trailer and opens *body over what lies between
 * the header and the trailer: the start of every non-sample decoder. */
int pv_record_body(const pv_file *f, const pv_record *rec, pv_sample_id *trailer,
                   pv_byte_reader *body, pv_error *err);
/* Opens a typed decoder's reader over a kernel record's body, its trailer
 * decoded into *trailer (format/record_reader.h).  A file without events (a
 * pipe cut before its first HEADER_ATTR) has no sample_type to say what a
 * trailer holds: the whole body is read, and trailer has no fields. */
int pv_rec_open(pv_rec_reader *r, const pv_file *f, const pv_record *rec, pv_sample_id *trailer,
                pv_error *err);

/* The u64 at index i of an array in file bytes. */
static inline uint64_t pv_sample_u64_at(const pv_sample *s, const uint8_t *array, uint64_t i)
{
    return pv_load_u64(array + i * 8, s->swap);
}

/* JSON renderings of the structured fields. */
void pv_sample_callchain_json(const pv_sample *s, pv_strbuf *out);
void pv_sample_branch_stack_json(const pv_sample *s, pv_strbuf *out);
void pv_sample_read_json(const pv_sample *s, pv_strbuf *out);
void pv_sample_regs_json(const pv_sample *s, const pv_sample_regs *regs, pv_strbuf *out);

#endif
