/*
 * Unit tests of sample decoding (src/decode/sample.c) and its JSON renderings
 * (src/decode/sample_json.c) on SAMPLE records built byte by byte: each
 * field and their order.  Which event a sample belongs to, the sample_id
 * trailer and malformed samples are in test_sample_ids.c.
 *
 * Each test builds a fake pv_file in memory -- the attrs, the id map and
 * sample_id_word / trailer_id_word as pv_file_open would set them -- then a
 * record in the writer's byte order, decodes it and compares every field.
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/file_open.h"
#include "format/attr.h"
#include "byte_builder.h"
#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "base/pv_strbuf.h"
#include "stream/record_walk.h"
#include "decode/sample.h"
#include "unit_check.h"
#include "sample_checks.h"

/* ---- the tests ---- */

static void test_identifier(void)
{
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, false);
    k.attrs[0].sample_type = PV_SAMPLE_IDENTIFIER | PV_SAMPLE_IP | PV_SAMPLE_ID;
    fake_locate_ids(&k);
    bb_record_begin(&b, PV_RECORD_SAMPLE, 1, false);
    bb_u64(&b, 0x77);
    bb_u64(&b, 0x401000);
    bb_u64(&b, 0x77);
    int rc = decode(&k, &b, &s, &err);
    check(rc == 0, "IDENTIFIER: decodes", "%s", err.msg);
    check_u64("IDENTIFIER: identifier is the first word", s.identifier, 0x77);
    check_u64("IDENTIFIER: ip follows it", s.ip, 0x401000);
    check_u64("IDENTIFIER: id after ip", s.id, 0x77);
    check_u64("IDENTIFIER: sample_type kept", s.sample_type, k.attrs[0].sample_type);
}

static void put_fixed(byte_builder *b)
{
    bb_u64(b, 0x1111111111111111ull);  /* ip */
    bb_u32(b, 1234);                   /* pid */
    bb_u32(b, 1235);                   /* tid */
    bb_u64(b, 0x3333333333333333ull);  /* time */
    bb_u64(b, 0x4444444444444444ull);  /* addr */
    bb_u64(b, 0x5555555555555555ull);  /* id */
    bb_u64(b, 0x6666666666666666ull);  /* stream_id */
    bb_u32(b, 7);                      /* cpu */
    bb_u32(b, 0xdeadbeef);             /* res */
    bb_u64(b, 0x8888888888888888ull);  /* period */
}

#define FIXED_TYPES (PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_ADDR | PV_SAMPLE_ID | \
                     PV_SAMPLE_STREAM_ID | PV_SAMPLE_CPU | PV_SAMPLE_PERIOD)

static void check_fixed(const char *label, const pv_sample *s)
{
    check_u64(name("%s: ip", label), s->ip, 0x1111111111111111ull);
    check_u64(name("%s: pid", label), s->pid, 1234);
    check_u64(name("%s: tid", label), s->tid, 1235);
    check_u64(name("%s: time", label), s->time, 0x3333333333333333ull);
    check_u64(name("%s: addr", label), s->addr, 0x4444444444444444ull);
    check_u64(name("%s: id", label), s->id, 0x5555555555555555ull);
    check_u64(name("%s: stream_id", label), s->stream_id, 0x6666666666666666ull);
    check_u64(name("%s: cpu (res ignored)", label), s->cpu, 7);
    check_u64(name("%s: period", label), s->period, 0x8888888888888888ull);
}

static void test_fixed_order(bool swap)
{
    const char *label = swap ? "fixed fields, big-endian" : "fixed fields";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = FIXED_TYPES;
    fake_locate_ids(&k);
    bb_record_begin(&b, PV_RECORD_SAMPLE, 2 /* PERF_RECORD_MISC_USER */, swap);
    put_fixed(&b);
    check(decode(&k, &b, &s, &err) == 0, name("%s: decodes", label), "%s", err.msg);
    check_fixed(label, &s);
    check_u64(name("%s: misc", label), s.misc, 2);

    /* One short: the record ends inside period. */
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    put_fixed(&b);
    b.n -= 8;
    int rc = decode(&k, &b, &s, &err);
    check(rc == -1 && strstr(err.msg, FAKE_PATH) && strstr(err.msg, "offset 0x"),
          name("%s: record ending inside period is an error with the offset", label),
          "rc %d, '%s'", rc, err.msg);
}

