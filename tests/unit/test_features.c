/*
 * Unit tests of src/format/features.c and src/format/build_ids.c on hand-built feature
 * sections.  Each test lays out a section byte by byte (as perf writes it)
 * inside a fake in-memory pv_file, decodes it, and checks the value; broken
 * sections (truncated, counts larger than the bytes) must fail with a
 * message naming the file and the byte offset.  Every JSON value is also
 * checked with SQLite's json_valid, and every proper prefix of every good
 * section is decoded too (under ASan this is a small fuzz of the bounds).
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "format/build_ids.h"
#include "byte_builder.h"
#include "format/features.h"
#include "format/perf_abi.h"
#include "unit_check.h"

static sqlite3 *db;

/* ---- a fake file ---- */

#define SECTION_AT 0x40     /* sections start past some filler: offsets are non-zero */

typedef struct fake {
    pv_file f;
    uint8_t map[sizeof(((byte_builder *)0)->bytes) * 2 + SECTION_AT];
} fake;

static fake fk;

/* A file holding feature id with the bytes of b, and, when nrcpus is given,
 * an nrcpus feature with that many cpus available (after it). */
static pv_file *make_file(unsigned id, const byte_builder *b, size_t len, int nrcpus)
{
    memset(&fk, 0, sizeof fk);
    fk.f.data_path = (char *)"fake.data";
    fk.f.path = fk.f.data_path;
    fk.f.swap = b->big_endian;
    memcpy(fk.map + SECTION_AT, b->bytes, len);
    fk.f.feature_bitmap[id / 64] |= (uint64_t)1 << (id % 64);
    fk.f.feature_sections[id].offset = SECTION_AT;
    fk.f.feature_sections[id].size = len;
    uint64_t end = SECTION_AT + len;
    if (nrcpus >= 0) {
        byte_builder n = {.big_endian = b->big_endian};
        bb_u32(&n, (uint32_t)nrcpus);
        bb_u32(&n, (uint32_t)nrcpus);
        memcpy(fk.map + end, n.bytes, n.n);
        fk.f.feature_bitmap[0] |= (uint64_t)1 << PV_FEATURE_NRCPUS;
        fk.f.feature_sections[PV_FEATURE_NRCPUS].offset = end;
        fk.f.feature_sections[PV_FEATURE_NRCPUS].size = n.n;
        end += n.n;
    }
    fk.f.memory = fk.map;
    fk.f.file_size = end;
    return &fk.f;
}

static bool json_valid(const char *text)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT json_valid(?1)", -1, &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    bool ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
    sqlite3_finalize(st);
    return ok;
}

typedef struct result {
    int rc;
    pv_feature_value_kind kind;
    int64_t integer;
    pv_strbuf text;
    pv_error err;
} result;

static result res;

static result *decode_len(unsigned id, const byte_builder *b, size_t len, int nrcpus)
{
    pv_file *f = make_file(id, b, len, nrcpus);
    res.err.msg[0] = 0;
    res.rc = pv_feature_decode(f, id, &res.kind, &res.integer, &res.text, &res.err);
    return &res;
}

static result *decode(unsigned id, const byte_builder *b, int nrcpus)
{
    return decode_len(id, b, b->n, nrcpus);
}

/* Decodes b, expects JSON (or TEXT) equal to want; then decodes every proper
 * prefix, which must either succeed or fail with an offset in the message. */
static void expect_value(const char *what, unsigned id, const byte_builder *b, int nrcpus,
                         pv_feature_value_kind kind, const char *want)
{
    result *r = decode(id, b, nrcpus);
    if (r->rc != 0) {
        check(0, what, "decode failed: %s", r->err.msg);
        return;
    }
    const char *got = pv_strbuf_text(&r->text);
    check(r->kind == kind && strcmp(got, want) == 0, what, "kind %d, got %s, want %s",
          r->kind, got, want);
    if (kind == PV_FEATURE_VALUE_JSON) {
        char label[256];
        snprintf(label, sizeof label, "%s: valid JSON", what);
        check(json_valid(got), label, "json_valid refuses %s", got);
    }
    int bad = 0;
    char why[900] = "";
    for (size_t n = 0; n < b->n; n++) {
        result *p = decode_len(id, b, n, nrcpus);
        if (p->rc == 0 && p->kind == PV_FEATURE_VALUE_JSON && !json_valid(pv_strbuf_text(&p->text))) {
            bad++;
            snprintf(why, sizeof why, "prefix %zu: invalid JSON %s", n, pv_strbuf_text(&p->text));
        } else if (p->rc != 0 && (!strstr(p->err.msg, "fake.data: ") ||
                                  !strstr(p->err.msg, "offset 0x"))) {
            bad++;
            snprintf(why, sizeof why, "prefix %zu: message without file or offset: %s", n,
                     p->err.msg);
        }
    }
    char label[256];
    snprintf(label, sizeof label, "%s: every truncation is handled", what);
    check(bad == 0, label, "%d bad, last %s", bad, why);
}

