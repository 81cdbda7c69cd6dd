/*
 * perf_samples' columns read from the fully decoded sample (decode/sample.h):
 * the fields a sample holds only when its event's sample_type asks for
 * them, NULL otherwise, and the tracepoint's event and fields.  Split from
 * ext/samples.c, which decodes the sample and gives the record's own, the
 * fixed and the symbol columns.
 */
#include "format/perf_abi.h"
#include "decode/sample.h"
#include "decode/tracepoint.h"
#include "vtab_common.h"
#include "samples_columns.h"

static void result_if(sqlite3_context *ctx, const pv_sample *s, uint64_t bit, uint64_t v)
{
    if (s->sample_type & bit)
        pv_result_u64(ctx, v);
}

int pv_samples_decoded_column(PvCursor *cur, sqlite3_context *ctx, const pv_record *r,
                              const pv_sample *s, int i)
{
    uint64_t t = s->sample_type;
    /* reset by the cases that write text: the others are per-row work */
    pv_strbuf *text = &cur->text;
    switch (i) {
    case COL_CALLCHAIN:
        if (t & PV_SAMPLE_CALLCHAIN) {
            pv_strbuf_reset(text);
            pv_sample_callchain_json(s, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_RAW:
        if (t & PV_SAMPLE_RAW) pv_result_file_blob(ctx, s->raw, s->raw_size);
        break;
    case COL_BRANCH_STACK:
        if (t & PV_SAMPLE_BRANCH_STACK) {
            pv_strbuf_reset(text);
            pv_sample_branch_stack_json(s, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_BRANCH_HW_IDX:
        if (s->has_branch_hw_idx) pv_result_u64(ctx, s->branch_hw_idx);
        break;
    case COL_WEIGHT:
        if (t & PV_SAMPLE_WEIGHT_STRUCT)
            pv_result_u64(ctx, s->weight & 0xffffffffu);
        else
            result_if(ctx, s, PV_SAMPLE_WEIGHT, s->weight);
        break;
    case COL_INS_LAT:
        if (t & PV_SAMPLE_WEIGHT_STRUCT) sqlite3_result_int(ctx, (int)((s->weight >> 32) & 0xffff));
        break;
    case COL_RETIRE_LAT:
        if (t & PV_SAMPLE_WEIGHT_STRUCT) sqlite3_result_int(ctx, (int)((s->weight >> 48) & 0xffff));
        break;
    case COL_DATA_SRC: result_if(ctx, s, PV_SAMPLE_DATA_SRC, s->data_src); break;
    case COL_TRANSACTION: result_if(ctx, s, PV_SAMPLE_TRANSACTION, s->transaction); break;
    case COL_PHYS_ADDR: result_if(ctx, s, PV_SAMPLE_PHYS_ADDR, s->phys_addr); break;
    case COL_CGROUP: result_if(ctx, s, PV_SAMPLE_CGROUP, s->cgroup); break;
    case COL_DATA_PAGE_SIZE: result_if(ctx, s, PV_SAMPLE_DATA_PAGE_SIZE, s->data_page_size); break;
    case COL_CODE_PAGE_SIZE: result_if(ctx, s, PV_SAMPLE_CODE_PAGE_SIZE, s->code_page_size); break;
    case COL_REGS_USER:
        if (t & PV_SAMPLE_REGS_USER) {
            pv_strbuf_reset(text);
            pv_sample_regs_json(s, &s->regs_user, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_REGS_INTR:
        if (t & PV_SAMPLE_REGS_INTR) {
            pv_strbuf_reset(text);
            pv_sample_regs_json(s, &s->regs_intr, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_STACK_USER:
        if (t & PV_SAMPLE_STACK_USER) pv_result_file_blob(ctx, s->stack_user, s->stack_user_size);
        break;
    case COL_STACK_USER_DYN_SIZE:
        if ((t & PV_SAMPLE_STACK_USER) && s->stack_user_size) pv_result_u64(ctx, s->stack_user_dyn_size);
        break;
    case COL_READ:
        if (t & PV_SAMPLE_READ) {
            pv_strbuf_reset(text);
            pv_sample_read_json(s, text);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_AUX:
        if (t & PV_SAMPLE_AUX) pv_result_file_blob(ctx, s->aux, s->aux_size);
        break;
    case COL_TRACE_EVENT:
    case COL_TRACE_FIELDS: {
        /* the file's tracepoint formats are parsed the first time either is read */
        pv_trace *trace;
        pv_error err;
        if (pv_trace_get(cur->file, &trace, &err))
            return pv_result_error(ctx, &err);
        if (i == COL_TRACE_EVENT) {
            const char *name = pv_trace_event_name(trace, s->attr_index);
            if (name)
                sqlite3_result_text(ctx, name, -1, SQLITE_TRANSIENT);
            break;
        }
        pv_strbuf_reset(text);
        int rc = pv_trace_fields_json(trace, cur->file, r, s, text, &err);
        if (rc < 0)
            return pv_result_error(ctx, &err);
        if (rc > 0)
            pv_result_text_buffer(cur, ctx);
        break;
    }
    default:
        break;
    }
    return SQLITE_OK;
}
