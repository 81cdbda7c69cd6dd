/*
 * perf_offcpu: one row per interval a thread spent off CPU.
 *
 *   SELECT tid, comm, duration, prev_state, stack FROM perf_offcpu('perf.data')
 *   WHERE stack LIKE '%read%';
 *
 * Recorded with perf record -g -e cpu-clock -e sched:sched_switch
 * --switch-events (see src/analysis/offcpu.h for how the ends are found).
 * start: the sched_switch sample's time; end: the thread's switch-in;
 * duration = end - start (ns).  record: the sched_switch sample's ordinal,
 * to join perf_callchains (sample) or perf_samples (record); end_record:
 * the switch-in's (a SWITCH record or a sched_switch sample).  outside: NULL
 * when both ends are in the recording, else 'start' (off CPU when first
 * seen), 'end' (not back by the end of the recording), 'exit' (switched
 * out dead or zombie) or 'missing' (switched out again before a switch-in
 * was recorded: lost records); the missing end and the duration are then
 * NULL.
 * method: 'sched_switch' for those rows, 'bpf' for the offcpu-time samples
 * of perf record --off-cpu (analysis/offcpu.h): a sum of intervals
 * (outside 'summed': no start or end, duration its period), or perf
 * 6.14+'s interval written as it ended (end the sample's time, start its
 * period before); record is the sample, end_record NULL.
 * The intervals are read in one pass into memory, the stacks symbolized
 * only when the stack column is read.
 */
#include "analysis/offcpu.h"
#include "symbol_paths.h"
#include "vtab_common.h"

#define OFFCPU_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(PID, pid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(COMM, comm, TEXT) \
    X(CPU, cpu, INTEGER) \
    X(START, start, INTEGER) \
    X(END, "end", INTEGER) \
    X(DURATION, duration, INTEGER) \
    X(PREV_STATE, prev_state, TEXT) \
    X(STACK, stack, TEXT) \
    X(OUTSIDE, outside, TEXT) \
    X(END_RECORD, end_record, INTEGER) \
    X(METHOD, method, TEXT)
enum { OFFCPU_COLUMNS(PV_COLUMN_ENUM) };

typedef struct OffcpuState {
    pv_symbolizer *symbolizer;
    pv_offcpu offcpu;
    size_t at;
} OffcpuState;

static int offcpu_first(PvCursor *cur, pv_error *err)
{
    OffcpuState *st = cur->state;
    if (pv_vtab_symbolizer(cur, &st->symbolizer, err))
        return -1;
    if (pv_offcpu_build(cur->file, st->symbolizer, pv_column_used(cur, COL_STACK), &st->offcpu,
                        err))
        return -1;
    st->at = 0;
    cur->rowid = 0;
    cur->eof = st->offcpu.nr_rows == 0;
    return 0;
}

static int offcpu_next(PvCursor *cur, pv_error *err)
{
    (void)err;
    OffcpuState *st = cur->state;
    st->at++;
    cur->rowid = (sqlite3_int64)st->at;
    cur->eof = st->at >= st->offcpu.nr_rows;
    return 0;
}

static void offcpu_reset(PvCursor *cur)
{
    OffcpuState *st = cur->state;
    pv_offcpu_free(&st->offcpu);
    pv_symbolizer_free(st->symbolizer);
    st->symbolizer = NULL;
}

static const char *outside_name(pv_offcpu_cut cut)
{
    switch (cut) {
    case PV_OFFCPU_NO_START: return "start";
    case PV_OFFCPU_NO_END: return "end";
    case PV_OFFCPU_EXITED: return "exit";
    case PV_OFFCPU_MISSING: return "missing";
    case PV_OFFCPU_SUMMED: return "summed";
    case PV_OFFCPU_WHOLE: break;
    }
    return NULL;
}

static int offcpu_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    OffcpuState *st = cur->state;
    const pv_offcpu_row *r = &st->offcpu.rows[st->at];
    bool bpf = r->method == PV_OFFCPU_BPF;
    bool summed = r->cut == PV_OFFCPU_SUMMED;
    bool has_start = r->cut != PV_OFFCPU_NO_START && !summed;
    bool has_end = r->cut == PV_OFFCPU_WHOLE || r->cut == PV_OFFCPU_NO_START;
    switch (i) {
    case COL_RECORD: if (r->cut != PV_OFFCPU_NO_START || bpf) pv_result_u64(ctx, r->record); break;
    case COL_PID: if (r->has_pid) sqlite3_result_int(ctx, r->pid); break;
    case COL_TID: sqlite3_result_int(ctx, r->tid); break;
    case COL_COMM:
        if (r->comm) sqlite3_result_text(ctx, r->comm, -1, SQLITE_TRANSIENT);
        break;
    case COL_CPU: if (r->has_cpu) pv_result_u64(ctx, r->cpu); break;
    case COL_START: if (has_start) pv_result_u64(ctx, r->start); break;
    case COL_END: if (has_end) pv_result_u64(ctx, r->end); break;
    case COL_DURATION:
        if ((has_start && has_end) || bpf) pv_result_u64(ctx, r->duration);
        break;
    case COL_PREV_STATE:
        if (r->prev_state) sqlite3_result_text(ctx, r->prev_state, -1, SQLITE_TRANSIENT);
        break;
    case COL_STACK:
        if (r->stack) sqlite3_result_text(ctx, r->stack, -1, SQLITE_TRANSIENT);
        break;
    case COL_END_RECORD: if (has_end && !bpf) pv_result_u64(ctx, r->end_record); break;
    case COL_METHOD:
        pv_result_static_name(ctx, r->method == PV_OFFCPU_BPF ? "bpf" : "sched_switch");
        break;
    case COL_OUTSIDE: {
        const char *name = outside_name(r->cut);
        if (name) pv_result_static_name(ctx, name);
        break;
    }
    }
    return SQLITE_OK;
}

const PvTableDef pv_offcpu_table = {
    .name = "perf_offcpu",
    .columns = PV_COLUMNS_DECL(OFFCPU_COLUMNS),
    .state_size = sizeof(OffcpuState),
    .first = offcpu_first,
    .next = offcpu_next,
    .column = offcpu_column,
    .reset = offcpu_reset,
};