/* Expects a decode error whose message holds each of the needles. */
static void expect_error(const char *what, unsigned id, const byte_builder *b, int nrcpus,
                         const char *needle1, const char *needle2)
{
    result *r = decode(id, b, nrcpus);
    check(r->rc == -1 && strstr(r->err.msg, "fake.data: ") && strstr(r->err.msg, needle1) &&
          (!needle2 || strstr(r->err.msg, needle2)), what,
          "rc %d, message \"%s\", wanted \"%s\"%s%s", r->rc, r->err.msg, needle1,
          needle2 ? " and " : "", needle2 ? needle2 : "");
}

/* A section that is just a huge count: must fail before looping. */
static void expect_count_refused(unsigned id, bool wide)
{
    byte_builder b = {0};
    if (wide)
        bb_u64(&b, UINT64_MAX);
    else
        bb_u32(&b, UINT32_MAX);
    char what[128];
    snprintf(what, sizeof what, "%s: oversized count is refused", pv_feature_name(id));
    expect_error(what, id, &b, -1, "count", "at offset 0x40");
}

/* ---- the features ---- */

static void test_names(void)
{
    static const char *const want[] = {
        NULL, "tracing_data", "build_id", "hostname", "osrelease", "version", "arch", "nrcpus",
        "cpudesc", "cpuid", "total_mem", "cmdline", "event_desc", "cpu_topology",
        "numa_topology", "branch_stack", "pmu_mappings", "group_desc", "auxtrace", "stat",
        "cache", "sample_time", "mem_topology", "clockid", "dir_format", "bpf_prog_info",
        "bpf_btf", "compressed", "cpu_pmu_caps", "clock_data", "hybrid_topology", "pmu_caps",
    };
    int wrong = 0;
    for (unsigned id = 0; id < 32; id++) {
        const char *got = pv_feature_name(id);
        if ((got == NULL) != (want[id] == NULL) || (got && strcmp(got, want[id]) != 0))
            wrong++;
    }
    check(wrong == 0, "feature names 0..31", "%d wrong", wrong);
    check(pv_feature_name(32) && !strcmp(pv_feature_name(32), "cpu_domain_info") &&
              pv_feature_name(33) && !strcmp(pv_feature_name(33), "e_machine") &&
              pv_feature_name(34) && !strcmp(pv_feature_name(34), "cln_size"),
          "feature names 32..34 (perf 7)", "wrong");
    check(pv_feature_name(35) == NULL && pv_feature_name(255) == NULL && pv_feature_name(1000) == NULL,
          "unknown feature ids have no name", "got a name");

    byte_builder b = {0};
    bb_u64(&b, 42);
    result *r = decode(40, &b, -1);
    check(r->rc == 0 && r->kind == PV_FEATURE_VALUE_NULL, "unknown feature 40 decodes to NULL",
          "rc %d kind %d", r->rc, r->kind);
}

static void test_strings(void)
{
    byte_builder b = {0};
    bb_header_string(&b, "vm");
    expect_value("hostname is TEXT", PV_FEATURE_HOSTNAME, &b, -1, PV_FEATURE_VALUE_TEXT, "vm");

    byte_builder big = {.big_endian = true};
    bb_header_string(&big, "6.1.0-amd64");
    expect_value("osrelease from a big-endian file", PV_FEATURE_OSRELEASE, &big, -1,
                 PV_FEATURE_VALUE_TEXT, "6.1.0-amd64");

    byte_builder empty = {0};
    result *r = decode(PV_FEATURE_CPUDESC, &empty, -1);
    check(r->rc == 0 && r->kind == PV_FEATURE_VALUE_NULL, "an empty cpudesc section is NULL",
          "rc %d kind %d %s", r->rc, r->kind, r->err.msg);

    byte_builder over = {0};
    bb_u32(&over, 1000);
    bb_bytes(&over, "x86_64\0\0", 8);
    expect_error("arch: string longer than the section", PV_FEATURE_ARCH, &over, -1,
                 "truncated", "at offset 0x44");

    /* No NUL inside the declared length: the string is all len bytes. */
    byte_builder nonul = {0};
    bb_u32(&nonul, 4);
    bb_bytes(&nonul, "abcd", 4);
    expect_value("cpuid without a NUL", PV_FEATURE_CPUID, &nonul, -1, PV_FEATURE_VALUE_TEXT, "abcd");
}

