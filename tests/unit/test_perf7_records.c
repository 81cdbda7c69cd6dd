/*
 * Unit test of the decoders of the records perf added after 6.1
 * (src/decode/record_types.h): BPF_METADATA, SCHEDSTAT_CPU and
 * SCHEDSTAT_DOMAIN of schedstat versions 15, 16 and 17 and of a version
 * without a known layout, built byte by byte in both byte orders, with the
 * short records that must be errors naming the field.  Layouts: perf's
 * tools/lib/perf/include/perf/event.h and schedstat-v1[567].h.
 *
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "decode/record_types.h"
#include "byte_builder.h"
#include "unit_check.h"
#include "record_checks.h"

static void test_bpf_metadata(bool be)
{
    pv_file f = fake_file(NULL, be);
    byte_builder w;
    pv_error err;
    pv_rec_bpf_metadata m;

    bb_record_start(&w, be);
    bb_padded_string(&w, "bpf_prog_abc", 512);
    bb_u64(&w, 2);
    bb_padded_string(&w, "bpf_metadata_a", 64);
    bb_padded_string(&w, "1", 256);
    bb_padded_string(&w, "bpf_metadata_b", 64);
    bb_padded_string(&w, "two words", 256);
    pv_record r = bb_record_finish(&w, PV_RECORD_BPF_METADATA, 0, 0);
    const char *what = named("BPF_METADATA: name and two entries", be);
    DECODED(what, pv_rec_bpf_metadata_decode(&f, &r, &m, &err), err);
    TEXT(what, m.prog_name, m.prog_name_len, "bpf_prog_abc");
    EQ(what, m.nr_entries, 2);
    const char *key, *value;
    uint64_t key_len, value_len;
    pv_rec_bpf_metadata_entry(&m, 1, &key, &key_len, &value, &value_len);
    TEXT(what, key, key_len, "bpf_metadata_b");
    TEXT(what, value, value_len, "two words");
    check(true, what, " ");

    r = bb_record_finish(&w, PV_RECORD_BPF_METADATA, 0, BB_RECORD_HEADER_SIZE + 520 + 320 + 10);
    expect_error(named("BPF_METADATA whose second entry is cut", be),
                 pv_rec_bpf_metadata_decode(&f, &r, &m, &err), &err, "BPF_METADATA record",
                 "bpf_metadata entry");
    r = bb_record_finish(&w, PV_RECORD_BPF_METADATA, 0, BB_RECORD_HEADER_SIZE + 100);
    expect_error(named("BPF_METADATA cut inside prog_name", be),
                 pv_rec_bpf_metadata_decode(&f, &r, &m, &err), &err, "prog_name at offset", NULL);
}

/* A SCHEDSTAT record's header; domain < 0: SCHEDSTAT_CPU. */
static void schedstat_header(byte_builder *w, bool be, int version, int domain)
{
    bb_record_start(w, be);
    bb_u64(w, 0x1122334455ull);
    bb_u32(w, 7);
    bb_u16(w, (uint64_t)version);
    bb_u16(w, domain < 0 ? 0 : (uint64_t)domain);
}

static void test_schedstat_cpu(bool be)
{
    pv_file f = fake_file(NULL, be);
    byte_builder w;
    pv_error err;
    pv_rec_schedstat s;

    for (int version = 15; version <= 17; version++) {
        schedstat_header(&w, be, version, -1);
        for (int i = 0; i < 6; i++)
            bb_u32(&w, 0xfffffff0u + (unsigned)i);
        for (int i = 0; i < 3; i++)
            bb_u64(&w, 0x100000000ull * (unsigned)(i + 1) + (unsigned)version);
        pv_record r = bb_record_finish(&w, PV_RECORD_SCHEDSTAT_CPU, 0, 0);
        char label[64];
        snprintf(label, sizeof label, "SCHEDSTAT_CPU version %d", version);
        const char *what = named(label, be);
        DECODED(what, pv_rec_schedstat_decode(&f, &r, &s, &err), err);
        EQ(what, s.domain_record, false);
        EQ(what, s.timestamp, 0x1122334455ull);
        EQ(what, s.cpu, 7);
        EQ(what, s.version, version);
        EQ(what, s.nr_counters, 9);
        EQ(what, strcmp(s.layout[5].name, "ttwu_local"), 0);
        EQ(what, pv_rec_schedstat_counter(&s, 5), 0xfffffff5u);
        EQ(what, strcmp(s.layout[8].name, "pcount"), 0);
        EQ(what, pv_rec_schedstat_counter(&s, 8), 0x300000000ull + (unsigned)version);
        check(true, what, " ");
    }
    /* cut inside run_delay (the 8th counter, at body offset 48) */
    pv_record r = bb_record_finish(&w, PV_RECORD_SCHEDSTAT_CPU, 0, BB_RECORD_HEADER_SIZE + 52);
    expect_error(named("SCHEDSTAT_CPU cut inside run_delay", be),
                 pv_rec_schedstat_decode(&f, &r, &s, &err), &err, "SCHEDSTAT_CPU record",
                 "run_delay at offset");

    /* a version without a known layout: the header, and its bytes */
    schedstat_header(&w, be, 18, -1);
    bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_SCHEDSTAT_CPU, 0, 0);
    const char *what = named("SCHEDSTAT_CPU version 18: header only", be);
    DECODED(what, pv_rec_schedstat_decode(&f, &r, &s, &err), err);
    EQ(what, s.version, 18);
    EQ(what, s.layout == NULL, true);
    EQ(what, s.counters_size, 8);
    check(true, what, " ");
}

