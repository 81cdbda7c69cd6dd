/*
 * perf_samples' columns, one row each (column_flags.h):
 * X(NAME, name, TYPE, FLAGS).  Adding a column is its row here and its
 * value: in samples_value (ext/samples.c) when it is PV_COL_VALUE, else
 * in pv_samples_decoded_column (ext/samples_decoded.c).
 *
 * Flags of this table besides column_flags.h's:
 *   FIXED         pv_sample_decode_fixed is enough for it (the symbol
 *                 columns need only the pid, tid, time and ip); without
 *                 it, the full pv_sample_decode runs first.
 *   ALONE(field)  an integer that is the fixed field of that name
 *                 (decode/sample.h), read alone without decoding the
 *                 sample (a scan of such columns reads one word each per row);
 *                 id reads ID, or IDENTIFIER when the event has no ID.
 *   SYMBOL        the sample's thread and ip resolved at its time, by the
 *                 symbolizer (comm, the location columns, srcfile, srcline).
 * The record's own columns (record, file_offset, misc, cpumode) need no
 * decode at all: samples_value answers them first.
 */
#ifndef PV_SAMPLES_COLUMNS_H
#define PV_SAMPLES_COLUMNS_H

#include "decode/sample.h"
#include "column_flags.h"
#include "location_columns.h"
#include "vtab_common.h"

#define FIXED (1 << 16)
#define SYMBOL (PV_COL_VALUE | PV_COL_REPLAYED | FIXED)
#define ALONE(field) (PV_COL_VALUE | FIXED | (((field) + 1) << 24))
#define LOCATION(field) (SYMBOL | PV_COL_LOCATION(field))
#define VALUE PV_COL_VALUE
#define UNIQUE PV_COL_UNIQUE

#define SAMPLES_COLUMNS(X) \
    X(RECORD, record, INTEGER, VALUE | UNIQUE) \
    X(EVENT, event, TEXT, VALUE | FIXED) \
    X(TIME, time, INTEGER, ALONE(PV_FIELD_TIME) | UNIQUE) \
    X(PID, pid, INTEGER, ALONE(PV_FIELD_PID)) \
    X(TID, tid, INTEGER, ALONE(PV_FIELD_TID)) \
    X(CPU, cpu, INTEGER, ALONE(PV_FIELD_CPU)) \
    X(IP, ip, INTEGER, ALONE(PV_FIELD_IP)) \
    X(ADDR, addr, INTEGER, ALONE(PV_FIELD_ADDR)) \
    X(PERIOD, period, INTEGER, ALONE(PV_FIELD_PERIOD)) \
    X(ID, id, INTEGER, ALONE(PV_FIELD_ID)) \
    X(STREAM_ID, stream_id, INTEGER, ALONE(PV_FIELD_STREAM_ID)) \
    X(CPUMODE, cpumode, TEXT, VALUE) \
    X(CALLCHAIN, callchain, TEXT, 0) \
    X(RAW, raw, BLOB, 0) \
    X(BRANCH_STACK, branch_stack, TEXT, 0) \
    X(WEIGHT, weight, INTEGER, 0) \
    X(DATA_SRC, data_src, INTEGER, 0) \
    X(TRANSACTION, "transaction", INTEGER, 0) \
    X(PHYS_ADDR, phys_addr, INTEGER, 0) \
    X(CGROUP, cgroup, INTEGER, 0) \
    X(DATA_PAGE_SIZE, data_page_size, INTEGER, 0) \
    X(CODE_PAGE_SIZE, code_page_size, INTEGER, 0) \
    X(REGS_USER, regs_user, TEXT, 0) \
    X(REGS_INTR, regs_intr, TEXT, 0) \
    X(STACK_USER, stack_user, BLOB, 0) \
    X(READ, read, TEXT, 0) \
    X(AUX, aux, BLOB, 0) \
    X(IDENTIFIER, identifier, INTEGER, ALONE(PV_FIELD_IDENTIFIER)) \
    X(BRANCH_HW_IDX, branch_hw_idx, INTEGER, 0) \
    X(INS_LAT, ins_lat, INTEGER, 0) \
    X(RETIRE_LAT, retire_lat, INTEGER, 0) \
    X(STACK_USER_DYN_SIZE, stack_user_dyn_size, INTEGER, 0) \
    X(FILE_OFFSET, file_offset, INTEGER, VALUE | UNIQUE) \
    X(MISC, misc, INTEGER, VALUE) \
    X(COMM, comm, TEXT, SYMBOL) \
    X(DSO, dso, TEXT, LOCATION(PV_LOC_DSO)) \
    X(DSO_OFFSET, dso_offset, INTEGER, LOCATION(PV_LOC_DSO_OFFSET)) \
    X(SYM, sym, TEXT, LOCATION(PV_LOC_SYM)) \
    X(SYM_OFFSET, sym_offset, INTEGER, LOCATION(PV_LOC_SYM_OFFSET)) \
    X(SYM_STATUS, sym_status, TEXT, LOCATION(PV_LOC_SYM_STATUS)) \
    X(TRACE_EVENT, trace_event, TEXT, 0) \
    X(TRACE_FIELDS, trace_fields, TEXT, 0) \
    X(SRCFILE, srcfile, TEXT, SYMBOL) \
    X(SRCLINE, srcline, INTEGER, SYMBOL)
enum { SAMPLES_COLUMNS(PV_FLAGGED_COLUMN_ENUM) SAMPLES_COLUMN_COUNT };
_Static_assert(SAMPLES_COLUMN_COUNT <= 64, "a column mask holds 64 columns");

/* The fixed field column flags read alone (ALONE), + 1 (0: none). */
static inline unsigned samples_alone_field(uint32_t flags)
{
    return (flags >> 24) & 0xff;
}

/* The columns read from the full decode, neither the record's own nor
 * PV_COL_VALUE ones: results column i of sample s (record r) on cur's row. */
int pv_samples_decoded_column(PvCursor *cur, sqlite3_context *ctx, const pv_record *r,
                              const pv_sample *s, int i);

#endif