static void test_numbers(void)
{
    byte_builder b = {0};
    bb_u64(&b, 24684092);
    result *r = decode(PV_FEATURE_TOTAL_MEM, &b, -1);
    check(r->rc == 0 && r->kind == PV_FEATURE_VALUE_INTEGER && r->integer == 24684092,
          "total_mem is INTEGER kB", "rc %d kind %d value %lld", r->rc, r->kind,
          (long long)r->integer);
    r = decode_len(PV_FEATURE_TOTAL_MEM, &b, 7, -1);
    check(r->rc == -1 && strstr(r->err.msg, "total_mem feature at offset 0x40"),
          "total_mem of 7 bytes fails", "%s", r->err.msg);

    byte_builder c = {0};
    bb_u64(&c, 1);
    r = decode(PV_FEATURE_CLOCKID, &c, -1);
    check(r->rc == 0 && r->kind == PV_FEATURE_VALUE_INTEGER && r->integer == 1, "clockid is INTEGER",
          "rc %d kind %d", r->rc, r->kind);

    byte_builder n = {0};
    bb_u32(&n, 8);     /* available */
    bb_u32(&n, 4);     /* online */
    expect_value("nrcpus", PV_FEATURE_NRCPUS, &n, -1, PV_FEATURE_VALUE_JSON,
                 "{\"online\":4,\"available\":8}");
    byte_builder nb = {.big_endian = true};
    bb_u32(&nb, 8);
    bb_u32(&nb, 4);
    expect_value("nrcpus big-endian", PV_FEATURE_NRCPUS, &nb, -1, PV_FEATURE_VALUE_JSON,
                 "{\"online\":4,\"available\":8}");

    byte_builder t = {0};
    bb_u64(&t, 324440771000ull);
    bb_u64(&t, 324601195000ull);
    expect_value("sample_time", PV_FEATURE_SAMPLE_TIME, &t, -1, PV_FEATURE_VALUE_JSON,
                 "{\"first\":324440771000,\"last\":324601195000}");

    byte_builder d = {0};
    bb_u64(&d, 1);
    expect_value("dir_format", PV_FEATURE_DIR_FORMAT, &d, -1, PV_FEATURE_VALUE_JSON, "{\"version\":1}");

    byte_builder z = {0};
    bb_u32(&z, 1); bb_u32(&z, 1); bb_u32(&z, 1); bb_u32(&z, 3); bb_u32(&z, 65536);
    expect_value("compressed", PV_FEATURE_COMPRESSED, &z, -1, PV_FEATURE_VALUE_JSON,
                 "{\"version\":1,\"type\":1,\"level\":1,\"ratio\":3,\"mmap_len\":65536}");

    byte_builder k = {0};
    bb_u32(&k, 1); bb_u32(&k, 1); bb_u64(&k, 1700000000123456789ull); bb_u64(&k, 5000);
    expect_value("clock_data", PV_FEATURE_CLOCK_DATA, &k, -1, PV_FEATURE_VALUE_JSON,
                 "{\"version\":1,\"clockid\":1,\"wall_clock_ns\":1700000000123456789,"
                 "\"clockid_time_ns\":5000}");
    byte_builder k2 = {0};
    bb_u32(&k2, 2); bb_u32(&k2, 1); bb_u64(&k2, 0); bb_u64(&k2, 0);
    expect_error("clock_data version 2 is refused", PV_FEATURE_CLOCK_DATA, &k2, -1,
                 "version 2", "offset 0x40");

    byte_builder e = {0};
    expect_value("stat has no payload", PV_FEATURE_STAT, &e, -1, PV_FEATURE_VALUE_JSON, "{}");
    expect_value("branch_stack has no payload", PV_FEATURE_BRANCH_STACK, &e, -1,
                 PV_FEATURE_VALUE_JSON, "{}");
}

static void test_cmdline(void)
{
    byte_builder b = {0};
    bb_u32(&b, 3);
    bb_header_string(&b, "/usr/bin/perf");
    bb_header_string(&b, "record");
    bb_header_string(&b, "say \"hi\"");
    expect_value("cmdline", PV_FEATURE_CMDLINE, &b, -1, PV_FEATURE_VALUE_JSON,
                 "[\"/usr/bin/perf\",\"record\",\"say \\\"hi\\\"\"]");
    expect_count_refused(PV_FEATURE_CMDLINE, false);

    byte_builder t = {0};
    bb_u32(&t, 2);
    bb_header_string(&t, "perf");
    expect_error("cmdline with a missing string", PV_FEATURE_CMDLINE, &t, -1, "truncated",
                 "at offset 0x50");
}

/* A 64-byte perf_event_attr (PERF_ATTR_SIZE_VER0). */
static void attr64(byte_builder *b, uint32_t type, uint64_t config)
{
    bb_u32(b, type);
    bb_u32(b, 64);
    bb_u64(b, config);
    bb_u64(b, 4000);           /* sample_period */
    bb_u64(b, 0x107);          /* sample_type */
    bb_u64(b, 0);              /* read_format */
    bb_u64(b, 1);              /* flags: disabled */
    bb_u32(b, 0);
    bb_u32(b, 0);
    bb_u64(b, 0);              /* config1 */
}