/* Builds IP|READ|CALLCHAIN, the callchain after the read block proving
 * the read block's size was right. */
static void test_read(uint64_t rf, bool swap)
{
    bool group = rf & PV_FORMAT_GROUP;
    char label[128];
    pv_strbuf rfs = {0};
    pv_read_format_string(rf, &rfs);
    snprintf(label, sizeof label, "READ %s%s%s", group ? "group " : "non-group ",
             pv_strbuf_text(&rfs)[0] ? pv_strbuf_text(&rfs) : "(no flags)", swap ? " big-endian" : "");
    pv_strbuf_free(&rfs);

    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_READ | PV_SAMPLE_CALLCHAIN;
    k.attrs[0].read_format = rf;
    fake_locate_ids(&k);
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 0x401000);

    char want[512];
    size_t w = 0;
    uint64_t words = 0;
    if (group) {
        bb_u64(&b, 2);
        words++;
        w += (size_t)snprintf(want + w, sizeof want - w, "{\"nr\":2,");
    } else {
        bb_u64(&b, 100);
        words++;
        w += (size_t)snprintf(want + w, sizeof want - w, "{\"value\":100,");
    }
    if (rf & PV_FORMAT_TOTAL_TIME_ENABLED) {
        bb_u64(&b, 200);
        words++;
        w += (size_t)snprintf(want + w, sizeof want - w, "\"time_enabled\":200,");
    }
    if (rf & PV_FORMAT_TOTAL_TIME_RUNNING) {
        bb_u64(&b, 300);
        words++;
        w += (size_t)snprintf(want + w, sizeof want - w, "\"time_running\":300,");
    }
    if (group) {
        w += (size_t)snprintf(want + w, sizeof want - w, "\"values\":[");
        for (int m = 0; m < 2; m++) {
            bb_u64(&b, 1000 + m);
            words++;
            w += (size_t)snprintf(want + w, sizeof want - w, "%s{\"value\":%d", m ? "," : "", 1000 + m);
            if (rf & PV_FORMAT_ID) {
                bb_u64(&b, 2000 + m);
                words++;
                w += (size_t)snprintf(want + w, sizeof want - w, ",\"id\":%d", 2000 + m);
            }
            if (rf & PV_FORMAT_LOST) {
                bb_u64(&b, 3000 + m);
                words++;
                w += (size_t)snprintf(want + w, sizeof want - w, ",\"lost\":%d", 3000 + m);
            }
            w += (size_t)snprintf(want + w, sizeof want - w, "}");
        }
        w += (size_t)snprintf(want + w, sizeof want - w, "]}");
    } else {
        if (rf & PV_FORMAT_ID) {
            bb_u64(&b, 400);
            words++;
            w += (size_t)snprintf(want + w, sizeof want - w, "\"id\":400,");
        }
        if (rf & PV_FORMAT_LOST) {
            bb_u64(&b, 500);
            words++;
            w += (size_t)snprintf(want + w, sizeof want - w, "\"lost\":500,");
        }
        want[w - 1] = '}';
    }
    bb_u64(&b, 1);          /* callchain nr */
    bb_u64(&b, 0x402000);

    check(decode(&k, &b, &s, &err) == 0, name("%s: decodes", label), "%s", err.msg);
    check_u64(name("%s: read_size", label), s.read_size, words * 8);
    check_u64(name("%s: read_format kept", label), s.read_format, rf);
    check(s.callchain_nr == 1 && s.callchain && pv_sample_u64_at(&s, s.callchain, 0) == 0x402000,
          name("%s: callchain after the read block", label), "nr %llu",
          (unsigned long long)s.callchain_nr);
    if (s.read)
        check_str(name("%s: JSON", label), read_json(&s), want);
}

