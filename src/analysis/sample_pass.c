#include "analysis/sample_pass.h"

#include "format/perf_abi.h"
#include "stream/record_walk.h"

/* Whether r lies outside range, before it (skip: 1) or after it (end:
 * -1, err set when the pass must fail). */
static int out_of_range(pv_sample_range *range, const pv_record *r, bool *end, pv_error *err)
{
    *end = false;
    if (__atomic_load_n(range->cancel, __ATOMIC_RELAXED)) {
        *end = true;
        return pv_error_set_kind(err, PV_ERROR_STOPPED, "profile worker: interrupted");
    }
    if (r->compressed) {
        range->compressed = true;
        *end = true;
        return pv_error_set(err, "profile worker: a compressed record");
    }
    if (r->segment != 0 || r->file_offset >= range->to) {
        *end = true;
        return 0;
    }
    return r->file_offset < range->from;
}

static int pass(pv_file *f, bool fixed_only, pv_sample_range *range, pv_sample_visit visit,
                void *ctx, pv_error *err)
{
    pv_walk walk;
    pv_record r;
    pv_sample s;
    int rc;
    pv_walk_start(&walk, f);
    while ((rc = pv_walk_next(&walk, &r, err)) == 1) {
        if (range) {
            bool end;
            int skip = out_of_range(range, &r, &end, err);
            if (end) {
                rc = skip;
                break;
            }
            if (skip)
                continue;
        }
        if (r.type != PV_RECORD_SAMPLE)
            continue;
        if (fixed_only ? pv_sample_decode_fixed(f, &r, &s, err) : pv_sample_decode(f, &r, &s, err)) {
            rc = -1;
            break;
        }
        if (s.attr_index >= 0 && visit(ctx, &r, &s, err)) {
            rc = -1;
            break;
        }
    }
    pv_walk_end(&walk);
    return rc < 0 ? -1 : 0;
}

int pv_sample_pass(pv_file *f, pv_sample_visit visit, void *ctx, pv_error *err)
{
    return pass(f, false, NULL, visit, ctx, err);
}

int pv_sample_pass_fixed(pv_file *f, pv_sample_visit visit, void *ctx, pv_error *err)
{
    return pass(f, true, NULL, visit, ctx, err);
}

int pv_sample_pass_range(pv_file *f, bool fixed_only, pv_sample_range *range,
                         pv_sample_visit visit, void *ctx, pv_error *err)
{
    return pass(f, fixed_only, range, visit, ctx, err);
}
