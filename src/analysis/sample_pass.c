#include "analysis/sample_pass.h"

#include "format/perf_abi.h"
#include "stream/record_walk.h"

static int pass(pv_file *f, bool fixed_only, pv_sample_visit visit, void *ctx, pv_error *err)
{
    pv_walk walk;
    pv_record r;
    pv_sample s;
    int rc;
    pv_walk_start(&walk, f);
    while ((rc = pv_walk_next(&walk, &r, err)) == 1) {
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
    return pass(f, false, visit, ctx, err);
}

int pv_sample_pass_fixed(pv_file *f, pv_sample_visit visit, void *ctx, pv_error *err)
{
    return pass(f, true, visit, ctx, err);
}