static void test_callchain(bool swap)
{
    const char *label = swap ? "CALLCHAIN big-endian" : "CALLCHAIN";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_CALLCHAIN | PV_SAMPLE_PERIOD;
    fake_locate_ids(&k);
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 0xffffffff81000010ull);
    bb_u64(&b, 1000);       /* period comes before the callchain */
    bb_u64(&b, 8);
    bb_u64(&b, PV_CONTEXT_KERNEL);
    bb_u64(&b, 0xffffffff81000010ull);
    bb_u64(&b, 0xffffffff81000020ull);
    bb_u64(&b, PV_CONTEXT_USER);
    bb_u64(&b, 0x401000);
    bb_u64(&b, PV_CONTEXT_GUEST);
    bb_u64(&b, PV_CONTEXT_HV);
    bb_u64(&b, 0x402000);
    check(decode(&k, &b, &s, &err) == 0, name("%s: decodes", label), "%s", err.msg);
    check_u64(name("%s: period before it", label), s.period, 1000);
    check_u64(name("%s: nr counts the markers", label), s.callchain_nr, 8);
    check_u64(name("%s: entry 0 is the marker", label), pv_sample_u64_at(&s, s.callchain, 0),
              PV_CONTEXT_KERNEL);
    check_str(name("%s: JSON without PERF_CONTEXT markers, kernel addresses negative", label),
              callchain_json(&s), "[-2130706416,-2130706400,4198400,4202496]");

    /* An empty callchain. */
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    bb_u64(&b, 0);
    check(decode(&k, &b, &s, &err) == 0 && s.callchain_nr == 0, name("%s: nr 0", label), "%s", err.msg);
    check_str(name("%s: nr 0 JSON", label), callchain_json(&s), "[]");
}

static void test_raw(bool swap)
{
    const char *label = swap ? "RAW big-endian" : "RAW";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_TIME | PV_SAMPLE_RAW | PV_SAMPLE_BRANCH_STACK;
    fake_locate_ids(&k);
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 5);
    /* 10 bytes of payload padded to 12 so that size + data is 16 bytes. */
    bb_u32(&b, 12);
    bb_bytes(&b, "0123456789\0\0", 12);
    bb_u64(&b, 0);          /* branch nr: shows the cursor is aligned again */
    check(decode(&k, &b, &s, &err) == 0, name("%s: decodes", label), "%s", err.msg);
    check_u64(name("%s: size includes the padding", label), s.raw_size, 12);
    check(s.raw && memcmp(s.raw, "0123456789\0\0", 12) == 0, name("%s: bytes", label), "differ");
    check(s.branch_nr == 0 && s.branches != NULL, name("%s: field after it aligned", label),
          "branch_nr %llu", (unsigned long long)s.branch_nr);
    check_str(name("%s: empty branch stack JSON", label), branch_json(&s), "[]");
}

/* perf 6.14+'s offcpu-time sample (format/offcpu_event.h): recorded fields
 * as a bpf-output sample taken in another task, then RAW holding the
 * blocked task's: the task pair, the period, nr + ips, the cgroup. */
static pv_record offcpu_record(byte_builder *b, bool swap, uint16_t misc, uint64_t time,
                               uint64_t pair, uint64_t chain_nr)
{
    bb_record_begin(b, PV_RECORD_SAMPLE, misc, swap);
    bb_u64(b, 0xffffffff81000000ull);  /* ip: the BPF output's, in the kernel */
    bb_u32(b, 0);                      /* pid, tid: the task switching out (idle) */
    bb_u32(b, 0);
    bb_u64(b, time);
    bb_u32(b, 3);                      /* cpu */
    bb_u32(b, 0);
    bb_u64(b, 1);                      /* period: one BPF output */
    bb_u32(b, 7 * 8 + 4);              /* raw size: 7 words and the kernel's 4 padding bytes */
    bb_u64(b, pair);
    bb_u64(b, 2000000);                /* off-CPU ns */
    bb_u64(b, chain_nr);
    bb_u64(b, PV_CONTEXT_USER);
    bb_u64(b, 0x401000);
    bb_u64(b, 0x402000);
    bb_u64(b, 77);                     /* cgroup */
    bb_u32(b, 0);                      /* padding */
    return bb_record_end(b);
}

/*
 * Which u32 of the task pair is the pid, proven from the bytes.  The BPF
 * program (util/bpf_skel/off_cpu.bpf.c, off_cpu_dump) writes a direct
 * sample's pair as (u64)key->tgid << 32 | key->pid, its key made of the
 * task coming back on: .pid = next->pid (the kernel's pid: the thread),
 * .tgid = next->tgid (the process).  perf's own sums (util/bpf_off_cpu.c,
 * off_cpu_write) write (u64)key.pid << 32 | key.tgid: the other way round.
 * perf's evsel.c (__set_offcpu_sample) reads both alike, the first u32 as
 * pid and the second as tid: on a little-endian machine the low half, so
 * it is right for the sums and gives a direct sample's thread as its pid
 * and its process as its tid.  perfvtab follows each writer: here process
 * 100, thread 101 in both, where perf 6.14+ would say pid 101, tid 100 for
 * the direct one.  A big-endian writer stores the same u64 values, so the
 * rule is the same in both byte orders.
 */
