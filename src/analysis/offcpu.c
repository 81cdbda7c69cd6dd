#include "analysis/offcpu.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_writer.h"
#include "base/pv_array.h"
#include "base/pv_strbuf.h"
#include "decode/record_types.h"
#include "decode/sample.h"
#include "decode/tracepoint.h"
#include "format/event_names.h"
#include "format/offcpu_event.h"
#include "format/perf_abi.h"
#include "scan/time_order.h"
#include "base/pv_alloc.h"
#include "symbols/sample_stack.h"

#define NO_ROW SIZE_MAX

/* ---- prev_state words ---------------------------------------------------- */

/* The letters of the kernel's task states (TASK_REPORT, fs/proc/array.c's
 * task_state_array; K, W, N and x from kernels before 4.14). */
static const char *letter_word(char c)
{
    switch (c) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "disk";
    case 'T': return "stopped";
    case 't': return "traced";
    case 'X': return "dead";
    case 'x': return "dead";
    case 'Z': return "zombie";
    case 'P': return "parked";
    case 'I': return "idle";
    case 'K': return "wakekill";
    case 'W': return "waking";
    case 'N': return "noload";
    default: return NULL;
    }
}

void pv_offcpu_state_words(const char *printed, char *buf, size_t size)
{
    pv_strbuf b = {0};
    /* "R+": runnable when switched out, i.e. preempted (the kernel's
     * TASK_REPORT_MAX bit, which the print fmt shows as "+") */
    if (strcmp(printed, "R+") == 0) {
        pv_strbuf_puts(&b, "preempted");
    } else {
        for (const char *p = printed; *p; p++) {
            const char *w = letter_word(*p);
            if (w)
                pv_strbuf_puts(&b, w);
            else
                pv_strbuf_append(&b, p, 1);
        }
    }
    const char *text = pv_strbuf_text(&b);
    size_t n = strlen(text);
    if (n >= size)
        n = size - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    pv_strbuf_free(&b);
}

/* ---- threads -------------------------------------------------------------- */

typedef struct thread_slot {
    bool used;
    bool has_pid;
    int32_t tid, pid;
    size_t pending;         /* the row of its open switch-out, or NO_ROW */
    /* First seen as a sched_switch's next_pid: in a per-thread recording
     * that is any thread the workload's threads hand the CPU to, so the
     * interval without a start is kept back until the thread shows it is
     * recorded (a sample, a switch record or a switch-out of its own). */
    bool candidate;
    uint64_t first_in_time, first_in_record;
} thread_slot;

typedef struct thread_map {
    thread_slot *slots;
    size_t nr_slots, nr_used;
} thread_map;