static void test_event_desc(void)
{
    byte_builder b = {0};
    bb_u32(&b, 2);
    bb_u32(&b, 64);
    attr64(&b, 0, 0);
    bb_u32(&b, 2);
    bb_header_string(&b, "cycles:u");
    bb_u64(&b, 7);
    bb_u64(&b, UINT64_MAX);
    attr64(&b, 1, 0);
    bb_u32(&b, 0);
    bb_header_string(&b, "cpu-clock");
    result *r = decode(PV_FEATURE_EVENT_DESC, &b, -1);
    const char *got = pv_strbuf_text(&r->text);
    check(r->rc == 0 && r->kind == PV_FEATURE_VALUE_JSON &&
          strncmp(got, "[{\"name\":\"cycles:u\",\"ids\":[7,-1],\"attr\":{\"type\":0,", 47) == 0 &&
          strstr(got, "},{\"name\":\"cpu-clock\",\"ids\":[],\"attr\":{\"type\":1,") &&
          strstr(got, "\"sample_type\":263"), "event_desc", "rc %d: %s %s", r->rc, got, r->err.msg);
    check(r->rc == 0 && json_valid(got), "event_desc: valid JSON", "%s", got);
    expect_value("event_desc (whole)", PV_FEATURE_EVENT_DESC, &b, -1, PV_FEATURE_VALUE_JSON, got);

    byte_builder small = {0};
    bb_u32(&small, 1);
    bb_u32(&small, 32);
    bb_zeros(&small, 40);
    expect_error("event_desc with attr_size 32", PV_FEATURE_EVENT_DESC, &small, -1,
                 "attr_size 32", "at offset 0x44");

    byte_builder many = {0};
    bb_u32(&many, 1000);
    bb_u32(&many, 64);
    attr64(&many, 0, 0);
    expect_error("event_desc with more events than bytes", PV_FEATURE_EVENT_DESC, &many, -1,
                 "event count 1000", "at offset 0x40");

    byte_builder ids = {0};
    bb_u32(&ids, 1);
    bb_u32(&ids, 64);
    attr64(&ids, 0, 0);
    bb_u32(&ids, 0x10000000);
    bb_header_string(&ids, "cycles");
    expect_error("event_desc with more ids than bytes", PV_FEATURE_EVENT_DESC, &ids, -1,
                 "id count 268435456", "at offset 0x88");
}

static void topology_lists(byte_builder *b)
{
    bb_u32(b, 1);
    bb_header_string(b, "0-3");
    bb_u32(b, 2);
    bb_header_string(b, "0-1");
    bb_header_string(b, "2-3");
}

static void test_cpu_topology(void)
{
    byte_builder v1 = {0};
    topology_lists(&v1);
    expect_value("cpu_topology, first revision", PV_FEATURE_CPU_TOPOLOGY, &v1, 4, PV_FEATURE_VALUE_JSON,
                 "{\"cores\":[\"0-3\"],\"threads\":[\"0-1\",\"2-3\"]}");

    byte_builder v2 = {0};
    topology_lists(&v2);
    bb_u32(&v2, 0); bb_u32(&v2, 0);
    bb_u32(&v2, 1); bb_u32(&v2, 0);
    expect_value("cpu_topology with core and socket ids", PV_FEATURE_CPU_TOPOLOGY, &v2, 2,
                 PV_FEATURE_VALUE_JSON,
                 "{\"cores\":[\"0-3\"],\"threads\":[\"0-1\",\"2-3\"],\"cpus\":["
                 "{\"core_id\":0,\"socket_id\":0},{\"core_id\":1,\"socket_id\":0}]}");

    byte_builder v3 = {0};
    topology_lists(&v3);
    bb_u32(&v3, 0); bb_u32(&v3, 0);
    bb_u32(&v3, 1); bb_u32(&v3, 1);
    bb_u32(&v3, 2);
    bb_header_string(&v3, "0");
    bb_header_string(&v3, "1");
    bb_u32(&v3, 0);
    bb_u32(&v3, 1);
    expect_value("cpu_topology with dies", PV_FEATURE_CPU_TOPOLOGY, &v3, 2, PV_FEATURE_VALUE_JSON,
                 "{\"cores\":[\"0-3\"],\"threads\":[\"0-1\",\"2-3\"],\"cpus\":["
                 "{\"core_id\":0,\"socket_id\":0,\"die_id\":0},"
                 "{\"core_id\":1,\"socket_id\":1,\"die_id\":1}],\"dies\":[\"0\",\"1\"]}");

    byte_builder big = {.big_endian = true};
    topology_lists(&big);
    bb_u32(&big, 5); bb_u32(&big, 6);
    expect_value("cpu_topology big-endian", PV_FEATURE_CPU_TOPOLOGY, &big, 1, PV_FEATURE_VALUE_JSON,
                 "{\"cores\":[\"0-3\"],\"threads\":[\"0-1\",\"2-3\"],\"cpus\":["
                 "{\"core_id\":5,\"socket_id\":6}]}");

    /* nrcpus says 100 cpus, the section has room for 2 */
    expect_error("cpu_topology with more cpus than bytes", PV_FEATURE_CPU_TOPOLOGY, &v2, 100,
                 "cpu (nrcpus available) count 100", "offset 0x6c");
    expect_count_refused(PV_FEATURE_CPU_TOPOLOGY, false);
}

static void test_numa(void)
{
    byte_builder b = {0};
    bb_u32(&b, 2);
    bb_u32(&b, 0); bb_u64(&b, 3762388); bb_u64(&b, 3540644); bb_header_string(&b, "0-1");
    bb_u32(&b, 1); bb_u64(&b, 100); bb_u64(&b, 50); bb_header_string(&b, "");
    expect_value("numa_topology", PV_FEATURE_NUMA_TOPOLOGY, &b, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"node\":0,\"mem_total\":3762388,\"mem_free\":3540644,\"cpus\":\"0-1\"},"
                 "{\"node\":1,\"mem_total\":100,\"mem_free\":50,\"cpus\":\"\"}]");
    expect_count_refused(PV_FEATURE_NUMA_TOPOLOGY, false);
}