static void test_offcpu_embedded(bool swap)
{
    const char *label = swap ? "offcpu-time big-endian" : "offcpu-time";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_CPU |
                             PV_SAMPLE_PERIOD | PV_SAMPLE_RAW;
    k.attrs[0].offcpu_embedded = true;
    fake_locate_ids(&k);

    pv_record r = offcpu_record(&b, swap, 1, 5000000, 100ull << 32 | 101, 3);
    err.msg[0] = 0;
    check(pv_sample_decode(&k.f, &r, &s, &err) == 0, name("%s direct: decodes", label), "%s",
          err.msg);
    check_u64(name("%s direct: form", label), s.offcpu, PV_SAMPLE_OFFCPU_DIRECT);
    check_u64(name("%s direct: pid is the pair's high half (tgid)", label), s.pid, 100);
    check_u64(name("%s direct: tid is the low half (the thread)", label), s.tid, 101);
    check_u64(name("%s direct: period from the raw data", label), s.period, 2000000);
    check_u64(name("%s direct: ip is the stack's first frame", label), s.ip, 0x401000);
    check_str(name("%s direct: callchain from the raw data", label), callchain_json(&s),
              "[4198400,4202496]");
    check_u64(name("%s direct: cgroup", label), s.cgroup, 77);
    check_u64(name("%s direct: cpumode user", label), s.misc & PV_MISC_CPUMODE_MASK, 2);
    check_u64(name("%s direct: time and cpu as recorded", label), s.time + s.cpu, 5000003);
    pv_sample fixed;
    check(pv_sample_decode_fixed(&k.f, &r, &fixed, &err) == 0 && fixed.pid == 100 &&
          fixed.tid == 101 && fixed.period == 2000000 && fixed.ip == 0x401000,
          name("%s direct: the fixed decode substitutes too", label), "pid %u tid %u",
          fixed.pid, fixed.tid);
    pv_sample_places places;
    pv_sample_places_init(&k.f, 0, &places);
    uint64_t v = 0;
    check(pv_sample_field(&k.f, &r, &places, PV_FIELD_PID, &v) == -1,
          name("%s: a field alone defers to the decoder", label), "it read %llu",
          (unsigned long long)v);

    r = offcpu_record(&b, swap, 2, 0xffffffff00000000ull, 101ull << 32 | 100, 3);
    check(pv_sample_decode(&k.f, &r, &s, &err) == 0, name("%s summed: decodes", label), "%s",
          err.msg);
    check_u64(name("%s summed: form (time OFF_CPU_TIMESTAMP)", label), s.offcpu,
              PV_SAMPLE_OFFCPU_SUMMED);
    check_u64(name("%s summed: pid is the pair's low half", label), s.pid, 100);
    check_u64(name("%s summed: tid is the high half", label), s.tid, 101);

    r = offcpu_record(&b, swap, 1, 5000000, 100ull << 32 | 101, 50);
    check(pv_sample_decode(&k.f, &r, &s, &err) == 0, name("%s cut: decodes", label), "%s",
          err.msg);
    check(s.offcpu == PV_SAMPLE_OFFCPU_UNREADABLE && s.offcpu_problem && s.pid == 0 &&
          s.period == 1 && s.ip == 0xffffffff81000000ull && !(s.sample_type & PV_SAMPLE_CALLCHAIN),
          name("%s cut: a callchain past the raw data leaves the sample as recorded", label),
          "form %d pid %u period %llu", (int)s.offcpu, s.pid, (unsigned long long)s.period);
}

typedef struct bflags {
    unsigned mispred, predicted, in_tx, abort, cycles, type, spec, new_type, priv;
} bflags;

