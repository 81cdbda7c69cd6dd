/*
 * What the unit tests of sample decoding (test_samples.c, test_sample_ids.c)
 * share: a pv_file as pv_file_open leaves it, with attrs and an id map
 * filled by hand, decoding a built record, and the JSON renderings.
 * Include after unit_check.h and byte_builder.h.
 */
#ifndef PV_SAMPLE_CHECKS_H
#define PV_SAMPLE_CHECKS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "format/attr.h"
#include "format/perf_file.h"
#include "base/pv_strbuf.h"
#include "decode/sample.h"

#define FAKE_PATH "fake.data"


static inline void check_u64(const char *what, uint64_t got, uint64_t want)
{
    check(got == want, what, "got 0x%llx, want 0x%llx", (unsigned long long)got,
          (unsigned long long)want);
}

static inline void check_str(const char *what, const char *got, const char *want)
{
    check(strcmp(got, want) == 0, what, "got '%s', want '%s'", got, want);
}

/* ---- a pv_file as pv_file_open leaves it ---- */

typedef struct fake {
    pv_file f;
    pv_attr attrs[4];
    struct pv_id_entry ids[8];
} fake;

static inline void fake_init(fake *k, bool swap)
{
    memset(k, 0, sizeof *k);
    k->f.path = FAKE_PATH;
    k->f.data_path = FAKE_PATH;
    k->f.fd = -1;
    k->f.swap = swap;
    k->f.attrs = k->attrs;
    k->f.nr_attrs = 1;
    k->f.id_map = k->ids;
    k->f.sample_id_word = -1;
    k->f.trailer_id_word = -1;
}

/* What pv_file_open's locate_ids computes from the first attr. */
static inline void fake_locate_ids(fake *k)
{
    uint64_t t = k->attrs[0].sample_type;
    k->f.sample_id_word = -1;
    k->f.trailer_id_word = -1;
    if (t & PV_SAMPLE_IDENTIFIER) {
        k->f.sample_id_word = 0;
        k->f.trailer_id_word = 1;
    } else if (t & PV_SAMPLE_ID) {
        k->f.sample_id_word = !!(t & PV_SAMPLE_IP) + !!(t & PV_SAMPLE_TID) +
                              !!(t & PV_SAMPLE_TIME) + !!(t & PV_SAMPLE_ADDR);
        k->f.trailer_id_word = 1 + !!(t & PV_SAMPLE_CPU) + !!(t & PV_SAMPLE_STREAM_ID);
    }
}

/* ids must be given in increasing order (the map is sorted). */
static inline void fake_add_id(fake *k, uint64_t id, uint32_t attr_index)
{
    k->ids[k->f.nr_id_map].id = id;
    k->ids[k->f.nr_id_map].attr_index = attr_index;
    k->f.nr_id_map++;
}

static inline int decode(fake *k, byte_builder *b, pv_sample *s, pv_error *err)
{
    pv_record r = bb_record_end(b);
    err->msg[0] = 0;
    return pv_sample_decode(&k->f, &r, s, err);
}

static pv_strbuf json;

static inline const char *callchain_json(const pv_sample *s)
{
    pv_strbuf_reset(&json);
    pv_sample_callchain_json(s, &json);
    return pv_strbuf_text(&json);
}

static inline const char *branch_json(const pv_sample *s)
{
    pv_strbuf_reset(&json);
    pv_sample_branch_stack_json(s, &json);
    return pv_strbuf_text(&json);
}

static inline const char *read_json(const pv_sample *s)
{
    pv_strbuf_reset(&json);
    pv_sample_read_json(s, &json);
    return pv_strbuf_text(&json);
}

static inline const char *regs_json(const pv_sample *s, const pv_sample_regs *regs)
{
    pv_strbuf_reset(&json);
    pv_sample_regs_json(s, regs, &json);
    return pv_strbuf_text(&json);
}

static char what[256];

static inline const char *name(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *name(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return what;
}

#endif