static void test_pmu_mappings_and_groups(void)
{
    byte_builder b = {0};
    bb_u32(&b, 2);
    bb_u32(&b, 1); bb_header_string(&b, "software");
    bb_u32(&b, 8); bb_header_string(&b, "uprobe");
    expect_value("pmu_mappings", PV_FEATURE_PMU_MAPPINGS, &b, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"type\":1,\"name\":\"software\"},{\"type\":8,\"name\":\"uprobe\"}]");
    byte_builder big = {.big_endian = true};
    bb_u32(&big, 1);
    bb_u32(&big, 4); bb_header_string(&big, "cpu");
    expect_value("pmu_mappings big-endian", PV_FEATURE_PMU_MAPPINGS, &big, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"type\":4,\"name\":\"cpu\"}]");
    expect_count_refused(PV_FEATURE_PMU_MAPPINGS, false);

    byte_builder g = {0};
    bb_u32(&g, 1);
    bb_header_string(&g, "{anon_group}");
    bb_u32(&g, 0);
    bb_u32(&g, 2);
    expect_value("group_desc", PV_FEATURE_GROUP_DESC, &g, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"name\":\"{anon_group}\",\"leader_idx\":0,\"nr_members\":2}]");
    expect_count_refused(PV_FEATURE_GROUP_DESC, false);

    byte_builder h = {0};
    bb_u32(&h, 2);
    bb_header_string(&h, "cpu_core"); bb_header_string(&h, "0-15");
    bb_header_string(&h, "cpu_atom"); bb_header_string(&h, "16-23");
    expect_value("hybrid_topology", PV_FEATURE_HYBRID_TOPOLOGY, &h, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"pmu_name\":\"cpu_core\",\"cpus\":\"0-15\"},"
                 "{\"pmu_name\":\"cpu_atom\",\"cpus\":\"16-23\"}]");
    expect_count_refused(PV_FEATURE_HYBRID_TOPOLOGY, false);
}

static void test_caps(void)
{
    byte_builder c = {0};
    bb_u32(&c, 2);
    bb_header_string(&c, "branches"); bb_header_string(&c, "32");
    bb_header_string(&c, "pmu_name"); bb_header_string(&c, "icelake");
    expect_value("cpu_pmu_caps", PV_FEATURE_CPU_PMU_CAPS, &c, -1, PV_FEATURE_VALUE_JSON,
                 "{\"branches\":\"32\",\"pmu_name\":\"icelake\"}");
    expect_count_refused(PV_FEATURE_CPU_PMU_CAPS, false);

    byte_builder p = {0};
    bb_u32(&p, 2);
    bb_u32(&p, 1); bb_header_string(&p, "max_precise"); bb_header_string(&p, "3"); bb_header_string(&p, "cpu_core");
    bb_u32(&p, 0); bb_header_string(&p, "cpu_atom");
    expect_value("pmu_caps", PV_FEATURE_PMU_CAPS, &p, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"caps\":{\"max_precise\":\"3\"},\"pmu_name\":\"cpu_core\"},"
                 "{\"caps\":{},\"pmu_name\":\"cpu_atom\"}]");
    expect_count_refused(PV_FEATURE_PMU_CAPS, false);

    byte_builder inner = {0};
    bb_u32(&inner, 1);
    bb_u32(&inner, 0x7fffffff);
    bb_zeros(&inner, 8);
    expect_error("pmu_caps with an oversized capability count", PV_FEATURE_PMU_CAPS, &inner, -1,
                 "capability count 2147483647", "at offset 0x44");
}