/* The flags word as the writer's compiler lays the bit field out. */
static uint64_t pack_flags(bflags f, bool big_endian_writer)
{
    if (!big_endian_writer)
        return (uint64_t)f.mispred | (uint64_t)f.predicted << 1 | (uint64_t)f.in_tx << 2 |
               (uint64_t)f.abort << 3 | (uint64_t)f.cycles << 4 | (uint64_t)f.type << 20 |
               (uint64_t)f.spec << 24 | (uint64_t)f.new_type << 26 | (uint64_t)f.priv << 30 |
               (uint64_t)0x5 << 33;  /* reserved bits, to be ignored */
    /* Big-endian bit fields are allocated from the most significant bit. */
    return (uint64_t)f.mispred << 63 | (uint64_t)f.predicted << 62 | (uint64_t)f.in_tx << 61 |
           (uint64_t)f.abort << 60 | (uint64_t)f.cycles << 44 | (uint64_t)f.type << 40 |
           (uint64_t)f.spec << 38 | (uint64_t)f.new_type << 34 | (uint64_t)f.priv << 31 |
           (uint64_t)0x5;           /* reserved bits */
}

static void test_branch_stack(bool hw_idx, bool swap)
{
    char label[64];
    snprintf(label, sizeof label, "BRANCH_STACK %s hw_idx%s", hw_idx ? "with" : "without",
             swap ? " big-endian" : "");
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_BRANCH_STACK | PV_SAMPLE_WEIGHT;
    if (hw_idx)
        k.attrs[0].branch_sample_type = PV_BRANCH_HW_INDEX | 1;
    fake_locate_ids(&k);
    bflags f1 = {1, 0, 1, 0, 0xabcd, 9, 2, 5, 3};
    bflags f2 = {0, 1, 0, 1, 1, 15, 1, 15, 7};
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 0x401000);
    bb_u64(&b, 2);
    if (hw_idx)
        bb_u64(&b, 0x1f);
    bb_u64(&b, 0x401000);
    bb_u64(&b, 0x402000);
    bb_u64(&b, pack_flags(f1, swap));
    bb_u64(&b, 0xffffffff81000000ull);
    bb_u64(&b, 0x403000);
    bb_u64(&b, pack_flags(f2, swap));
    bb_u64(&b, 42);         /* weight */
    check(decode(&k, &b, &s, &err) == 0, name("%s: decodes", label), "%s", err.msg);
    check_u64(name("%s: nr", label), s.branch_nr, 2);
    check(s.has_branch_hw_idx == hw_idx, name("%s: has_branch_hw_idx", label), "%d", s.has_branch_hw_idx);
    check_u64(name("%s: hw_idx value", label), s.branch_hw_idx, hw_idx ? 0x1f : 0);
    check_u64(name("%s: entry 1 from", label), pv_sample_u64_at(&s, s.branches, 3),
              0xffffffff81000000ull);
    check_u64(name("%s: weight after the entries", label), s.weight, 42);
    check_str(name("%s: JSON with every flag", label), branch_json(&s),
              "[{\"from\":4198400,\"to\":4202496,\"mispred\":1,\"predicted\":0,\"in_tx\":1,"
              "\"abort\":0,\"cycles\":43981,\"type\":9,\"spec\":2,\"new_type\":5,\"priv\":3},"
              "{\"from\":-2130706432,\"to\":4206592,\"mispred\":0,\"predicted\":1,\"in_tx\":0,"
              "\"abort\":1,\"cycles\":1,\"type\":15,\"spec\":1,\"new_type\":15,\"priv\":7}]");
}

/* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8): a u64 per entry after the
 * entries, before the fields that follow the branch stack */