static size_t thread_hash(int32_t tid)
{
    uint64_t h = (uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15u;
    return (size_t)(h ^ (h >> 29));
}

static thread_slot *thread_find(thread_map *m, int32_t tid, bool *is_new)
{
    if ((m->nr_used + 1) * 2 > m->nr_slots) {
        size_t n = m->nr_slots ? m->nr_slots * 2 : 256;
        thread_slot *slots = pv_calloc(n, sizeof *slots);
        if (!slots)
            return NULL;
        for (size_t i = 0; i < m->nr_slots; i++) {
            if (!m->slots[i].used)
                continue;
            size_t j = thread_hash(m->slots[i].tid) & (n - 1);
            while (slots[j].used)
                j = (j + 1) & (n - 1);
            slots[j] = m->slots[i];
        }
        free(m->slots);
        m->slots = slots;
        m->nr_slots = n;
    }
    size_t i = thread_hash(tid) & (m->nr_slots - 1);
    for (; m->slots[i].used; i = (i + 1) & (m->nr_slots - 1))
        if (m->slots[i].tid == tid) {
            *is_new = false;
            return &m->slots[i];
        }
    thread_slot *t = &m->slots[i];
    t->used = true;
    t->tid = tid;
    t->pending = NO_ROW;
    m->nr_used++;
    *is_new = true;
    return t;
}

/* ---- one pass ------------------------------------------------------------- */

typedef struct builder {
    pv_file *file;
    pv_symbolizer *sym;
    pv_trace *trace;
    bool with_stacks;
    pv_offcpu *out;
    thread_map threads;
    pv_strbuf text;
    pv_error *err;
    bool stack_failed;          /* a stack's deferred index failed: err says why */
    pv_sample_stack stack;      /* last: its scratch is large */
} builder;

static int out_of_memory(builder *b)
{
    return pv_error_set(b->err, "%s: out of memory reading the off-CPU intervals",
                        b->file->path);
}

static pv_offcpu_row *new_row(builder *b, size_t *index)
{
    pv_offcpu *o = b->out;
    if (!pv_array_grow((void **)&o->rows, &o->cap_rows, o->nr_rows + 1, sizeof *o->rows))
        return NULL;
    *index = o->nr_rows;
    pv_offcpu_row *r = &o->rows[o->nr_rows++];
    memset(r, 0, sizeof *r);
    return r;
}

/* One copy of each prev_state's words. */
static const char *intern_state(builder *b, const char *words)
{
    pv_offcpu *o = b->out;
    for (size_t i = 0; i < o->nr_states; i++)
        if (strcmp(o->states[i], words) == 0)
            return o->states[i];
    if (!pv_array_grow((void **)&o->states, &o->cap_states, o->nr_states + 1,
                       sizeof *o->states))
        return NULL;
    char *copy = pv_strdup(words);
    if (!copy)
        return NULL;
    o->states[o->nr_states++] = copy;
    return copy;
}

/* A frame's name: its function; without one, "dso+0xoffset", or perf's
 * "[unknown]" when no map holds the address. */
static void put_frame(pv_json_writer *w, const pv_location *l)
{
    if (l->sym) {
        pv_json_cstring(w, l->sym);
    } else if (l->dso) {
        char where[4096];
        snprintf(where, sizeof where, "%s+0x%llx", l->dso, (unsigned long long)l->dso_offset);
        pv_json_cstring(w, where);
    } else {
        pv_json_cstring(w, "[unknown]");
    }
}

/* The switch-out's stack as a JSON array of function names, leaf first,
 * each frame named as in every table (symbols/sample_stack.h). */
static char *stack_json(builder *b, const pv_sample *s, uint64_t key)
{
    pv_strbuf_reset(&b->text);
    pv_json_writer w;
    pv_json_init(&w, &b->text);
    pv_json_array_begin(&w);
    pv_stack_frame frame;
    pv_location l;
    int rc;
    pv_sample_stack_start(&b->stack, b->file, s, b->sym, key);
    while ((rc = pv_sample_stack_next(&b->stack, &frame, b->err)) == 1) {
        pv_sample_stack_locate(&b->stack, &frame, &l);
        put_frame(&w, &l);
    }
    pv_json_array_end(&w);
    if (rc < 0) {
        b->stack_failed = true;     /* b->err says why */
        return NULL;
    }
    if (b->text.failed)
        return NULL;
    return pv_strdup(pv_strbuf_text(&b->text));
}

static char *comm_at(builder *b, int32_t tid, uint64_t key)
{
    const char *comm = pv_symbolizer_comm(b->sym, tid, key);
    return comm ? pv_strdup(comm) : NULL;
}

static void learn_pid(thread_slot *t, bool has_pid, int32_t pid)
{
    if (has_pid && !t->has_pid) {
        t->pid = pid;
        t->has_pid = true;
    }
}

static int no_start_row(builder *b, int32_t tid, uint64_t time, uint64_t record_index)
{
    uint64_t key;
    if (pv_symbolizer_at(b->sym, record_index, true, time, &key, b->err))
        return -1;
    size_t index;
    pv_offcpu_row *r = new_row(b, &index);
    if (!r)
        return out_of_memory(b);
    r->tid = tid;
    r->end = time;
    r->end_record = record_index;
    r->cut = PV_OFFCPU_NO_START;
    r->comm = comm_at(b, tid, key);
    return 0;
}

/* The thread is one the recording follows: its interval without a start,
 * kept back while that was not known, is a row. */
static int recorded_thread(builder *b, thread_slot *t)
{
    if (!t->candidate)
        return 0;
    t->candidate = false;
    return no_start_row(b, t->tid, t->first_in_time, t->first_in_record);
}

/* The thread is on a CPU again at time: closes its open interval, or
 * gives one without a start when this is the first sign of it.  by_record:
 * a SWITCH record of the thread's own (else a sched_switch's next_pid). */
static int switch_in(builder *b, int32_t tid, bool by_record, int32_t pid, uint64_t time,
                     uint64_t record_index)
{
    bool is_new;
    thread_slot *t = thread_find(&b->threads, tid, &is_new);
    if (!t)
        return out_of_memory(b);
    learn_pid(t, by_record, pid);
    if (t->pending != NO_ROW) {
        pv_offcpu_row *r = &b->out->rows[t->pending];
        r->end = time;
        r->end_record = record_index;
        r->cut = PV_OFFCPU_WHOLE;
        t->pending = NO_ROW;
        return 0;
    }
    if (is_new && !by_record) {
        t->candidate = true;
        t->first_in_time = time;
        t->first_in_record = record_index;
        return 0;
    }
    if (is_new)
        return no_start_row(b, tid, time, record_index);
    return by_record ? recorded_thread(b, t) : 0;
}

/* A sched_switch sample: prev_pid goes off CPU, next_pid comes on. */
static int sched_switch(builder *b, const pv_record *rec, const pv_sample *s)
{
    int64_t prev_pid, next_pid;
    int rc_prev = pv_trace_field_int(b->trace, s, "prev_pid", &prev_pid);
    int rc_next = pv_trace_field_int(b->trace, s, "next_pid", &next_pid);
    if (rc_prev < 0 || rc_next < 0)
        return pv_error_set(b->err, "%s: sched_switch sample at offset 0x%llx: its %u-byte RAW "
                            "payload is too short for its format", b->file->data_path,
                            (unsigned long long)rec->file_offset, s->raw_size);
    if (rc_prev == 0 || !(s->sample_type & PV_SAMPLE_TIME))
        return 0;
    int32_t tid = (int32_t)prev_pid;
    if (tid > 0) {
        bool is_new;
        thread_slot *t = thread_find(&b->threads, tid, &is_new);
        if (!t)
            return out_of_memory(b);
        /* the sample is taken in the switched-out task: its pid is the tgid */
        bool sample_is_thread = (s->sample_type & PV_SAMPLE_TID) && (int32_t)s->tid == tid;
        learn_pid(t, sample_is_thread, (int32_t)s->pid);
        if (recorded_thread(b, t))
            return -1;
        if (t->pending != NO_ROW) {
            /* its switch-in was not recorded: left without an end */
            b->out->rows[t->pending].cut = PV_OFFCPU_MISSING;
            t->pending = NO_ROW;
        }
        uint64_t key;
        if (pv_symbolizer_at(b->sym, rec->index, true, s->time, &key, b->err))
            return -1;
        char printed[64], words[128];
        if (!pv_trace_printed_field(b->trace, s, "prev_state", printed, sizeof printed))
            printed[0] = '\0';
        pv_offcpu_state_words(printed, words, sizeof words);
        size_t index;
        pv_offcpu_row *r = new_row(b, &index);
        if (!r)
            return out_of_memory(b);
        r->tid = tid;
        r->start = s->time;
        r->record = rec->index;
        r->has_cpu = (s->sample_type & PV_SAMPLE_CPU) != 0;
        r->cpu = s->cpu;
        r->prev_state = printed[0] ? intern_state(b, words) : NULL;
        r->comm = comm_at(b, tid, key);
        /* without -g the stack was not recorded: NULL, not an empty one */
        bool has_stack = (s->sample_type & PV_SAMPLE_CALLCHAIN) != 0;
        r->stack = b->with_stacks && has_stack ? stack_json(b, s, key) : NULL;
        if (b->stack_failed)
            return -1;
        if ((printed[0] && !r->prev_state) || (b->with_stacks && has_stack && !r->stack))
            return out_of_memory(b);
        bool exited = printed[0] == 'X' || printed[0] == 'Z';
        r->cut = exited ? PV_OFFCPU_EXITED : PV_OFFCPU_NO_END;
        if (!exited)
            t->pending = index;
    }
    if (rc_next == 1 && next_pid > 0)
        return switch_in(b, (int32_t)next_pid, false, 0, s->time, rec->index);
    return 0;
}

/* An offcpu-time sample: a row of its own (offcpu.h says what it holds).
 * perf 6.14+'s carry their fields in their raw data, which the decoder
 * has put in place; one whose raw data could not be read is no row
 * (perf_diagnostics says why). */
static int bpf_sample(builder *b, const pv_record *rec, const pv_sample *s)
{
    if (s->offcpu == PV_SAMPLE_OFFCPU_UNREADABLE || !(s->sample_type & PV_SAMPLE_TID) ||
        (int32_t)s->tid <= 0)
        return 0;
    /* a direct sample (perf 6.14+) ends at its time, the switch-in */
    bool direct = s->offcpu == PV_SAMPLE_OFFCPU_DIRECT && (s->sample_type & PV_SAMPLE_TIME);
    uint64_t key;
    if (pv_symbolizer_at(b->sym, rec->index, true, s->time, &key, b->err))
        return -1;
    size_t index;
    pv_offcpu_row *r = new_row(b, &index);
    if (!r)
        return out_of_memory(b);
    r->method = PV_OFFCPU_BPF;
    r->tid = (int32_t)s->tid;
    r->pid = (int32_t)s->pid;
    r->has_pid = true;
    r->record = rec->index;
    r->duration = s->period;
    if (direct) {
        r->end = s->time;
        r->cut = s->period <= s->time ? PV_OFFCPU_WHOLE : PV_OFFCPU_NO_START;
        r->start = r->cut == PV_OFFCPU_WHOLE ? s->time - s->period : 0;
    } else {
        r->cut = PV_OFFCPU_SUMMED;
    }
    /* cpu: perf writes 0 in a sum; a direct sample's is the CPU the
     * thread came back on, not one it left */
    r->comm = comm_at(b, r->tid, key);
    bool has_stack = (s->sample_type & PV_SAMPLE_CALLCHAIN) != 0;
    r->stack = b->with_stacks && has_stack ? stack_json(b, s, key) : NULL;
    if (b->stack_failed)
        return -1;
    if (b->with_stacks && has_stack && !r->stack)
        return out_of_memory(b);
    return 0;
}

static int take_sample(builder *b, const pv_record *rec)
{
    pv_sample s;
    if (pv_sample_decode(b->file, rec, &s, b->err))
        return -1;
    if (s.attr_index < 0)
        return 0;
    const char *name = pv_file_event_name(b->file, (size_t)s.attr_index);
    if (name && strcmp(name, PV_OFFCPU_EVENT) == 0)
        return bpf_sample(b, rec, &s);
    if (b->trace && name && strcmp(name, "sched:sched_switch") == 0)
        return sched_switch(b, rec, &s);
    /* any other sample: the thread was seen (on CPU) */
    if (!(s.sample_type & PV_SAMPLE_TID) || (int32_t)s.tid <= 0)
        return 0;
    bool is_new;
    thread_slot *t = thread_find(&b->threads, (int32_t)s.tid, &is_new);
    if (!t)
        return out_of_memory(b);
    learn_pid(t, true, (int32_t)s.pid);
    return recorded_thread(b, t);
}

static int take_switch(builder *b, const pv_record *rec)
{
    pv_rec_switch sw;
    if (pv_rec_switch_decode(b->file, rec, &sw, b->err))
        return -1;
    const pv_sample_id *id = &sw.trailer;
    /* tid 0: the idle task; -1: a thread whose pid the kernel has already
     * released (exiting), which the tracepoint's prev_pid still names */
    if (!(id->fields & PV_SAMPLE_TID) || !(id->fields & PV_SAMPLE_TIME) || (int32_t)id->tid <= 0)
        return 0;
    if (sw.out) {
        bool is_new;
        thread_slot *t = thread_find(&b->threads, (int32_t)id->tid, &is_new);
        if (!t)
            return out_of_memory(b);
        learn_pid(t, true, (int32_t)id->pid);
        return recorded_thread(b, t);
    }
    return switch_in(b, (int32_t)id->tid, true, (int32_t)id->pid, id->time, rec->index);
}

static bool offcpu_wants(uint32_t type)
{
    return type == PV_RECORD_SAMPLE || type == PV_RECORD_SWITCH ||
           type == PV_RECORD_SWITCH_CPU_WIDE;
}

/* Summed rows have no time: they come last, in file order. */
static uint64_t first_known_time(const pv_offcpu_row *r)
{
    if (r->cut == PV_OFFCPU_SUMMED)
        return UINT64_MAX;
    return r->cut == PV_OFFCPU_NO_START ? r->end : r->start;
}

static int by_first_known_time(const void *a, const void *b)
{
    const pv_offcpu_row *x = a, *y = b;
    uint64_t tx = first_known_time(x), ty = first_known_time(y);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    /* equal times: the order they were found in (record is unique among
     * switch-outs; a row without a start sorts after one with) */
    if ((x->cut == PV_OFFCPU_NO_START) != (y->cut == PV_OFFCPU_NO_START))
        return x->cut == PV_OFFCPU_NO_START ? 1 : -1;
    if (x->record != y->record)
        return x->record < y->record ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Rows whose thread's pid was learnt only after them. */
static void fill_pids(builder *b)
{
    for (size_t i = 0; i < b->out->nr_rows; i++) {
        pv_offcpu_row *r = &b->out->rows[i];
        if (r->method == PV_OFFCPU_BPF)
            continue;
        bool is_new;
        thread_slot *t = thread_find(&b->threads, r->tid, &is_new);
        if (t && t->has_pid) {
            r->pid = t->pid;
            r->has_pid = true;
        }
    }
}

int pv_offcpu_build(pv_file *f, pv_symbolizer *sym, bool with_stacks, pv_offcpu *out,
                    pv_error *err)
{
    memset(out, 0, sizeof *out);
    /* without tracing data there is no sched_switch, but there may be
     * offcpu-time samples */
    pv_trace *trace;
    if (pv_trace_get(f, &trace, err))
        return -1;
    builder *b = pv_malloc(sizeof *b);
    if (!b)
        return pv_error_set(err, "%s: out of memory reading the off-CPU intervals", f->path);
    /* the stack, last, needs no clearing (sample_stack.h) */
    memset(b, 0, offsetof(builder, stack));
    b->file = f;
    b->sym = sym;
    b->trace = trace;
    b->with_stacks = with_stacks;
    b->out = out;
    b->err = err;
    pv_record_filter all;
    memset(&all, 0, sizeof all);
    pv_ordered_scan scan;
    pv_record rec;
    int rc = pv_ordered_scan_start(&scan, f, &all, offcpu_wants, PV_ORDER_PERF, err);
    while (rc == 0 && (rc = pv_ordered_scan_next(&scan, &rec, err)) == 1) {
        rc = rec.type == PV_RECORD_SAMPLE ? take_sample(b, &rec) : take_switch(b, &rec);
    }
    pv_ordered_scan_end(&scan);
    if (rc == 0) {
        fill_pids(b);
        for (size_t i = 0; i < out->nr_rows; i++) {
            pv_offcpu_row *r = &out->rows[i];
            if (r->method == PV_OFFCPU_SCHED_SWITCH && r->cut == PV_OFFCPU_WHOLE)
                r->duration = r->end - r->start;
        }
        /* rows kept back (candidate threads) were added late */
        if (out->nr_rows > 1)
            qsort(out->rows, out->nr_rows, sizeof *out->rows, by_first_known_time);
    }
    free(b->threads.slots);
    pv_strbuf_free(&b->text);
    free(b);
    if (rc < 0) {
        pv_offcpu_free(out);
        return -1;
    }
    return 0;
}

void pv_offcpu_free(pv_offcpu *o)
{
    for (size_t i = 0; i < o->nr_rows; i++) {
        free(o->rows[i].comm);
        free(o->rows[i].stack);
    }
    free(o->rows);
    for (size_t i = 0; i < o->nr_states; i++)
        free(o->states[i]);
    free(o->states);
    memset(o, 0, sizeof *o);
}