/* perf 7's features (src/format/features_recent.c) */
static void test_perf7_features(bool be)
{
    byte_builder d = {.big_endian = be};
    bb_u32(&d, 17); bb_u32(&d, 2);
    bb_u32(&d, 0); bb_u32(&d, 2);
    bb_u32(&d, 0); bb_header_string(&d, "SMT"); bb_header_string(&d, "00000003");
    bb_header_string(&d, "0-1");
    bb_u32(&d, 1); bb_header_string(&d, "MC"); bb_header_string(&d, "0000000f");
    bb_header_string(&d, "0-3");
    bb_u32(&d, 3); bb_u32(&d, 0);
    expect_value(be ? "cpu_domain_info, schedstat 17 (big-endian)" : "cpu_domain_info, schedstat 17",
                 PV_FEATURE_CPU_DOMAIN_INFO, &d, -1, PV_FEATURE_VALUE_JSON,
                 "{\"schedstat_version\":17,\"max_sched_domains\":2,\"cpus\":[{\"cpu\":0,"
                 "\"domains\":[{\"domain\":0,\"name\":\"SMT\",\"cpumask\":\"00000003\","
                 "\"cpulist\":\"0-1\"},{\"domain\":1,\"name\":\"MC\",\"cpumask\":"
                 "\"0000000f\",\"cpulist\":\"0-3\"}]},{\"cpu\":3,\"domains\":[]}]}");
    byte_builder d16 = {.big_endian = be};
    bb_u32(&d16, 16); bb_u32(&d16, 1);
    bb_u32(&d16, 5); bb_u32(&d16, 1);
    bb_u32(&d16, 0); bb_header_string(&d16, "00000030"); bb_header_string(&d16, "4-5");
    expect_value(be ? "cpu_domain_info, schedstat 16 (big-endian)" : "cpu_domain_info, schedstat 16",
                 PV_FEATURE_CPU_DOMAIN_INFO, &d16, -1, PV_FEATURE_VALUE_JSON,
                 "{\"schedstat_version\":16,\"max_sched_domains\":1,\"cpus\":[{\"cpu\":5,"
                 "\"domains\":[{\"domain\":0,\"cpumask\":\"00000030\",\"cpulist\":\"4-5\"}]}]}");
    byte_builder huge = {.big_endian = be};
    bb_u32(&huge, 17); bb_u32(&huge, 1); bb_u32(&huge, 0); bb_u32(&huge, 0x7fffffff); bb_zeros(&huge, 16);
    expect_error("cpu_domain_info with an oversized domain count", PV_FEATURE_CPU_DOMAIN_INFO,
                 &huge, -1, "domain count 2147483647", "at offset 0x4c");

    byte_builder m = {.big_endian = be};
    bb_u32(&m, 183); bb_u32(&m, 0);
    expect_value(be ? "e_machine (big-endian)" : "e_machine", PV_FEATURE_E_MACHINE, &m, -1,
                 PV_FEATURE_VALUE_JSON, "{\"e_machine\":183,\"e_flags\":0,\"arch\":\"aarch64\"}");
    char arch[32];
    pv_file *f = make_file(PV_FEATURE_E_MACHINE, &m, m.n, -1);
    check(pv_feature_arch(f, arch, sizeof arch) && !strcmp(arch, "aarch64"),
          be ? "arch from e_machine where arch is missing (big-endian)"
             : "arch from e_machine where arch is missing", "got %s", arch);
    byte_builder odd = {.big_endian = be};
    bb_u32(&odd, 0x9999); bb_u32(&odd, 1);
    expect_value("e_machine without a name", PV_FEATURE_E_MACHINE, &odd, -1,
                 PV_FEATURE_VALUE_JSON, "{\"e_machine\":39321,\"e_flags\":1}");
    f = make_file(PV_FEATURE_E_MACHINE, &odd, odd.n, -1);
    check(!pv_feature_arch(f, arch, sizeof arch), "no arch from an e_machine without a name",
          "got %s", arch);
    byte_builder a = {.big_endian = be};
    bb_header_string(&a, "x86_64");
    f = make_file(PV_FEATURE_ARCH, &a, a.n, -1);
    check(pv_feature_arch(f, arch, sizeof arch) && !strcmp(arch, "x86_64"),
          "arch from the arch feature", "got %s", arch);

    byte_builder c = {.big_endian = be};
    bb_u32(&c, 128);
    result *r = decode(PV_FEATURE_CLN_SIZE, &c, -1);
    check(r->rc == 0 && r->kind == PV_FEATURE_VALUE_INTEGER && r->integer == 128,
          be ? "cln_size of 4 bytes (big-endian)" : "cln_size of 4 bytes", "rc %d, %lld", r->rc,
          (long long)r->integer);
    bb_u16(&c, 0);
    expect_error("cln_size of 6 bytes", PV_FEATURE_CLN_SIZE, &c, -1, "6 bytes", "offset 0x40");
}

static void test_cache(void)
{
    byte_builder b = {0};
    bb_u32(&b, 1);
    bb_u32(&b, 2);
    bb_u32(&b, 1); bb_u32(&b, 64); bb_u32(&b, 64); bb_u32(&b, 12);
    bb_header_string(&b, "Data"); bb_header_string(&b, "48K"); bb_header_string(&b, "0");
    bb_u32(&b, 3); bb_u32(&b, 64); bb_u32(&b, 32768); bb_u32(&b, 16);
    bb_header_string(&b, "Unified"); bb_header_string(&b, "32768K"); bb_header_string(&b, "0-1");
    expect_value("cache", PV_FEATURE_CACHE, &b, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"level\":1,\"line_size\":64,\"sets\":64,\"ways\":12,\"type\":\"Data\","
                 "\"size\":\"48K\",\"map\":\"0\"},"
                 "{\"level\":3,\"line_size\":64,\"sets\":32768,\"ways\":16,\"type\":\"Unified\","
                 "\"size\":\"32768K\",\"map\":\"0-1\"}]");
    byte_builder v = {0};
    bb_u32(&v, 2);
    bb_u32(&v, 0);
    expect_error("cache version 2 is refused", PV_FEATURE_CACHE, &v, -1, "version 2",
                 "at offset 0x40");
    byte_builder n = {0};
    bb_u32(&n, 1);
    bb_u32(&n, 5000);
    expect_error("cache with more levels than bytes", PV_FEATURE_CACHE, &n, -1,
                 "cache level count 5000", "at offset 0x44");
}

