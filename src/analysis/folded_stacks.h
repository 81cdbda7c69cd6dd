/*
 * The samples' call stacks folded for flame graphs, in one pass: per event
 * and distinct stack "comm;root;...;leaf", its samples and their period,
 * the rows sql/folded_stacks.sql and sql/flamegraph.sql once made by
 * grouping perf_callchains' rows by sample, joining perf_samples and
 * grouping again by the text (perf_folded_stacks, ext/folded_stacks.c).
 *
 * The stack is the sample's stack as every table reads it
 * (symbols/sample_stack.h), each frame named by perf_frame_name's rule
 * (render/folded_stack.h: sym, else "[dso]", else 0x<ip>; an inlined
 * function by its bare name) and joined root first as perf_folded joins
 * perf_callchains' rows (';' and line breaks in a name become ':'); DWARF
 * frames stop where perf_callchains' rowids do (8192 a sample).  A sample
 * without frames is its comm and its own ip's frame, where only ';' becomes
 * ':'.  The comm is the thread's name at the sample (spaces become '_',
 * ';' ':'), or ":<pid>" without one.  A sample without a thread (no TID),
 * or without ip and frames, has no stack (a NULL stack, counted).  period
 * is the sample's, 1 when the event records none.
 *
 * Counting goes through numbers: each frame's name is interned once (by the
 * symbol's or dso's identity, which the symbolizer keeps one pointer for),
 * and a stack is the list of its names' numbers.  Memory grows with the
 * distinct names and stacks, not with the samples.
 */
#ifndef PV_FOLDED_STACKS_H
#define PV_FOLDED_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/key_table.h"
#include "base/pv_error.h"
#include "base/pv_strbuf.h"
#include "format/perf_file.h"
#include "symbols/symbolizer.h"

typedef struct pv_folded_row {
    size_t attr_index;          /* an event with this row's name (the first such attr) */
    uint32_t stack;             /* its key in pv_folded_stacks.stacks */
    bool has_stack;             /* false: the samples that have no stack */
    bool period_overflow;       /* the period's sum overflows an int64 (SQL: an error) */
    uint64_t samples;
    int64_t period;             /* the sum, as SQL's sum() of the periods */
} pv_folded_row;

/* The stacks stay numbers; a row's text is made when it is read
 * (pv_folded_stacks_text), so that memory holds each stack once, small. */
typedef struct pv_folded_stacks {
    pv_folded_row *rows;        /* by event name, then stack (NULL first, then bytes) */
    size_t nr_rows;
    pv_key_table names;         /* frame and comm names as written */
    pv_key_table stacks;        /* event, comm, frames root first: name numbers */
} pv_folded_stacks;

/* Folds the stacks of f's samples of the event named event (NULL: every
 * event).  0, or -1 with err set (out of memory, an interrupt, a damaged
 * record). */
int pv_folded_stacks_build(pv_file *f, pv_symbolizer *sym, const char *event,
                           pv_folded_stacks *out, pv_error *err);
/* The row's stack as text into out (emptied first); false when out of memory. */
bool pv_folded_stacks_text(const pv_folded_stacks *p, const pv_folded_row *row, pv_strbuf *out);
void pv_folded_stacks_free(pv_folded_stacks *p);

#endif
