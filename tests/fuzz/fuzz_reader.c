/*
 * libFuzzer target: the reader alone.  Opens the input as a perf.data file,
 * walks every record (through compressed containers), decodes every sample,
 * every record's trailer and fields JSON, every feature section, every
 * build-id entry and every event name, and collects the diagnostics.  Errors are expected; crashes,
 * sanitizer reports, leaks and hangs are the findings.
 */
#include <stdint.h>
#include <string.h>

#include "stream/file_open.h"
#include "format/event_names.h"
#include "format/build_ids.h"
#include "analysis/diagnostics.h"
#include "format/features.h"
#include "fuzz_input.h"
#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "decode/record_fields.h"
#include "stream/record_walk.h"
#include "decode/sample.h"

/* Touches every byte an array field points at, so that a pointer past the
 * record is caught by ASan here and not only when a column is read. */
static uint64_t touch(const uint8_t *p, uint64_t n)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; p && i < n; i++)
        sum += p[i];
    return sum;
}

static void decode_sample(const pv_file *f, const pv_record *rec, pv_strbuf *out)
{
    pv_sample s;
    pv_error err;
    if (pv_sample_decode(f, rec, &s, &err) != 0)
        return;
    volatile uint64_t sink = 0;
    sink += touch(s.read, s.read_size);
    sink += touch(s.raw, s.raw_size);
    sink += touch(s.stack_user, s.stack_user_size);
    sink += touch(s.aux, s.aux_size);
    (void)sink;
    /* the JSON renderings, under the conditions perf_samples uses them */
    pv_strbuf_reset(out);
    uint64_t t = s.sample_type;
    if (t & PV_SAMPLE_CALLCHAIN)
        pv_sample_callchain_json(&s, out);
    if (t & PV_SAMPLE_BRANCH_STACK)
        pv_sample_branch_stack_json(&s, out);
    if (t & PV_SAMPLE_READ)
        pv_sample_read_json(&s, out);
    if (t & PV_SAMPLE_REGS_USER)
        pv_sample_regs_json(&s, &s.regs_user, out);
    if (t & PV_SAMPLE_REGS_INTR)
        pv_sample_regs_json(&s, &s.regs_intr, out);
}

static void walk_records(pv_file *f, pv_strbuf *out)
{
    pv_walk w;
    pv_record rec;
    pv_error err;
    pv_walk_start(&w, f);
    while (pv_walk_next(&w, &rec, &err) == 1) {
        pv_record_attr_index(f, &rec);
        pv_sample_id sid;
        pv_sample_id_decode(f, &rec, &sid, &err);
        pv_strbuf_reset(out);
        pv_record_fields_json(f, &rec, out, &err);
        if (rec.type == PV_RECORD_SAMPLE)
            decode_sample(f, &rec, out);
        if (rec.type == PV_RECORD_HEADER_BUILD_ID) {
            pv_build_id_iter it;
            pv_build_id id;
            pv_build_ids_start_record(&it, f, &rec);
            while (pv_build_ids_next(&it, &id, &err) == 1) {
            }
        }
    }
    pv_walk_end(&w);
}

static void read_features(pv_file *f, pv_strbuf *out)
{
    pv_error err;
    for (unsigned id = 0; id < PV_FEATURE_BITS; id++) {
        pv_feature_value_kind kind;
        int64_t integer;
        pv_feature_decode(f, id, &kind, &integer, out, &err);
    }
    pv_build_id_iter it;
    pv_build_id id;
    if (pv_build_ids_start_feature(&it, f, &err) == 0)
        while (pv_build_ids_next(&it, &id, &err) == 1) {
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_input_file(data, size, path);
    pv_file *f = NULL;
    pv_error err;
    if (pv_file_open(path, &f, &err) == 0) {
        pv_strbuf out = {0};
        for (size_t i = 0; i < f->nr_attrs; i++)
            pv_file_event_name(f, i);
        read_features(f, &out);
        walk_records(f, &out);
        pv_diagnostics diagnostics;
        if (pv_diagnostics_collect(f, &diagnostics, &err) == 0)
            pv_diagnostics_free(&diagnostics);
        pv_strbuf_free(&out);
        pv_file_close(f);
    }
    close(fd);
    return 0;
}