static void test_branch_counters(bool swap)
{
    const char *label = swap ? "BRANCH_COUNTERS big-endian" : "BRANCH_COUNTERS";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_BRANCH_STACK | PV_SAMPLE_WEIGHT;
    k.attrs[0].branch_sample_type = PV_BRANCH_HW_INDEX | PV_BRANCH_COUNTERS | 1;
    fake_locate_ids(&k);
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 0x401000);
    bb_u64(&b, 2);
    bb_u64(&b, 1);          /* hw_idx */
    bb_u64(&b, 0x401000); bb_u64(&b, 0x402000); bb_u64(&b, 0);
    bb_u64(&b, 0x403000); bb_u64(&b, 0x404000); bb_u64(&b, 0);
    bb_u64(&b, 0x0102);     /* counters of entry 0 */
    bb_u64(&b, 0x0304);
    bb_u64(&b, 42);         /* weight */
    check(decode(&k, &b, &s, &err) == 0, name("%s: decodes", label), "%s", err.msg);
    check(s.has_branch_counters && pv_sample_u64_at(&s, s.branch_counters, 1) == 0x0304,
          name("%s: one per entry", label), "has %d", s.has_branch_counters);
    check_u64(name("%s: weight after the counters", label), s.weight, 42);
    check_str(name("%s: JSON counters per entry", label), branch_json(&s),
              "[{\"from\":4198400,\"to\":4202496,\"mispred\":0,\"predicted\":0,\"in_tx\":0,"
              "\"abort\":0,\"cycles\":0,\"type\":0,\"spec\":0,\"new_type\":0,\"priv\":0,"
              "\"counters\":258},"
              "{\"from\":4206592,\"to\":4210688,\"mispred\":0,\"predicted\":0,\"in_tx\":0,"
              "\"abort\":0,\"cycles\":0,\"type\":0,\"spec\":0,\"new_type\":0,\"priv\":0,"
              "\"counters\":772}]");
    /* counters cut short: the branch stack does not fit */
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_BRANCH_STACK;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 0x401000);
    bb_u64(&b, 2);
    bb_u64(&b, 1);
    bb_u64(&b, 0x401000); bb_u64(&b, 0x402000); bb_u64(&b, 0);
    bb_u64(&b, 0x403000); bb_u64(&b, 0x404000); bb_u64(&b, 0);
    bb_u64(&b, 0x0102);     /* one counter for two entries */
    check(decode(&k, &b, &s, &err) != 0 && strstr(err.msg, "branch stack") != NULL,
          name("%s: counters cut short are an error naming the branch stack", label), "%s",
          err.msg);
}

static void test_regs_user(bool swap)
{
    const char *label = swap ? "REGS_USER big-endian" : "REGS_USER";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_REGS_USER | PV_SAMPLE_STACK_USER;
    k.attrs[0].sample_regs_user = 0x5 | (1ull << 63);
    fake_locate_ids(&k);

    /* abi 0: no registers follow (a kernel thread). */
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 1);
    bb_u64(&b, 0);
    bb_u64(&b, 0);          /* stack size 0 */
    check(decode(&k, &b, &s, &err) == 0, name("%s abi 0: decodes", label), "%s", err.msg);
    check(s.regs_user.abi == 0 && s.regs_user.nr == 0, name("%s abi 0: no registers", label),
          "abi %llu nr %llu", (unsigned long long)s.regs_user.abi, (unsigned long long)s.regs_user.nr);
    check_u64(name("%s abi 0: stack size after it", label), s.stack_user_size, 0);
    check_str(name("%s abi 0: JSON", label), regs_json(&s, &s.regs_user),
              "{\"abi\":0,\"mask\":9223372036854775813,\"regs\":{}}");

    /* abi 2 (64-bit): popcount(mask) values. */
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    bb_u64(&b, 0x10);
    bb_u64(&b, 0x7ffc0000);
    bb_u64(&b, (uint64_t)-1);
    bb_u64(&b, 0);
    check(decode(&k, &b, &s, &err) == 0, name("%s abi 2: decodes", label), "%s", err.msg);
    check_u64(name("%s abi 2: nr", label), s.regs_user.nr, 3);
    check_u64(name("%s abi 2: mask from the attr", label), s.regs_user.mask, 0x5 | (1ull << 63));
    check_str(name("%s abi 2: JSON keyed by register number", label), regs_json(&s, &s.regs_user),
              "{\"abi\":2,\"mask\":9223372036854775813,\"regs\":{\"0\":16,\"2\":2147221504,\"63\":-1}}");
}

