#include "attr.h"

#include <stdlib.h>
#include <string.h>

/* On a big-endian writer the flag bit field starts at the most significant
 * bit of each byte; reversing the bits of every byte gives the
 * little-endian layout the flag numbers refer to. */
static uint64_t flags_from_file(const uint8_t *p, bool swap)
{
    if (!swap)
        return pv_load_u64(p, false);
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++) {
        uint8_t b = p[i], r = 0;
        for (int k = 0; k < 8; k++)
            r |= (uint8_t)(((b >> k) & 1) << (7 - k));
        bytes[i] = r;
    }
    return pv_load_u64(bytes, false);
}

int pv_attr_decode(pv_cursor *c, uint64_t attr_bytes, pv_attr *a,
                   const char *path, pv_error *err)
{
    uint64_t start = pv_cursor_offset(c);
    const uint8_t *raw = pv_cursor_bytes(c, attr_bytes);
    if (!raw)
        return pv_error_set(err, "%s: truncated perf_event_attr at offset 0x%llx",
                            path, (unsigned long long)start);
    if (attr_bytes < PV_ATTR_SIZE_VER0)
        return pv_error_set(err, "%s: perf_event_attr at offset 0x%llx is %llu bytes (< %d)",
                            path, (unsigned long long)start, (unsigned long long)attr_bytes,
                            PV_ATTR_SIZE_VER0);
    memset(a, 0, sizeof *a);
    a->file_offset = start;
    /* Fields beyond what the writer had stay zero: read from a zero-padded
     * copy of the known prefix. */
    uint8_t buf[160];
    memset(buf, 0, sizeof buf);
    memcpy(buf, raw, attr_bytes < sizeof buf ? (size_t)attr_bytes : sizeof buf);
    pv_cursor f;
    pv_cursor_init(&f, buf, sizeof buf, start, c->swap);
    a->type = pv_cursor_u32(&f);
    a->size = pv_cursor_u32(&f);
    a->config = pv_cursor_u64(&f);
    a->sample_period = pv_cursor_u64(&f);
    a->sample_type = pv_cursor_u64(&f);
    a->read_format = pv_cursor_u64(&f);
    a->flags = flags_from_file(buf + f.pos, c->swap);
    pv_cursor_skip(&f, 8);
    a->wakeup_events = pv_cursor_u32(&f);
    a->bp_type = pv_cursor_u32(&f);
    a->config1 = pv_cursor_u64(&f);
    /* end of PERF_ATTR_SIZE_VER0 (64) */
    a->config2 = pv_cursor_u64(&f);
    /* VER1 (72) */
    a->branch_sample_type = pv_cursor_u64(&f);
    /* VER2 (80) */
    a->sample_regs_user = pv_cursor_u64(&f);
    a->sample_stack_user = pv_cursor_u32(&f);
    a->clockid = (int32_t)pv_cursor_u32(&f);
    /* VER3 (96) */
    a->sample_regs_intr = pv_cursor_u64(&f);
    /* VER4 (104) */
    a->aux_watermark = pv_cursor_u32(&f);
    a->sample_max_stack = pv_cursor_u16(&f);
    pv_cursor_u16(&f);
    /* VER5 (112) */
    a->aux_sample_size = pv_cursor_u32(&f);
    pv_cursor_u32(&f);
    /* VER6 (120) */
    a->sig_data = pv_cursor_u64(&f);
    /* VER7 (128) */
    a->config3 = pv_cursor_u64(&f);
    /* VER8 (136) */
    return 0;
}

static const char *const hardware_names[] = {
    "cycles", "instructions", "cache-references", "cache-misses",
    "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
    "stalled-cycles-backend", "ref-cycles",
};

