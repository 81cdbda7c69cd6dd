#include "format/attr.h"

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

int pv_attr_decode(pv_byte_reader *c, uint64_t attr_bytes, pv_attr *a,
                   const char *path, pv_error *err)
{
    uint64_t start = pv_bytes_offset(c);
    const uint8_t *raw = pv_bytes_take(c, attr_bytes);
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
    pv_byte_reader f;
    pv_byte_reader_init(&f, buf, sizeof buf, start, c->swap);
    a->type = pv_bytes_u32(&f);
    a->size = pv_bytes_u32(&f);
    a->config = pv_bytes_u64(&f);
    a->sample_period = pv_bytes_u64(&f);
    a->sample_type = pv_bytes_u64(&f);
    a->read_format = pv_bytes_u64(&f);
    a->flags = flags_from_file(buf + f.pos, c->swap);
    pv_bytes_skip(&f, 8);
    a->wakeup_events = pv_bytes_u32(&f);
    a->bp_type = pv_bytes_u32(&f);
    a->config1 = pv_bytes_u64(&f);
    /* end of PERF_ATTR_SIZE_VER0 (64) */
    a->config2 = pv_bytes_u64(&f);
    /* VER1 (72) */
    a->branch_sample_type = pv_bytes_u64(&f);
    /* VER2 (80) */
    a->sample_regs_user = pv_bytes_u64(&f);
    a->sample_stack_user = pv_bytes_u32(&f);
    a->clockid = (int32_t)pv_bytes_u32(&f);
    /* VER3 (96) */
    a->sample_regs_intr = pv_bytes_u64(&f);
    /* VER4 (104) */
    a->aux_watermark = pv_bytes_u32(&f);
    a->sample_max_stack = pv_bytes_u16(&f);
    pv_bytes_u16(&f);
    /* VER5 (112) */
    a->aux_sample_size = pv_bytes_u32(&f);
    pv_bytes_u32(&f);
    /* VER6 (120) */
    a->sig_data = pv_bytes_u64(&f);
    /* VER7 (128) */
    a->config3 = pv_bytes_u64(&f);
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

void pv_attr_write_json(const pv_attr *a, pv_json_writer *w)
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
    pv_json_object_begin(w);
    pv_json_key_u64(w, "type", a->type);
    pv_json_key_u64(w, "size", a->size);
    pv_json_key_i64(w, "config", (int64_t)a->config);
    pv_json_key_u64(w, pv_attr_flag(a, PV_ATTR_FREQ) ? "sample_freq" : "sample_period", a->sample_period);
    pv_json_key_u64(w, "sample_type", a->sample_type);
    pv_json_key_u64(w, "read_format", a->read_format);
    for (size_t bit = 0; bit < sizeof flag_names / sizeof flag_names[0]; bit++)
        if (flag_names[bit])
            pv_json_key_u64(w, flag_names[bit], (a->flags >> bit) & 1);
    pv_json_key_u64(w, "precise_ip", (a->flags >> PV_ATTR_PRECISE_IP) & 3);
    pv_json_key_u64(w, "wakeup_events", a->wakeup_events);
    pv_json_key_u64(w, "bp_type", a->bp_type);
    pv_json_key_i64(w, "config1", (int64_t)a->config1);
    pv_json_key_i64(w, "config2", (int64_t)a->config2);
    pv_json_key_u64(w, "branch_sample_type", a->branch_sample_type);
    pv_json_key_u64(w, "sample_regs_user", a->sample_regs_user);
    pv_json_key_u64(w, "sample_stack_user", a->sample_stack_user);
    pv_json_key_i64(w, "clockid", a->clockid);
    pv_json_key_u64(w, "sample_regs_intr", a->sample_regs_intr);
    pv_json_key_u64(w, "aux_watermark", a->aux_watermark);
    pv_json_key_u64(w, "sample_max_stack", a->sample_max_stack);
    pv_json_key_u64(w, "aux_sample_size", a->aux_sample_size);
    pv_json_key_u64(w, "sig_data", a->sig_data);
    pv_json_key_i64(w, "config3", (int64_t)a->config3);
    pv_json_object_end(w);
}

void pv_attr_json(const pv_attr *a, pv_strbuf *out)
{
    pv_json_writer w;
    pv_json_init(&w, out);
    pv_attr_write_json(a, &w);
}