static void test_stack_user(bool swap)
{
    const char *label = swap ? "STACK_USER big-endian" : "STACK_USER";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_STACK_USER | PV_SAMPLE_WEIGHT;
    fake_locate_ids(&k);

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 1);
    bb_u64(&b, 0);          /* size 0: no data, no dyn_size */
    bb_u64(&b, 77);         /* weight */
    check(decode(&k, &b, &s, &err) == 0, name("%s size 0: decodes", label), "%s", err.msg);
    check(s.stack_user_size == 0 && s.stack_user_dyn_size == 0,
          name("%s size 0: no dyn_size", label), "dyn %llu", (unsigned long long)s.stack_user_dyn_size);
    check_u64(name("%s size 0: weight right after the size", label), s.weight, 77);

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 1);
    bb_u64(&b, 16);
    bb_bytes(&b, "abcdefghijklmnop", 16);
    bb_u64(&b, 10);         /* dyn_size */
    bb_u64(&b, 78);
    check(decode(&k, &b, &s, &err) == 0, name("%s size 16: decodes", label), "%s", err.msg);
    check_u64(name("%s size 16: size", label), s.stack_user_size, 16);
    check(s.stack_user && memcmp(s.stack_user, "abcdefghijklmnop", 16) == 0,
          name("%s size 16: bytes", label), "differ");
    check_u64(name("%s size 16: dyn_size", label), s.stack_user_dyn_size, 10);
    check_u64(name("%s size 16: weight after dyn_size", label), s.weight, 78);
}

static void test_weight(void)
{
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    uint64_t types[2] = {PV_SAMPLE_WEIGHT, PV_SAMPLE_WEIGHT_STRUCT};
    for (int i = 0; i < 2; i++) {
        const char *label = i ? "WEIGHT_STRUCT" : "WEIGHT";
        fake_init(&k, false);
        k.attrs[0].sample_type = PV_SAMPLE_IP | types[i] | PV_SAMPLE_DATA_SRC;
        fake_locate_ids(&k);
        bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
        bb_u64(&b, 1);
        /* WEIGHT_STRUCT: var1_dw 0x55667788, var2_w 0x3344, var3_w 0x1122 */
        bb_u64(&b, 0x1122334455667788ull);
        bb_u64(&b, 0x99);
        check(decode(&k, &b, &s, &err) == 0, name("%s: decodes", label), "%s", err.msg);
        check_u64(name("%s: the whole u64", label), s.weight, 0x1122334455667788ull);
        check_u64(name("%s: var1_dw in the low 32 bits", label), s.weight & 0xffffffffu, 0x55667788);
        check_u64(name("%s: data_src after it", label), s.data_src, 0x99);
    }
}

/* Every field at once: each value distinct so a field read from the wrong
 * place shows. */