static void test_mem_topology(void)
{
    byte_builder b = {0};
    bb_u64(&b, 1);
    bb_u64(&b, 0x8000000);
    bb_u64(&b, 2);
    bb_u64(&b, 0); bb_u64(&b, 70); bb_u64(&b, 70);
    bb_u64(&b, 0x7ull | (1ull << 5) | (1ull << 63)); bb_u64(&b, 0x3f);   /* 0-2,5,63-69 */
    bb_u64(&b, 1); bb_u64(&b, 0); bb_u64(&b, 0);
    expect_value("mem_topology", PV_FEATURE_MEM_TOPOLOGY, &b, -1, PV_FEATURE_VALUE_JSON,
                 "{\"version\":1,\"block_size\":134217728,\"nodes\":["
                 "{\"node\":0,\"size\":70,\"set\":\"0-2,5,63-69\"},"
                 "{\"node\":1,\"size\":0,\"set\":\"\"}]}");
    byte_builder n = {0};
    bb_u64(&n, 1);
    bb_u64(&n, 0x8000000);
    bb_u64(&n, UINT64_MAX);
    expect_error("mem_topology with more nodes than bytes", PV_FEATURE_MEM_TOPOLOGY, &n, -1,
                 "node count 18446744073709551615", "at offset 0x50");
    byte_builder w = {0};
    bb_u64(&w, 1);
    bb_u64(&w, 0x8000000);
    bb_u64(&w, 1);
    bb_u64(&w, 0); bb_u64(&w, UINT64_MAX); bb_u64(&w, UINT64_MAX);
    expect_error("mem_topology with a bitmap larger than the section", PV_FEATURE_MEM_TOPOLOGY,
                 &w, -1, "bitmap word count", "at offset 0x68");
}