static const char *const software_names[] = {
    "cpu-clock", "task-clock", "page-faults", "context-switches",
    "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static const char *const cache_names[] = {"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node"};
static const char *const cache_ops[] = {"load", "store", "prefetch"};
static const char *const cache_ops_plural[] = {"loads", "stores", "prefetches"};

enum { TYPE_HARDWARE, TYPE_SOFTWARE, TYPE_TRACEPOINT, TYPE_HW_CACHE, TYPE_RAW, TYPE_BREAKPOINT };

void pv_attr_default_name(const pv_attr *a, pv_strbuf *out)
{
    uint64_t cfg = a->config;
    switch (a->type) {
    case TYPE_HARDWARE:
        if (cfg < sizeof hardware_names / sizeof hardware_names[0]) {
            pv_strbuf_puts(out, hardware_names[cfg]);
            return;
        }
        break;
    case TYPE_SOFTWARE:
        if (cfg < sizeof software_names / sizeof software_names[0]) {
            pv_strbuf_puts(out, software_names[cfg]);
            return;
        }
        break;
    case TYPE_TRACEPOINT:
        pv_strbuf_printf(out, "tracepoint:%llu", (unsigned long long)cfg);
        return;
    case TYPE_HW_CACHE: {
        uint64_t id = cfg & 0xff, op = (cfg >> 8) & 0xff, result = (cfg >> 16) & 0xff;
        if (id < 7 && op < 3 && result < 2) {
            if (result == 0)
                pv_strbuf_printf(out, "%s-%s", cache_names[id], cache_ops_plural[op]);
            else
                pv_strbuf_printf(out, "%s-%s-misses", cache_names[id], cache_ops[op]);
            return;
        }
        break;
    }
    case TYPE_RAW:
        pv_strbuf_printf(out, "raw 0x%llx", (unsigned long long)cfg);
        return;
    case TYPE_BREAKPOINT:
        pv_strbuf_printf(out, "mem:0x%llx", (unsigned long long)a->config1);
        return;
    default:
        break;
    }
    pv_strbuf_printf(out, "unknown attr type: %u", a->type);
}

static void bits_string(uint64_t value, const char *const *names, int count, pv_strbuf *out)
{
    bool first = true;
    for (int bit = 0; bit < 64; bit++) {
        if (!((value >> bit) & 1))
            continue;
        if (!first)
            pv_strbuf_puts(out, "|");
        first = false;
        if (bit < count && names[bit])
            pv_strbuf_puts(out, names[bit]);
        else
            pv_strbuf_printf(out, "0x%llx", (unsigned long long)1 << bit);
    }
}

void pv_sample_type_string(uint64_t sample_type, pv_strbuf *out)
{
    static const char *const names[] = {
        "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
        "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
        "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
        "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
    };
    bits_string(sample_type, names, (int)(sizeof names / sizeof names[0]), out);
}

void pv_read_format_string(uint64_t read_format, pv_strbuf *out)
{
    static const char *const names[] = {
        "TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
    };
    bits_string(read_format, names, (int)(sizeof names / sizeof names[0]), out);
}

void pv_attr_json(const pv_attr *a, pv_strbuf *out)
{
    static const char *const flag_names[] = {
        "disabled", "inherit", "pinned", "exclusive", "exclude_user",
        "exclude_kernel", "exclude_hv", "exclude_idle", "mmap", "comm", "freq",
        "inherit_stat", "enable_on_exec", "task", "watermark", NULL, NULL,
        "mmap_data", "sample_id_all", "exclude_host", "exclude_guest",
        "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
        "comm_exec", "use_clockid", "context_switch", "write_backward",
        "namespaces", "ksymbol", "bpf_event", "aux_output", "cgroup",
        "text_poke", "build_id", "inherit_thread", "remove_on_exec", "sigtrap",
    };
    pv_strbuf_printf(out, "{\"type\":%u,\"size\":%u,\"config\":", a->type, a->size);
    pv_strbuf_json_i64(out, a->config);
    pv_strbuf_puts(out, pv_attr_flag(a, PV_ATTR_FREQ) ? ",\"sample_freq\":" : ",\"sample_period\":");
    pv_strbuf_json_u64(out, a->sample_period);
    pv_strbuf_printf(out, ",\"sample_type\":%llu,\"read_format\":%llu",
                     (unsigned long long)a->sample_type, (unsigned long long)a->read_format);
    for (size_t bit = 0; bit < sizeof flag_names / sizeof flag_names[0]; bit++)
        if (flag_names[bit])
            pv_strbuf_printf(out, ",\"%s\":%d", flag_names[bit], (int)((a->flags >> bit) & 1));
    pv_strbuf_printf(out, ",\"precise_ip\":%d", (int)((a->flags >> PV_ATTR_PRECISE_IP) & 3));
    pv_strbuf_printf(out, ",\"wakeup_events\":%u,\"bp_type\":%u,\"config1\":", a->wakeup_events, a->bp_type);
    pv_strbuf_json_i64(out, a->config1);
    pv_strbuf_puts(out, ",\"config2\":");
    pv_strbuf_json_i64(out, a->config2);
    pv_strbuf_printf(out, ",\"branch_sample_type\":%llu,\"sample_regs_user\":%llu,"
                     "\"sample_stack_user\":%u,\"clockid\":%d,\"sample_regs_intr\":%llu,"
                     "\"aux_watermark\":%u,\"sample_max_stack\":%u,\"aux_sample_size\":%u,"
                     "\"sig_data\":%llu,\"config3\":",
                     (unsigned long long)a->branch_sample_type,
                     (unsigned long long)a->sample_regs_user, a->sample_stack_user,
                     a->clockid, (unsigned long long)a->sample_regs_intr,
                     a->aux_watermark, a->sample_max_stack, a->aux_sample_size,
                     (unsigned long long)a->sig_data);
    pv_strbuf_json_i64(out, a->config3);
    pv_strbuf_puts(out, "}");
}
