#include "decode/sample.h"

#include <string.h>

#include "format/offcpu_event.h"
#include "format/perf_abi.h"
#include "base/byte_reader.h"

int pv_record_attr_index(const pv_file *f, const pv_record *rec)
{
    if (rec->type == PV_RECORD_SAMPLE)
        return pv_sample_attr_index(f, rec);
    if (f->nr_attrs == 1)
        return 0;
    uint64_t body = (uint64_t)rec->size - PV_RECORD_HEADER_SIZE;
    uint64_t id;
    if (rec->type < PV_RECORD_KERNEL_TYPE_END &&
               pv_attr_flag(&f->attrs[0], PV_ATTR_SAMPLE_ID_ALL)) {
        if (f->trailer_id_word < 0)
            return 0;
        uint64_t back = (uint64_t)f->trailer_id_word * 8;
        if (body < back)
            return -1;
        id = pv_load_u64(rec->bytes + rec->size - back, f->swap);
    } else {
        return 0;
    }
    return pv_file_attr_for_id(f, id);
}

static int overflow(const pv_file *f, const pv_record *rec, const pv_byte_reader *c, const char *field,
                    pv_error *err)
{
    return pv_error_set(err, "%s: sample at offset 0x%llx (size %u): %s at offset 0x%llx "
                        "goes past the end of the record",
                        f->data_path, (unsigned long long)rec->file_offset, rec->size, field,
                        (unsigned long long)c->fail_offset);
}

/* An array of nr elements of elem bytes, nr checked against what is left
 * before any multiplication. */
static const uint8_t *take_array(pv_byte_reader *c, uint64_t nr, uint64_t elem)
{
    if (c->failed)
        return NULL;
    if (nr > pv_bytes_left(c) / elem) {
        c->failed = true;
        c->fail_offset = pv_bytes_offset(c);
        return NULL;
    }
    return pv_bytes_take(c, nr * elem);
}

static int decode_regs(pv_byte_reader *c, uint64_t mask, pv_sample_regs *regs)
{
    regs->abi = pv_bytes_u64(c);
    regs->mask = mask;
    regs->nr = 0;
    regs->values = NULL;
    if (c->failed)
        return -1;
    if (regs->abi != 0) {
        regs->nr = (uint64_t)__builtin_popcountll(mask);
        regs->values = take_array(c, regs->nr, 8);
        if (!regs->values && regs->nr)
            return -1;
    }
    return 0;
}

