/* JSON renderings of a sample's structured fields. */
#include <stdio.h>

#include "base/json_writer.h"
#include "format/perf_abi.h"
#include "decode/sample.h"

/* Addresses as the same 64 bits signed; the context markers left out. */
void pv_sample_callchain_json(const pv_sample *s, pv_strbuf *out)
{
    pv_json_writer w;
    pv_json_init(&w, out);
    pv_json_array_begin(&w);
    for (uint64_t i = 0; i < s->callchain_nr; i++) {
        uint64_t ip = pv_sample_u64_at(s, s->callchain, i);
        if (ip == PV_CONTEXT_USER_DEFERRED)
            i++;    /* the cookie after it is no address */
        else if (ip < PV_CONTEXT_MAX)
            pv_json_i64(&w, (int64_t)ip);
    }
    pv_json_array_end(&w);
}

/* The fields of a branch entry's flags, in little-endian bit order. */
static const struct {
    const char *name;
    unsigned pos, width;
} branch_flags[] = {
    {"mispred", 0, 1}, {"predicted", 1, 1}, {"in_tx", 2, 1}, {"abort", 3, 1},
    {"cycles", 4, 16}, {"type", 20, 4}, {"spec", 24, 2}, {"new_type", 26, 4},
    {"priv", 30, 3},
};
#define NR_BRANCH_FLAGS (sizeof branch_flags / sizeof branch_flags[0])

/* A big-endian writer's compiler allocates the flags bit field from the
 * most significant bit (mispred is bit 63, cycles bits 59..44, ...): move
 * each field to its little-endian place, as perf's
 * evsel__bitfield_swap_branch_flags does.  The reserved bits are dropped. */
static uint64_t branch_flags_from_big_endian(uint64_t v)
{
    uint64_t out = 0;
    for (size_t i = 0; i < NR_BRANCH_FLAGS; i++) {
        uint64_t mask = (1ull << branch_flags[i].width) - 1;
        out |= ((v >> (64 - branch_flags[i].pos - branch_flags[i].width)) & mask)
               << branch_flags[i].pos;
    }
    return out;
}

/* [{"from":..,"to":..,"mispred":..,...},...] */
void pv_sample_branch_stack_json(const pv_sample *s, pv_strbuf *out)
{
    bool big_endian_writer = s->swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
    pv_json_writer w;
    pv_json_init(&w, out);
    pv_json_array_begin(&w);
    for (uint64_t i = 0; i < s->branch_nr; i++) {
        uint64_t from = pv_sample_u64_at(s, s->branches, i * 3);
        uint64_t to = pv_sample_u64_at(s, s->branches, i * 3 + 1);
        uint64_t flags = pv_sample_u64_at(s, s->branches, i * 3 + 2);
        if (big_endian_writer)
            flags = branch_flags_from_big_endian(flags);
        pv_json_object_begin(&w);
        pv_json_key_i64(&w, "from", (int64_t)from);
        pv_json_key_i64(&w, "to", (int64_t)to);
        for (size_t k = 0; k < NR_BRANCH_FLAGS; k++)
            pv_json_key_u64(&w, branch_flags[k].name,
                    (flags >> branch_flags[k].pos) & ((1ull << branch_flags[k].width) - 1));
        if (s->has_branch_counters)
            pv_json_key_u64(&w, "counters", pv_sample_u64_at(s, s->branch_counters, i));
        pv_json_object_end(&w);
    }
    pv_json_array_end(&w);
}

/* read_format decides the fields, in the order they are in the sample;
 * ids are unsigned here, unlike elsewhere, as they always were. */
void pv_sample_read_json(const pv_sample *s, pv_strbuf *out)
{
    uint64_t rf = s->read_format;
    uint64_t i = 0;
    pv_json_writer w;
    pv_json_init(&w, out);
    pv_json_object_begin(&w);
    bool group = rf & PV_FORMAT_GROUP;
    uint64_t nr = 1;
    if (group) {
        nr = pv_sample_u64_at(s, s->read, i++);
        pv_json_key_u64(&w, "nr", nr);
    } else {
        pv_json_key_u64(&w, "value", pv_sample_u64_at(s, s->read, i++));
    }
    if (rf & PV_FORMAT_TOTAL_TIME_ENABLED)
        pv_json_key_u64(&w, "time_enabled", pv_sample_u64_at(s, s->read, i++));
    if (rf & PV_FORMAT_TOTAL_TIME_RUNNING)
        pv_json_key_u64(&w, "time_running", pv_sample_u64_at(s, s->read, i++));
    if (group) {
        pv_json_key(&w, "values");
        pv_json_array_begin(&w);
    }
    for (uint64_t k = 0; k < nr; k++) {
        if (group) {
            pv_json_object_begin(&w);
            pv_json_key_u64(&w, "value", pv_sample_u64_at(s, s->read, i++));
        }
        if (rf & PV_FORMAT_ID)
            pv_json_key_u64(&w, "id", pv_sample_u64_at(s, s->read, i++));
        if (rf & PV_FORMAT_LOST)
            pv_json_key_u64(&w, "lost", pv_sample_u64_at(s, s->read, i++));
        if (group)
            pv_json_object_end(&w);
    }
    if (group)
        pv_json_array_end(&w);
    pv_json_object_end(&w);
}

/* {"abi":..,"mask":..,"regs":{"<register number>":value,...}} */
void pv_sample_regs_json(const pv_sample *s, const pv_sample_regs *regs, pv_strbuf *out)
{
    pv_json_writer w;
    pv_json_init(&w, out);
    pv_json_object_begin(&w);
    pv_json_key_u64(&w, "abi", regs->abi);
    pv_json_key_u64(&w, "mask", regs->mask);
    pv_json_key(&w, "regs");
    pv_json_object_begin(&w);
    uint64_t k = 0;
    for (int bit = 0; bit < 64 && k < regs->nr; bit++) {
        if (!((regs->mask >> bit) & 1))
            continue;
        char name[4];
        snprintf(name, sizeof name, "%d", bit);
        pv_json_key_i64(&w, name, (int64_t)pv_sample_u64_at(s, regs->values, k));
        k++;
    }
    pv_json_object_end(&w);
    pv_json_object_end(&w);
}
