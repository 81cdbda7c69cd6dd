/*
 * Off-CPU intervals: when each thread left the CPU, when it came back, and
 * the stack it left with.  Recorded the way hotspot documents it:
 *
 *   perf record -g -e cpu-clock -e sched:sched_switch --switch-events
 *
 * - The switch-out is a sched:sched_switch sample whose prev_pid is the
 *   thread: its time is the interval's start, its callchain the stack,
 *   its prev_state field (as the event's print fmt shows it) why.
 * - The switch-in is the first after it of: a PERF_RECORD_SWITCH or
 *   SWITCH_CPU_WIDE "in" record of the thread (--switch-events), or a
 *   sched_switch sample whose next_pid is the thread (system-wide).  Both
 *   come from the same switch; the tracepoint fires first, in __schedule,
 *   at the same point as the switch-out's, so with -a the end is the time
 *   perf sched timehist counts its wait from.
 * Records are taken in perf's time order.  Nothing is guessed:
 *   - a thread first seen coming in (off CPU since before the recording,
 *     or a new thread) gives an interval without a start;
 *   - a switch-out not followed by the thread's switch-in (the recording
 *     ended, or the thread exited) gives an interval without an end;
 *   - so does one followed by another switch-out of the thread before any
 *     switch-in of it: the switch-in was not recorded (lost records, or no
 *     --switch-events in a per-thread recording);
 *   - a switch-in without a switch-out before it, after the thread was
 *     seen, is the second record of a switch already closed and is not a
 *     row.
 * The idle task (tid 0) is not a thread that waits and gives no rows.
 *
 * perf record --off-cpu (BPF, perf 5.19+) records no switches: its BPF
 * program sums each thread's off-CPU time per (tid, user stack, task
 * state), and at the end perf writes one sample of the "offcpu-time" event
 * (PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT) per sum: period = the
 * summed ns, the callchain PERF_CONTEXT_USER and the user stack it blocked
 * with, ip its first frame, cpu 0, and a time that is no time:
 * OFF_CPU_TIMESTAMP (0xffffffff00000000) plus its rank, to sort after
 * everything (perf's util/bpf_off_cpu.c, off_cpu_write).  Each such sample
 * is a row of its own method, summed: no start, no end, its duration the
 * period.  perf 6.14+ writes the event's samples with their fields in the
 * raw data, which the sample decoder puts in place (decode/sample.h), and
 * writes those of intervals longer than --off-cpu-thresh (500 ms by
 * default) as they end, at the switch-in: each such direct sample is a
 * whole interval, ending at its time and starting its period before.
 * A sample whose raw data holds no such fields is no row
 * (perf_diagnostics' offcpu_raw_unreadable).
 */
#ifndef PV_OFFCPU_H
#define PV_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "format/perf_file.h"
#include "symbols/symbolizer.h"

/* Why an end of the interval is missing. */
typedef enum pv_offcpu_cut {
    PV_OFFCPU_WHOLE,        /* both ends in the recording */
    PV_OFFCPU_NO_START,     /* off CPU when first seen */
    PV_OFFCPU_NO_END,       /* still off CPU when the recording ended */
    PV_OFFCPU_EXITED,       /* switched out dead (X) or zombie (Z): no switch-in */
    PV_OFFCPU_MISSING,      /* switched out again before a switch-in was recorded */
    PV_OFFCPU_SUMMED,       /* a BPF sum of intervals: neither end, a duration */
} pv_offcpu_cut;

/* Which records gave the row. */
typedef enum pv_offcpu_method {
    PV_OFFCPU_SCHED_SWITCH, /* sched:sched_switch samples and switch records */
    PV_OFFCPU_BPF,          /* perf record --off-cpu's offcpu-time samples */
} pv_offcpu_method;

typedef struct pv_offcpu_row {
    int32_t pid, tid;
    bool has_pid;
    uint32_t cpu;           /* of the switch-out (none for method BPF) */
    bool has_cpu;
    uint64_t start, end;    /* ns; start valid unless NO_START, end only when WHOLE or NO_START */
    pv_offcpu_cut cut;
    pv_offcpu_method method;
    uint64_t duration;      /* ns: end - start, or a SUMMED row's period */
    uint64_t record;        /* the sched_switch sample's ordinal (not NO_START) */
    uint64_t end_record;    /* the switch-in's: a SWITCH record or a sched_switch
                               sample (when end is valid) */
    const char *prev_state; /* words ("sleeping"), kept in states; NULL for NO_START */
    char *comm;             /* at the switch-out (or the switch-in), or NULL */
    char *stack;            /* JSON array of frames, leaf first; NULL when not asked */
} pv_offcpu_row;

typedef struct pv_offcpu {
    pv_offcpu_row *rows;    /* in the order of their first known time */
    size_t nr_rows, cap_rows;
    char **states;          /* each prev_state's words, one copy */
    size_t nr_states, cap_states;
} pv_offcpu;

/* Reads every off-CPU interval of f.  with_stacks: symbolize the
 * switch-out's stack into each row's JSON.  A file without
 * sched:sched_switch or offcpu-time samples has no rows. */
int pv_offcpu_build(pv_file *f, pv_symbolizer *sym, bool with_stacks, pv_offcpu *out,
                    pv_error *err);
void pv_offcpu_free(pv_offcpu *o);

/* The words of a prev_state as sched_switch's print fmt shows it (the
 * kernel's task state letters, fs/proc/array.c): "S" -> "sleeping", "R+"
 * -> "preempted", "D|K" -> "disk|wakekill".  A letter without a word is
 * kept as it is.  Written into buf (size bytes, cut short if longer). */
void pv_offcpu_state_words(const char *printed, char *buf, size_t size);

#endif