static void test_auxtrace_and_bpf(void)
{
    byte_builder a = {0};
    bb_u64(&a, 2);
    bb_u64(&a, 0x1000); bb_u64(&a, 4096);
    bb_u64(&a, 0x3000); bb_u64(&a, 100);
    expect_value("auxtrace", PV_FEATURE_AUXTRACE, &a, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"file_offset\":4096,\"sz\":4096},{\"file_offset\":12288,\"sz\":100}]");
    expect_count_refused(PV_FEATURE_AUXTRACE, true);
    byte_builder sp = {0};
    bb_u64(&sp, 9896); bb_u64(&sp, 48);
    expect_value("auxtrace as simpleperf writes it (no count)", PV_FEATURE_AUXTRACE, &sp, -1,
                 PV_FEATURE_VALUE_JSON, "[{\"file_offset\":9896,\"sz\":48}]");

    byte_builder p = {0};
    bb_u32(&p, 1);
    bb_u32(&p, 16);        /* info_len */
    bb_u32(&p, 8);         /* data_len */
    bb_u64(&p, 0);         /* arrays */
    bb_u32(&p, 1);         /* info.type */
    bb_u32(&p, 42);        /* info.id */
    bb_bytes(&p, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    bb_zeros(&p, 8);       /* data */
    expect_value("bpf_prog_info", PV_FEATURE_BPF_PROG_INFO, &p, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"type\":1,\"id\":42,\"tag\":\"0102030405060708\",\"info_len\":16,"
                 "\"data_len\":8}]");
    expect_count_refused(PV_FEATURE_BPF_PROG_INFO, false);
    byte_builder pl = {0};
    bb_u32(&pl, 1);
    bb_u32(&pl, 16);
    bb_u32(&pl, 0xffffffff);
    bb_u64(&pl, 0);
    bb_zeros(&pl, 16);
    expect_error("bpf_prog_info with data_len past the section", PV_FEATURE_BPF_PROG_INFO, &pl,
                 -1, "truncated", "at offset 0x64");

    byte_builder t = {0};
    bb_u32(&t, 2);
    bb_u32(&t, 7); bb_u32(&t, 3); bb_bytes(&t, "abc", 3);
    bb_u32(&t, 8); bb_u32(&t, 0);
    expect_value("bpf_btf", PV_FEATURE_BPF_BTF, &t, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"id\":7,\"data_size\":3},{\"id\":8,\"data_size\":0}]");
    expect_count_refused(PV_FEATURE_BPF_BTF, false);
}

static void test_tracing_data(void)
{
    byte_builder b = {0};
    bb_bytes(&b, "\x17\x08\x44tracing", 10);
    bb_bytes(&b, "0.6", 4);
    bb_u8(&b, 0);
    bb_u8(&b, 8);
    bb_u32(&b, 4096);
    bb_zeros(&b, 10);
    expect_value("tracing_data summary", PV_FEATURE_TRACING_DATA, &b, -1, PV_FEATURE_VALUE_JSON,
                 "{\"size\":30,\"version\":\"0.6\",\"big_endian\":false,\"long_size\":8,"
                 "\"page_size\":4096}");
    byte_builder o = {0};
    bb_bytes(&o, "something else", 14);
    expect_value("tracing_data that is not trace-cmd data", PV_FEATURE_TRACING_DATA, &o, -1,
                 PV_FEATURE_VALUE_JSON, "{\"size\":14}");
}

/* One build_id_event: header {type, misc, size}, pid, build_id[24], filename. */
static void build_id_entry(byte_builder *b, uint16_t misc, int32_t pid, const uint8_t *id, uint8_t id_len,
                           const char *filename)
{
    size_t name = (strlen(filename) + 1 + 7) / 8 * 8;
    bb_u32(b, PV_RECORD_HEADER_BUILD_ID);
    bb_u16(b, misc);
    bb_u16(b, (uint16_t)(PV_BUILD_ID_ENTRY_MIN + name));
    bb_u32(b, (uint32_t)pid);
    bb_bytes(b, id, id_len);
    bb_zeros(b, 20 - id_len);
    if (misc & PV_MISC_BUILD_ID_SIZE) {
        bb_u8(b, id_len);
        bb_zeros(b, 3);
    } else {
        bb_zeros(b, 4);
    }
    bb_bytes(b, filename, strlen(filename));
    bb_zeros(b, name - strlen(filename));
}

static void test_build_ids(void)
{
    uint8_t id[20];
    for (int i = 0; i < 20; i++)
        id[i] = (uint8_t)(0xa0 + i);
    byte_builder b = {0};
    build_id_entry(&b, 1, -1, id, 20, "[kernel.kallsyms]");
    build_id_entry(&b, 2 | PV_MISC_BUILD_ID_SIZE, 1234, id, 16, "/usr/lib/libc.so.6");
    expect_value("build_id feature", PV_FEATURE_BUILD_ID, &b, -1, PV_FEATURE_VALUE_JSON,
                 "[{\"pid\":-1,\"cpumode\":\"kernel\","
                 "\"build_id\":\"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3\","
                 "\"filename\":\"[kernel.kallsyms]\"},"
                 "{\"pid\":1234,\"cpumode\":\"user\","
                 "\"build_id\":\"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\","
                 "\"filename\":\"/usr/lib/libc.so.6\"}]");

    pv_build_id_iter it;
    pv_build_id e;
    pv_error err;
    pv_build_ids_start(&it, "fake.data", "build_id feature", b.bytes, b.n, 0x100, false);
    int rc1 = pv_build_ids_next(&it, &e, &err);
    check(rc1 == 1 && e.pid == -1 && e.id_len == 20 && e.offset == 0x100 &&
          (e.misc & PV_MISC_CPUMODE_MASK) == 1 && e.filename_len == 17 &&
          memcmp(e.filename, "[kernel.kallsyms]", 17) == 0,
          "build-id iterator: first entry", "rc %d pid %d len %u offset 0x%llx", rc1, e.pid,
          e.id_len, (unsigned long long)e.offset);
    int rc2 = pv_build_ids_next(&it, &e, &err);
    check(rc2 == 1 && e.pid == 1234 && e.id_len == 16 && e.offset == 0x100 + 36 + 24,
          "build-id iterator: second entry with a 16-byte id", "rc %d len %u offset 0x%llx", rc2,
          e.id_len, (unsigned long long)e.offset);
    check(pv_build_ids_next(&it, &e, &err) == 0, "build-id iterator: end", "not at end");

    byte_builder small = {0};
    bb_u32(&small, PV_RECORD_HEADER_BUILD_ID);
    bb_u16(&small, 0);
    bb_u16(&small, 20);
    bb_zeros(&small, 40);
    expect_error("build_id entry smaller than 36 bytes", PV_FEATURE_BUILD_ID, &small, -1,
                 "entry at offset 0x40 has size 20", NULL);

    byte_builder over = {0};
    build_id_entry(&over, 1, -1, id, 20, "[kernel.kallsyms]");
    bb_u32(&over, PV_RECORD_HEADER_BUILD_ID);
    bb_u16(&over, 0);
    bb_u16(&over, 500);
    bb_zeros(&over, 40);
    expect_error("build_id entry past the section", PV_FEATURE_BUILD_ID, &over, -1,
                 "entry at offset 0x7c has size 500", NULL);

    byte_builder toolong = {0};
    build_id_entry(&toolong, PV_MISC_BUILD_ID_SIZE, 1, id, 20, "a");
    toolong.bytes[8 + 4 + 20] = 21;
    expect_error("build_id size byte above 20", PV_FEATURE_BUILD_ID, &toolong, -1,
                 "build-id size 21", "offset 0x40");

    byte_builder tail = {0};
    build_id_entry(&tail, 1, -1, id, 20, "x");
    bb_zeros(&tail, 4);
    expect_error("build_id section with a partial header at the end", PV_FEATURE_BUILD_ID, &tail,
                 -1, "entry at offset 0x6c", NULL);
}

static void test_section_outside_file(void)
{
    byte_builder b = {0};
    bb_header_string(&b, "vm");
    pv_file *f = make_file(PV_FEATURE_HOSTNAME, &b, b.n, -1);
    f->feature_sections[PV_FEATURE_HOSTNAME].size = 1u << 20;
    pv_feature_value_kind kind;
    int64_t integer;
    pv_error err;
    int rc = pv_feature_decode(f, PV_FEATURE_HOSTNAME, &kind, &integer, &res.text, &err);
    check(rc == -1 && strstr(err.msg, "fake.data") && strstr(err.msg, "0x40") &&
          strstr(err.msg, "hostname"), "a section past the end of the file fails", "rc %d: %s",
          rc, err.msg);
}

int main(void)
{
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        printf("not ok - sqlite3_open: cannot open an in-memory database\n");
        return 0;
    }
    test_names();
    test_strings();
    test_numbers();
    test_cmdline();
    test_event_desc();
    test_cpu_topology();
    test_numa();
    test_pmu_mappings_and_groups();
    test_caps();
    test_perf7_features(false);
    test_perf7_features(true);
    test_cache();
    test_mem_topology();
    test_auxtrace_and_bpf();
    test_tracing_data();
    test_build_ids();
    test_section_outside_file();
    pv_strbuf_free(&res.text);
    sqlite3_close(db);
    return 0;
}
