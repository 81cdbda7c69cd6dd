/* JSON renderings of a sample's structured fields. */
#include "perf_abi.h"
#include "sample.h"

void pv_sample_callchain_json(const pv_sample *s, pv_strbuf *out)
{
    bool first = true;
    pv_strbuf_puts(out, "[");
    for (uint64_t i = 0; i < s->callchain_nr; i++) {
        uint64_t ip = pv_sample_u64_at(s, s->callchain, i);
        if (ip >= PV_CONTEXT_MAX)
            continue;
        if (!first)
            pv_strbuf_puts(out, ",");
        first = false;
        pv_strbuf_json_i64(out, ip);
    }
    pv_strbuf_puts(out, "]");
}

/* A big-endian writer's compiler allocates the flags bit field from the
 * most significant bit (mispred is bit 63, cycles bits 59..44, ...): move
 * each field to its little-endian place, as perf's
 * evsel__bitfield_swap_branch_flags does.  The reserved bits are dropped. */
static uint64_t branch_flags_from_big_endian(uint64_t v)
{
    static const struct { unsigned pos, width; } fields[] = {
        {0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 16}, {20, 4}, {24, 2}, {26, 4}, {30, 3},
    };
    uint64_t out = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        uint64_t mask = (1ull << fields[i].width) - 1;
        out |= ((v >> (64 - fields[i].pos - fields[i].width)) & mask) << fields[i].pos;
    }
    return out;
}

/* Branch flags, in little-endian bit order:
 * mispred:1 predicted:1 in_tx:1 abort:1 cycles:16 type:4 spec:2 new_type:4 priv:3 */
void pv_sample_branch_stack_json(const pv_sample *s, pv_strbuf *out)
{
    bool big_endian_writer = s->swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
    pv_strbuf_puts(out, "[");
    for (uint64_t i = 0; i < s->branch_nr; i++) {
        uint64_t from = pv_sample_u64_at(s, s->branches, i * 3);
        uint64_t to = pv_sample_u64_at(s, s->branches, i * 3 + 1);
        uint64_t flags = pv_sample_u64_at(s, s->branches, i * 3 + 2);
        if (big_endian_writer)
            flags = branch_flags_from_big_endian(flags);
        if (i)
            pv_strbuf_puts(out, ",");
        pv_strbuf_puts(out, "{\"from\":");
        pv_strbuf_json_i64(out, from);
        pv_strbuf_puts(out, ",\"to\":");
        pv_strbuf_json_i64(out, to);
        pv_strbuf_printf(out,
                         ",\"mispred\":%u,\"predicted\":%u,\"in_tx\":%u,\"abort\":%u,"
                         "\"cycles\":%u,\"type\":%u,\"spec\":%u,\"new_type\":%u,\"priv\":%u}",
                         (unsigned)(flags & 1), (unsigned)((flags >> 1) & 1),
                         (unsigned)((flags >> 2) & 1), (unsigned)((flags >> 3) & 1),
                         (unsigned)((flags >> 4) & 0xffff), (unsigned)((flags >> 20) & 0xf),
                         (unsigned)((flags >> 24) & 3), (unsigned)((flags >> 26) & 0xf),
                         (unsigned)((flags >> 30) & 7));
    }
    pv_strbuf_puts(out, "]");
}

void pv_sample_read_json(const pv_sample *s, pv_strbuf *out)
{
    uint64_t rf = s->read_format;
    uint64_t i = 0;
    pv_strbuf_puts(out, "{");
    bool group = rf & PV_FORMAT_GROUP;
    uint64_t nr = 1;
    if (group) {
        nr = pv_sample_u64_at(s, s->read, i++);
        pv_strbuf_printf(out, "\"nr\":%llu,", (unsigned long long)nr);
    } else {
        pv_strbuf_printf(out, "\"value\":%llu,", (unsigned long long)pv_sample_u64_at(s, s->read, i++));
    }
    if (rf & PV_FORMAT_TOTAL_TIME_ENABLED)
        pv_strbuf_printf(out, "\"time_enabled\":%llu,", (unsigned long long)pv_sample_u64_at(s, s->read, i++));
    if (rf & PV_FORMAT_TOTAL_TIME_RUNNING)
        pv_strbuf_printf(out, "\"time_running\":%llu,", (unsigned long long)pv_sample_u64_at(s, s->read, i++));
    if (group) {
        pv_strbuf_puts(out, "\"values\":[");
        for (uint64_t k = 0; k < nr; k++) {
            pv_strbuf_printf(out, "%s{\"value\":%llu", k ? "," : "",
                             (unsigned long long)pv_sample_u64_at(s, s->read, i++));
            if (rf & PV_FORMAT_ID)
                pv_strbuf_printf(out, ",\"id\":%llu", (unsigned long long)pv_sample_u64_at(s, s->read, i++));
            if (rf & PV_FORMAT_LOST)
                pv_strbuf_printf(out, ",\"lost\":%llu", (unsigned long long)pv_sample_u64_at(s, s->read, i++));
            pv_strbuf_puts(out, "}");
        }
        pv_strbuf_puts(out, "]}");
        return;
    }
    if (rf & PV_FORMAT_ID)
        pv_strbuf_printf(out, "\"id\":%llu,", (unsigned long long)pv_sample_u64_at(s, s->read, i++));
    if (rf & PV_FORMAT_LOST)
        pv_strbuf_printf(out, "\"lost\":%llu,", (unsigned long long)pv_sample_u64_at(s, s->read, i++));
    if (out->len > 0 && !out->failed && out->text[out->len - 1] == ',')
        out->text[--out->len] = 0;  /* the trailing comma */
    pv_strbuf_puts(out, "}");
}

void pv_sample_regs_json(const pv_sample *s, const pv_sample_regs *regs, pv_strbuf *out)
{
    pv_strbuf_printf(out, "{\"abi\":%llu,\"mask\":%llu,\"regs\":{",
                     (unsigned long long)regs->abi, (unsigned long long)regs->mask);
    uint64_t k = 0;
    for (int bit = 0; bit < 64 && k < regs->nr; bit++) {
        if (!((regs->mask >> bit) & 1))
            continue;
        pv_strbuf_printf(out, "%s\"%d\":", k ? "," : "", bit);
        pv_strbuf_json_i64(out, pv_sample_u64_at(s, regs->values, k));
        k++;
    }
    pv_strbuf_puts(out, "}}");
}