static void test_all_fields(bool swap)
{
    const char *label = swap ? "all fields big-endian" : "all fields";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    pv_attr *a = &k.attrs[0];
    a->sample_type = ((1ull << PV_SAMPLE_BIT_COUNT) - 1) & ~(uint64_t)PV_SAMPLE_WEIGHT_STRUCT;
    a->read_format = PV_FORMAT_ID;
    a->branch_sample_type = PV_BRANCH_HW_INDEX;
    a->sample_regs_user = 0x3;
    a->sample_regs_intr = 0x10;
    fake_locate_ids(&k);
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
    bb_u64(&b, 0x5555555555555555ull);  /* identifier */
    put_fixed(&b);
    bb_u64(&b, 0xa0);                   /* read value */
    bb_u64(&b, 0xa1);                   /* read id */
    bb_u64(&b, 1);                      /* callchain */
    bb_u64(&b, 0xc0);
    bb_u32(&b, 4);                      /* raw */
    bb_bytes(&b, "RAW!", 4);
    bb_u64(&b, 1);                      /* branch nr */
    bb_u64(&b, 0xb0);                   /* hw_idx */
    bb_u64(&b, 0xb1);
    bb_u64(&b, 0xb2);
    bb_u64(&b, 0);
    bb_u64(&b, 2);                      /* regs_user abi */
    bb_u64(&b, 0xd0);
    bb_u64(&b, 0xd1);
    bb_u64(&b, 8);                      /* stack */
    bb_bytes(&b, "STACK!!!", 8);
    bb_u64(&b, 6);                      /* dyn_size */
    bb_u64(&b, 0xe0);                   /* weight */
    bb_u64(&b, 0xe1);                   /* data_src */
    bb_u64(&b, 0xe2);                   /* transaction */
    bb_u64(&b, 1);                      /* regs_intr abi */
    bb_u64(&b, 0xf0);
    bb_u64(&b, 0xf1);                   /* phys_addr */
    bb_u64(&b, 0xf2);                   /* cgroup */
    bb_u64(&b, 0xf3);                   /* data_page_size */
    bb_u64(&b, 0xf4);                   /* code_page_size */
    bb_u64(&b, 8);                      /* aux size */
    bb_bytes(&b, "AUXDATA!", 8);
    check(decode(&k, &b, &s, &err) == 0, name("%s: decodes", label), "%s", err.msg);
    check_u64(name("%s: identifier", label), s.identifier, 0x5555555555555555ull);
    check_fixed(label, &s);
    check_str(name("%s: read", label), s.read ? read_json(&s) : "", "{\"value\":160,\"id\":161}");
    check_str(name("%s: callchain", label), s.callchain ? callchain_json(&s) : "", "[192]");
    check(s.raw_size == 4 && s.raw && memcmp(s.raw, "RAW!", 4) == 0, name("%s: raw", label), "size %u",
          s.raw_size);
    check(s.branch_nr == 1 && s.has_branch_hw_idx && s.branch_hw_idx == 0xb0,
          name("%s: branch nr and hw_idx", label), "nr %llu hw_idx 0x%llx",
          (unsigned long long)s.branch_nr, (unsigned long long)s.branch_hw_idx);
    check_str(name("%s: branch entries", label), s.branches ? branch_json(&s) : "",
              "[{\"from\":177,\"to\":178,\"mispred\":0,\"predicted\":0,\"in_tx\":0,\"abort\":0,"
              "\"cycles\":0,\"type\":0,\"spec\":0,\"new_type\":0,\"priv\":0}]");
    check_str(name("%s: regs_user", label), regs_json(&s, &s.regs_user),
              "{\"abi\":2,\"mask\":3,\"regs\":{\"0\":208,\"1\":209}}");
    check(s.stack_user_size == 8 && s.stack_user && memcmp(s.stack_user, "STACK!!!", 8) == 0 &&
          s.stack_user_dyn_size == 6, name("%s: stack_user", label), "size %llu dyn %llu",
          (unsigned long long)s.stack_user_size, (unsigned long long)s.stack_user_dyn_size);
    check_u64(name("%s: weight", label), s.weight, 0xe0);
    check_u64(name("%s: data_src", label), s.data_src, 0xe1);
    check_u64(name("%s: transaction", label), s.transaction, 0xe2);
    check_str(name("%s: regs_intr", label), regs_json(&s, &s.regs_intr),
              "{\"abi\":1,\"mask\":16,\"regs\":{\"4\":240}}");
    check_u64(name("%s: phys_addr", label), s.phys_addr, 0xf1);
    check_u64(name("%s: cgroup", label), s.cgroup, 0xf2);
    check_u64(name("%s: data_page_size", label), s.data_page_size, 0xf3);
    check_u64(name("%s: code_page_size", label), s.code_page_size, 0xf4);
    check(s.aux_size == 8 && s.aux && memcmp(s.aux, "AUXDATA!", 8) == 0, name("%s: aux last", label),
          "size %llu", (unsigned long long)s.aux_size);
}

int main(void)
{
    test_identifier();
    test_fixed_order(false);
    test_fixed_order(true);
    for (uint64_t rf = 0; rf < 32; rf++) {
        /* every combination of TOTAL_TIME_ENABLED/RUNNING, ID, LOST, non-group and group */
        uint64_t read_format = (rf & 7) | ((rf & 8) ? PV_FORMAT_LOST : 0) |
                               ((rf & 16) ? PV_FORMAT_GROUP : 0);
        test_read(read_format, false);
    }
    test_read(PV_FORMAT_GROUP | PV_FORMAT_TOTAL_TIME_ENABLED | PV_FORMAT_ID | PV_FORMAT_LOST, true);
    test_read(PV_FORMAT_TOTAL_TIME_RUNNING | PV_FORMAT_ID, true);
    test_callchain(false);
    test_callchain(true);
    test_raw(false);
    test_raw(true);
    test_offcpu_embedded(false);
    test_offcpu_embedded(true);
    test_branch_stack(false, false);
    test_branch_stack(true, false);
    test_branch_stack(true, true);
    test_branch_stack(false, true);
    test_branch_counters(false);
    test_branch_counters(true);
    test_regs_user(false);
    test_regs_user(true);
    test_stack_user(false);
    test_stack_user(true);
    test_weight();
    test_all_fields(false);
    test_all_fields(true);
    pv_strbuf_free(&json);
    return 0;
}
