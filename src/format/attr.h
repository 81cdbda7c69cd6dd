/*
 * perf_event_attr as written in a perf.data file, and event names.
 */
#ifndef PV_ATTR_H
#define PV_ATTR_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_abi.h"
#include "base/json_writer.h"
#include "base/byte_reader.h"
#include "base/pv_error.h"
#include "base/pv_strbuf.h"

/* perf_event_attr, every field perf ever defined; fields past the size the
 * writer used read as zero, as the kernel treats them. */
typedef struct pv_attr {
    uint32_t type;
    uint32_t size;              /* attr.size as written */
    uint64_t config;
    uint64_t sample_period;     /* or sample_freq when flags has freq */
    uint64_t sample_type;
    uint64_t read_format;
    uint64_t flags;             /* the bit field, in little-endian bit order */
    uint32_t wakeup_events;
    uint32_t bp_type;
    uint64_t config1;
    uint64_t config2;
    uint64_t branch_sample_type;
    uint64_t sample_regs_user;
    uint32_t sample_stack_user;
    int32_t clockid;
    uint64_t sample_regs_intr;
    uint32_t aux_watermark;
    uint16_t sample_max_stack;
    uint32_t aux_sample_size;
    uint64_t sig_data;
    uint64_t config3;

    uint64_t *ids;              /* sample ids of this event */
    uint64_t nr_ids;
    uint64_t file_offset;       /* where the attr was read, for messages */
    char *name;                 /* as perf report names it; see pv_file_event_name */
    /* perf 6.14+'s offcpu-time event: its samples' task, period and stack
     * are in their raw data (format/offcpu_event.h) */
    bool offcpu_embedded;
} pv_attr;

/* Bits of pv_attr.flags. */
enum {
    PV_ATTR_FREQ = 10,
    PV_ATTR_PRECISE_IP = 15,    /* two bits */
    PV_ATTR_SAMPLE_ID_ALL = 18,
};

static inline bool pv_attr_flag(const pv_attr *a, int bit)
{
    return (a->flags >> bit) & 1;
}

/* Size of the first published perf_event_attr; every file has at least it. */
#define PV_ATTR_SIZE_VER0 64

/* Decodes an attr of attr_bytes bytes at the reader (attr_size-driven: a
 * shorter attr leaves later fields zero, a longer one has its tail skipped).
 * The reader ends just past the attr. */
int pv_attr_decode(pv_byte_reader *c, uint64_t attr_bytes, pv_attr *a,
                   const char *path, pv_error *err);

/* perf's name for an event from type and config alone ("cycles",
 * "cpu-clock", "raw 0x1234"...), written into out. */
void pv_attr_default_name(const pv_attr *a, pv_strbuf *out);

/* sample_type / read_format / branch_sample_type as 'IP|TID|TIME'. */
void pv_sample_type_string(uint64_t sample_type, pv_strbuf *out);
void pv_read_format_string(uint64_t read_format, pv_strbuf *out);

/* Every attr field as a JSON object, one value of w. */
void pv_attr_write_json(const pv_attr *a, pv_json_writer *w);
/* The same object appended to out on its own. */
void pv_attr_json(const pv_attr *a, pv_strbuf *out);

#endif