/* The read block's size, from read_format, validated against the record. */
static int decode_read(pv_byte_reader *c, uint64_t read_format, pv_sample *s)
{
    uint64_t start = c->pos;
    uint64_t per_value = 8 + ((read_format & PV_FORMAT_ID) ? 8 : 0) +
                         ((read_format & PV_FORMAT_LOST) ? 8 : 0);
    int times = ((read_format & PV_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) +
                ((read_format & PV_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
    if (read_format & PV_FORMAT_GROUP) {
        uint64_t nr = pv_bytes_u64(c);
        pv_bytes_skip(c, (uint64_t)times * 8);
        if (!take_array(c, nr, per_value) && nr)
            return -1;
    } else {
        pv_bytes_skip(c, (uint64_t)times * 8 + per_value);
    }
    if (c->failed)
        return -1;
    s->read = c->data + start;
    s->read_size = c->pos - start;
    return 0;
}

/* The sample_type bits of the fields at fixed places, one u64 word each. */
#define FIXED_FIELDS (PV_SAMPLE_IDENTIFIER | PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_TIME | \
                      PV_SAMPLE_ADDR | PV_SAMPLE_ID | PV_SAMPLE_STREAM_ID | PV_SAMPLE_CPU | \
                      PV_SAMPLE_PERIOD)
#define FIXED_FIELDS_MAX_BYTES (9 * 8)

/* The fixed fields from p, known to hold all of them; period only when
 * sampled (the caller sets the event's otherwise).  Returns the end. */
static const uint8_t *decode_fixed_words(const uint8_t *p, uint64_t t, bool swap, pv_sample *s)
{
    s->identifier = 0;
    if (t & PV_SAMPLE_IDENTIFIER) { s->identifier = pv_load_u64(p, swap); p += 8; }
    s->ip = 0;
    if (t & PV_SAMPLE_IP) { s->ip = pv_load_u64(p, swap); p += 8; }
    s->pid = s->tid = 0;
    if (t & PV_SAMPLE_TID) {
        s->pid = pv_load_u32(p, swap);
        s->tid = pv_load_u32(p + 4, swap);
        p += 8;
    }
    s->time = 0;
    if (t & PV_SAMPLE_TIME) { s->time = pv_load_u64(p, swap); p += 8; }
    s->addr = 0;
    if (t & PV_SAMPLE_ADDR) { s->addr = pv_load_u64(p, swap); p += 8; }
    s->id = 0;
    if (t & PV_SAMPLE_ID) { s->id = pv_load_u64(p, swap); p += 8; }
    s->stream_id = 0;
    if (t & PV_SAMPLE_STREAM_ID) { s->stream_id = pv_load_u64(p, swap); p += 8; }
    s->cpu = 0;
    if (t & PV_SAMPLE_CPU) { s->cpu = pv_load_u32(p, swap); p += 8; }
    if (t & PV_SAMPLE_PERIOD) { s->period = pv_load_u64(p, swap); p += 8; }
    return p;
}

/* The fields at fixed places after the header, in the kernel's order;
 * the reader is left after them.  Every field this sets is set, to 0 when
 * absent, so that a caller may skip clearing the whole sample. */
static int decode_fixed(const pv_file *f, const pv_record *rec, pv_sample *s, pv_byte_reader *c,
                        pv_error *err)
{
    s->swap = f->swap;
    s->misc = rec->misc;
    s->record_index = rec->index;
    s->attr_index = pv_record_attr_index(f, rec);
    s->sample_type = 0;
    s->has_period = false;
    if (s->attr_index < 0)
        return 0;
    const pv_attr *a = &f->attrs[s->attr_index];
    uint64_t t = a->sample_type;
    s->sample_type = t;
    s->read_format = a->read_format;
    pv_byte_reader_init(c, rec->bytes + PV_RECORD_HEADER_SIZE,
                        (uint64_t)rec->size - PV_RECORD_HEADER_SIZE,
                        rec->file_offset + PV_RECORD_HEADER_SIZE, f->swap);
    /* Each fixed field is one u64 word: when the record holds them all,
     * they are read without a bounds check per field (a scan decodes
     * every sample).  A short record takes the byte reader's way, which names
     * where it ends. */
    uint64_t left = pv_bytes_left(c);
    if (left >= FIXED_FIELDS_MAX_BYTES ||
        left >= 8 * (uint64_t)__builtin_popcountll(t & FIXED_FIELDS)) {
        const uint8_t *after = decode_fixed_words(c->data, t, f->swap, s);
        pv_bytes_skip(c, (uint64_t)(after - c->data));
        s->has_period = (t & PV_SAMPLE_PERIOD) || !pv_attr_flag(a, PV_ATTR_FREQ);
        if (!(t & PV_SAMPLE_PERIOD))
            s->period = s->has_period ? a->sample_period : 0;
        return 0;
    }
    s->identifier = (t & PV_SAMPLE_IDENTIFIER) ? pv_bytes_u64(c) : 0;
    s->ip = (t & PV_SAMPLE_IP) ? pv_bytes_u64(c) : 0;
    s->pid = s->tid = 0;
    if (t & PV_SAMPLE_TID) { s->pid = pv_bytes_u32(c); s->tid = pv_bytes_u32(c); }
    s->time = (t & PV_SAMPLE_TIME) ? pv_bytes_u64(c) : 0;
    s->addr = (t & PV_SAMPLE_ADDR) ? pv_bytes_u64(c) : 0;
    s->id = (t & PV_SAMPLE_ID) ? pv_bytes_u64(c) : 0;
    s->stream_id = (t & PV_SAMPLE_STREAM_ID) ? pv_bytes_u64(c) : 0;
    s->cpu = 0;
    if (t & PV_SAMPLE_CPU) { s->cpu = pv_bytes_u32(c); pv_bytes_u32(c); }
    s->has_period = (t & PV_SAMPLE_PERIOD) || !pv_attr_flag(a, PV_ATTR_FREQ);
    s->period = (t & PV_SAMPLE_PERIOD) ? pv_bytes_u64(c) : s->has_period ? a->sample_period : 0;
    if (c->failed)
        return overflow(f, rec, c, "fixed fields", err);
    return 0;
}

void pv_sample_places_init(const pv_file *f, size_t attr_index, pv_sample_places *p)
{
    const pv_attr *a = &f->attrs[attr_index];
    uint64_t t = a->sample_type;
    /* the kernel's order, as decode_fixed_words reads them */
    static const struct { uint64_t bit; pv_fixed_field field, second; } order[] = {
        { PV_SAMPLE_IDENTIFIER, PV_FIELD_IDENTIFIER, PV_FIXED_FIELDS },
        { PV_SAMPLE_IP, PV_FIELD_IP, PV_FIXED_FIELDS },
        { PV_SAMPLE_TID, PV_FIELD_PID, PV_FIELD_TID },
        { PV_SAMPLE_TIME, PV_FIELD_TIME, PV_FIXED_FIELDS },
        { PV_SAMPLE_ADDR, PV_FIELD_ADDR, PV_FIXED_FIELDS },
        { PV_SAMPLE_ID, PV_FIELD_ID, PV_FIXED_FIELDS },
        { PV_SAMPLE_STREAM_ID, PV_FIELD_STREAM_ID, PV_FIXED_FIELDS },
        { PV_SAMPLE_CPU, PV_FIELD_CPU, PV_FIXED_FIELDS },
        { PV_SAMPLE_PERIOD, PV_FIELD_PERIOD, PV_FIXED_FIELDS },
    };
    memset(p, 0, sizeof *p);
    uint16_t at = PV_RECORD_HEADER_SIZE;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (!(t & order[i].bit))
            continue;
        p->at[order[i].field] = at;
        if (order[i].second != PV_FIXED_FIELDS)
            p->at[order[i].second] = at + 4;
        at += 8;
    }
    p->end = at;
    p->has_period = (t & PV_SAMPLE_PERIOD) || !pv_attr_flag(a, PV_ATTR_FREQ);
    p->period = p->has_period && !(t & PV_SAMPLE_PERIOD) ? a->sample_period : 0;
    p->embedded = a->offcpu_embedded;
}

int pv_sample_decode_fixed(const pv_file *f, const pv_record *rec, pv_sample *s, pv_error *err)
{
    pv_byte_reader c;
    if (decode_fixed(f, rec, s, &c, err))
        return -1;
    s->offcpu = PV_SAMPLE_OFFCPU_NONE;
    /* its pid, tid, ip and period are in its raw data */
    if (s->attr_index >= 0 && f->attrs[s->attr_index].offcpu_embedded)
        return pv_sample_decode(f, rec, s, err);
    return 0;
}

#define MISC_USER 2u    /* PERF_RECORD_MISC_USER */

/*
 * perf 6.14+'s offcpu-time sample (format/offcpu_event.h): the fields its
 * raw data holds take the place of the BPF output's own, as perf's evsel.c
 * (__set_offcpu_sample) does.  The raw data, u64 words in the writer's
 * byte order from just after the u32 size:
 *
 *   tasks    two u32 halves of one u64 (below)
 *   period   the off-CPU time, ns
 *   nr       then nr ips: PERF_CONTEXT_USER and the blocked task's user stack
 *   cgroup   its cgroup id
 *
 * A direct sample, which the BPF program (off_cpu.bpf.c, off_cpu_dump)
 * writes as an interval longer than --off-cpu-thresh ends, packs tasks as
 * tgid << 32 | tid; the sums perf writes at the end (bpf_off_cpu.c,
 * off_cpu_write; time PV_OFFCPU_SUMMED_TIME and up) pack tid << 32 | tgid.
 * perf reads both alike (the low u32 as pid, on a little-endian machine),
 * which swaps pid and tid of the direct ones; perfvtab reads each as its
 * writer packed it.  The sample's own ip is the stack's first frame, and
 * its cpumode user (the stack is the user stack).  Raw data too short for
 * these is left as recorded (offcpu_problem says why).
 */
static void take_offcpu_fields(pv_sample *s)
{
    pv_byte_reader c;
    pv_byte_reader_init(&c, s->raw, s->raw_size, 0, s->swap);
    uint64_t tasks = pv_bytes_u64(&c);
    uint64_t period = pv_bytes_u64(&c);
    uint64_t nr = pv_bytes_u64(&c);
    bool chain_fits = !c.failed && nr <= pv_bytes_left(&c) / 8;
    const uint8_t *ips = take_array(&c, nr, 8);
    uint64_t cgroup = pv_bytes_u64(&c);
    if (c.failed) {
        s->offcpu = PV_SAMPLE_OFFCPU_UNREADABLE;
        s->offcpu_problem = chain_fits ? "its raw data ends before the task, period, callchain "
                                         "and cgroup that perf 6.14+ write there"
                                       : "its raw data is shorter than the task, period and "
                                         "callchain that perf 6.14+ write there";
        return;
    }
    bool summed = (s->sample_type & PV_SAMPLE_TIME) ? s->time >= PV_OFFCPU_SUMMED_TIME
                                                    : (s->misc & PV_MISC_CPUMODE_MASK) == MISC_USER;
    s->offcpu = summed ? PV_SAMPLE_OFFCPU_SUMMED : PV_SAMPLE_OFFCPU_DIRECT;
    uint32_t high = (uint32_t)(tasks >> 32), low = (uint32_t)tasks;
    s->pid = summed ? low : high;
    s->tid = summed ? high : low;
    s->period = period;
    s->has_period = true;
    s->callchain_nr = nr;
    s->callchain = ips;
    /* ips[0] is PERF_CONTEXT_USER: the first frame follows (none: 0) */
    s->ip = nr >= 2 ? pv_sample_u64_at(s, ips, 1) : 0;
    s->cgroup = cgroup;
    s->misc = (uint16_t)((s->misc & ~PV_MISC_CPUMODE_MASK) | MISC_USER);
    s->sample_type |= PV_SAMPLE_TID | PV_SAMPLE_PERIOD | PV_SAMPLE_IP | PV_SAMPLE_CALLCHAIN;
}

int pv_sample_decode(const pv_file *f, const pv_record *rec, pv_sample *s, pv_error *err)
{
    memset(s, 0, sizeof *s);
    pv_byte_reader c;
    if (decode_fixed(f, rec, s, &c, err))
        return -1;
    if (s->attr_index < 0)
        return 0;
    const pv_attr *a = &f->attrs[s->attr_index];
    uint64_t t = s->sample_type;

    if ((t & PV_SAMPLE_READ) && decode_read(&c, a->read_format, s))
        return overflow(f, rec, &c, "read values", err);
    if (t & PV_SAMPLE_CALLCHAIN) {
        s->callchain_nr = pv_bytes_u64(&c);
        s->callchain = take_array(&c, s->callchain_nr, 8);
        if (c.failed)
            return overflow(f, rec, &c, "callchain", err);
    }
    if (t & PV_SAMPLE_RAW) {
        /* u32 size then size bytes; size includes the padding that keeps
         * the record u64-aligned. */
        s->raw_size = pv_bytes_u32(&c);
        s->raw = pv_bytes_take(&c, s->raw_size);
        if (c.failed)
            return overflow(f, rec, &c, "raw data", err);
    }
    if (t & PV_SAMPLE_BRANCH_STACK) {
        s->branch_nr = pv_bytes_u64(&c);
        s->branch_call_stack = (a->branch_sample_type & PV_BRANCH_CALL_STACK) != 0;
        /* hw_idx sits between nr and the entries, only when requested. */
        if (a->branch_sample_type & PV_BRANCH_HW_INDEX) {
            s->has_branch_hw_idx = true;
            s->branch_hw_idx = pv_bytes_u64(&c);
        }
        s->branches = take_array(&c, s->branch_nr, 24);
        if (a->branch_sample_type & PV_BRANCH_COUNTERS) {
            s->has_branch_counters = true;
            s->branch_counters = take_array(&c, s->branch_nr, 8);
        }
        if (c.failed)
            return overflow(f, rec, &c, "branch stack", err);
    }
    if ((t & PV_SAMPLE_REGS_USER) && decode_regs(&c, a->sample_regs_user, &s->regs_user))
        return overflow(f, rec, &c, "user registers", err);
    if (t & PV_SAMPLE_STACK_USER) {
        s->stack_user_size = pv_bytes_u64(&c);
        s->stack_user = take_array(&c, s->stack_user_size, 1);
        if (s->stack_user_size != 0)
            s->stack_user_dyn_size = pv_bytes_u64(&c);
        if (c.failed)
            return overflow(f, rec, &c, "user stack", err);
    }
    if (t & (PV_SAMPLE_WEIGHT | PV_SAMPLE_WEIGHT_STRUCT)) s->weight = pv_bytes_u64(&c);
    if (t & PV_SAMPLE_DATA_SRC) s->data_src = pv_bytes_u64(&c);
    if (t & PV_SAMPLE_TRANSACTION) s->transaction = pv_bytes_u64(&c);
    if (c.failed)
        return overflow(f, rec, &c, "weight/data_src/transaction", err);
    if ((t & PV_SAMPLE_REGS_INTR) && decode_regs(&c, a->sample_regs_intr, &s->regs_intr))
        return overflow(f, rec, &c, "interrupt registers", err);
    if (t & PV_SAMPLE_PHYS_ADDR) s->phys_addr = pv_bytes_u64(&c);
    if (t & PV_SAMPLE_CGROUP) s->cgroup = pv_bytes_u64(&c);
    if (t & PV_SAMPLE_DATA_PAGE_SIZE) s->data_page_size = pv_bytes_u64(&c);
    if (t & PV_SAMPLE_CODE_PAGE_SIZE) s->code_page_size = pv_bytes_u64(&c);
    if (c.failed)
        return overflow(f, rec, &c, "phys_addr/cgroup/page sizes", err);
    if (t & PV_SAMPLE_AUX) {
        s->aux_size = pv_bytes_u64(&c);
        s->aux = take_array(&c, s->aux_size, 1);
        if (c.failed)
            return overflow(f, rec, &c, "aux data", err);
    }
    if (a->offcpu_embedded)
        take_offcpu_fields(s);
    return 0;
}

int pv_sample_id_decode(const pv_file *f, const pv_record *rec, pv_sample_id *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    out->attr_index = pv_record_attr_index(f, rec);
    if (rec->type == PV_RECORD_SAMPLE || rec->type >= PV_RECORD_KERNEL_TYPE_END)
        return 0;
    int index = out->attr_index < 0 ? 0 : out->attr_index;
    const pv_attr *a = &f->attrs[index];
    if (!pv_attr_flag(a, PV_ATTR_SAMPLE_ID_ALL))
        return 0;
    uint64_t t = a->sample_type & PV_SAMPLE_ID_FIELDS;
    uint64_t size = 8 * (uint64_t)__builtin_popcountll(t);
    uint64_t body = (uint64_t)rec->size - PV_RECORD_HEADER_SIZE;
    if (size > body)
        return pv_error_set(err, "%s: record at offset 0x%llx (type %u, size %u) is too short "
                            "for its %llu-byte sample_id trailer",
                            f->data_path, (unsigned long long)rec->file_offset, rec->type,
                            rec->size, (unsigned long long)size);
    pv_byte_reader c;
    uint64_t start = rec->size - size;
    pv_byte_reader_init(&c, rec->bytes + start, size, rec->file_offset + start, f->swap);
    out->fields = t;
    out->size = size;
    if (t & PV_SAMPLE_TID) { out->pid = pv_bytes_u32(&c); out->tid = pv_bytes_u32(&c); }
    if (t & PV_SAMPLE_TIME) out->time = pv_bytes_u64(&c);
    if (t & PV_SAMPLE_ID) out->id = pv_bytes_u64(&c);
    if (t & PV_SAMPLE_STREAM_ID) out->stream_id = pv_bytes_u64(&c);
    if (t & PV_SAMPLE_CPU) { out->cpu = pv_bytes_u32(&c); pv_bytes_u32(&c); }
    if (t & PV_SAMPLE_IDENTIFIER) out->identifier = pv_bytes_u64(&c);
    return 0;
}

/* A decoded sample's identity fields, as a trailer would hold them. */
static void identity_of_sample(const pv_sample *s, pv_sample_id *out)
{
    memset(out, 0, sizeof *out);
    out->attr_index = s->attr_index;
    if (s->attr_index < 0)
        return;    /* an id no event owns: no fields, as the columns have none */
    out->fields = s->sample_type & PV_SAMPLE_ID_FIELDS;
    out->pid = s->pid;
    out->tid = s->tid;
    out->time = s->time;
    out->id = s->id;
    out->stream_id = s->stream_id;
    out->cpu = s->cpu;
    out->identifier = s->identifier;
}

int pv_record_identity_decode(const pv_file *f, const pv_record *rec, pv_sample_id *out,
                              pv_error *err)
{
    if (rec->type != PV_RECORD_SAMPLE)
        return pv_sample_id_decode(f, rec, out, err);
    pv_sample s;
    if (pv_sample_decode(f, rec, &s, err))
        return -1;
    identity_of_sample(&s, out);
    return 0;
}

int pv_record_identity_fixed(const pv_file *f, const pv_record *rec, pv_sample_id *out,
                             pv_error *err)
{
    if (rec->type != PV_RECORD_SAMPLE)
        return pv_sample_id_decode(f, rec, out, err);
    pv_sample s;
    if (pv_sample_decode_fixed(f, rec, &s, err))
        return -1;
    identity_of_sample(&s, out);
    return 0;
}

int pv_record_time(const pv_file *f, const pv_record *rec, bool *has_time, uint64_t *time,
                   pv_error *err)
{
    *has_time = false;
    *time = 0;
    if (rec->type != PV_RECORD_SAMPLE) {
        if (rec->type >= PV_RECORD_KERNEL_TYPE_END)
            return 0;
        pv_sample_id id;
        if (pv_sample_id_decode(f, rec, &id, err))
            return -1;
        *has_time = (id.fields & PV_SAMPLE_TIME) != 0;
        *time = id.time;
        return 0;
    }
    int index = pv_record_attr_index(f, rec);
    if (index < 0)
        return 0;    /* an unknown event: no fields, as the identity has it */
    uint64_t at = pv_sample_time_offset(f->attrs[index].sample_type);
    if (at == 0)
        return 0;
    if (!pv_sample_time_at(f, rec, at, time)) {
        pv_sample_id id;    /* the full decode names the field that is cut */
        if (pv_record_identity_decode(f, rec, &id, err))
            return -1;
        return pv_error_set(err, "%s: sample at offset 0x%llx is too short for its time",
                            f->data_path, (unsigned long long)rec->file_offset);
    }
    *has_time = true;
    return 0;
}

uint16_t pv_sample_dense_id_at(const pv_file *f)
{
    if (pv_samples_one_event(f) || !f->id_dense || f->swap)
        return 0;
    uint64_t at = PV_RECORD_HEADER_SIZE + (uint64_t)f->sample_id_word * 8;
    return at <= UINT16_MAX - 8 ? (uint16_t)at : 0;
}

uint64_t pv_sample_time_offset(uint64_t sample_type)
{
    if (!(sample_type & PV_SAMPLE_TIME))
        return 0;
    /* TIME follows IDENTIFIER, IP and TID, each one word */
    return PV_RECORD_HEADER_SIZE +
           8 * (uint64_t)__builtin_popcountll(sample_type & (PV_SAMPLE_IDENTIFIER | PV_SAMPLE_IP |
                                                            PV_SAMPLE_TID));
}

int pv_record_body(const pv_file *f, const pv_record *rec, pv_sample_id *trailer,
                   pv_byte_reader *body, pv_error *err)
{
    if (pv_sample_id_decode(f, rec, trailer, err))
        return -1;
    /* pv_sample_id_decode checked that the trailer fits in the body. */
    pv_byte_reader_init(body, rec->bytes + PV_RECORD_HEADER_SIZE,
                        (uint64_t)rec->size - PV_RECORD_HEADER_SIZE - trailer->size,
                        rec->file_offset + PV_RECORD_HEADER_SIZE, f->swap);
    return 0;
}

int pv_rec_open(pv_rec_reader *r, const pv_file *f, const pv_record *rec, pv_sample_id *trailer,
                pv_error *err)
{
    if (!f->nr_attrs) {
        *trailer = (pv_sample_id){.attr_index = -1};
        pv_rec_open_user(r, f, rec);
        return 0;
    }
    pv_byte_reader body;
    if (pv_record_body(f, rec, trailer, &body, err))
        return -1;
    pv_rec_open_body(r, f, rec, &body, trailer->fields != 0);
    return 0;
}