static void test_schedstat_domain(bool be)
{
    static const struct {
        int version;
        size_t nr;
        const char *first, *eleventh, *last;
    } versions[] = {
        {15, 36, "idle_lb_count", "busy_lb_failed", "ttwu_move_balance"},
        {16, 36, "busy_lb_count", "idle_lb_failed", "ttwu_move_balance"},
        {17, 45, "busy_lb_count", "busy_lb_nobusyg", "ttwu_move_balance"},
    };
    pv_file f = fake_file(NULL, be);
    byte_builder w;
    pv_error err;
    pv_rec_schedstat s;

    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        schedstat_header(&w, be, versions[v].version, 3);
        for (size_t i = 0; i < versions[v].nr; i++)
            bb_u32(&w, 0xabc00000u + i);
        pv_record r = bb_record_finish(&w, PV_RECORD_SCHEDSTAT_DOMAIN, 0, 0);
        char label[64];
        snprintf(label, sizeof label, "SCHEDSTAT_DOMAIN version %d", versions[v].version);
        const char *what = named(label, be);
        DECODED(what, pv_rec_schedstat_decode(&f, &r, &s, &err), err);
        EQ(what, s.domain_record, true);
        EQ(what, s.domain, 3);
        EQ(what, s.cpu, 7);
        EQ(what, s.nr_counters, versions[v].nr);
        EQ(what, strcmp(s.layout[0].name, versions[v].first), 0);
        EQ(what, strcmp(s.layout[10].name, versions[v].eleventh), 0);
        EQ(what, strcmp(s.layout[s.nr_counters - 1].name, versions[v].last), 0);
        EQ(what, pv_rec_schedstat_counter(&s, 10), 0xabc0000au);
        EQ(what, pv_rec_schedstat_counter(&s, s.nr_counters - 1), 0xabc00000u + versions[v].nr - 1);
        check(true, what, " ");
        r = bb_record_finish(&w, PV_RECORD_SCHEDSTAT_DOMAIN, 0, BB_RECORD_HEADER_SIZE + 12);
        expect_error(named("SCHEDSTAT_DOMAIN cut inside version", be),
                     pv_rec_schedstat_decode(&f, &r, &s, &err), &err, "SCHEDSTAT_DOMAIN record",
                     "version at offset");
    }
}

static void test_origins(void)
{
    const char *name, *since;
    check(pv_record_type_origin(84, &name, &since) && !strcmp(name, "BPF_METADATA") &&
              !strcmp(since, "perf 6.17"),
          "record type 84 came with perf 6.17", " ");
    check(pv_record_type_origin(22, &name, &since) && !strcmp(name, "CALLCHAIN_DEFERRED"),
          "record type 22 is CALLCHAIN_DEFERRED", " ");
    check(!pv_record_type_origin(87, &name, &since) && !pv_record_type_origin(9, &name, &since),
          "no origin for type 87 (unused) nor 9 (SAMPLE, older than 6.1)", " ");
}

int main(void)
{
    for (int be = 0; be <= 1; be++) {
        test_bpf_metadata(be);
        test_schedstat_cpu(be);
        test_schedstat_domain(be);
    }
    test_origins();
    return failures != 0;
}
