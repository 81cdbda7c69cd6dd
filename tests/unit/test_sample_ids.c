/*
 * Unit tests of sample decoding (src/decode/sample.c) on records built byte
 * by byte: which event a sample belongs to when a file has several (the
 * id's position, IDENTIFIER), the sample_id_all trailer of other records,
 * and malformed samples, which must be errors naming the file and offset.
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_abi.h"
#include "byte_builder.h"
#include "unit_check.h"
#include "sample_checks.h"

static void test_multi_event_identifier(void)
{
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, false);
    k.f.nr_attrs = 2;
    /* With IDENTIFIER the layouts may differ beyond the first word. */
    k.attrs[0].sample_type = PV_SAMPLE_IDENTIFIER | PV_SAMPLE_IP | PV_SAMPLE_TIME;
    k.attrs[1].sample_type = PV_SAMPLE_IDENTIFIER | PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_PERIOD;
    fake_add_id(&k, 10, 0);
    fake_add_id(&k, 11, 0);
    fake_add_id(&k, 20, 1);
    fake_locate_ids(&k);

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 20);
    bb_u64(&b, 0x401000);
    bb_u32(&b, 5);
    bb_u32(&b, 6);
    bb_u64(&b, 999);
    check(decode(&k, &b, &s, &err) == 0, "multi-event IDENTIFIER: decodes", "%s", err.msg);
    check(s.attr_index == 1, "multi-event IDENTIFIER: id 20 is event 1", "attr_index %d", s.attr_index);
    check(s.pid == 5 && s.tid == 6 && s.period == 999 && s.time == 0,
          "multi-event IDENTIFIER: event 1's layout", "pid %u tid %u period %llu", s.pid, s.tid,
          (unsigned long long)s.period);

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 11);
    bb_u64(&b, 0x401000);
    bb_u64(&b, 12345);
    check(decode(&k, &b, &s, &err) == 0 && s.attr_index == 0 && s.time == 12345,
          "multi-event IDENTIFIER: id 11 is event 0 with its layout", "attr_index %d time %llu",
          s.attr_index, (unsigned long long)s.time);

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 99);
    bb_u64(&b, 0x401000);
    int rc = decode(&k, &b, &s, &err);
    check(rc == 0 && s.attr_index == -1 && s.sample_type == 0,
          "multi-event IDENTIFIER: unknown id gives attr_index -1, no fields", "rc %d attr_index %d", rc,
          s.attr_index);

    /* A record too short to hold the id word. */
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    pv_record r = bb_record_end(&b);
    check(pv_record_attr_index(&k.f, &r) == -1, "multi-event IDENTIFIER: empty sample has no event",
          "got %d", pv_record_attr_index(&k.f, &r));
}

static void test_multi_event_id_position(bool swap)
{
    const char *label = swap ? "multi-event ID position big-endian" : "multi-event ID position";
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.f.nr_attrs = 3;
    uint64_t t = PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_ID | PV_SAMPLE_CPU |
                 PV_SAMPLE_PERIOD;
    for (int i = 0; i < 3; i++) {
        k.attrs[i].sample_type = t;
        k.attrs[i].flags = 1ull << PV_ATTR_SAMPLE_ID_ALL;
    }
    fake_add_id(&k, 0x100, 0);
    fake_add_id(&k, 0x200, 1);
    fake_add_id(&k, 0x300, 2);
    fake_locate_ids(&k);
    check(k.f.sample_id_word == 3, name("%s: id is word 3 (after ip, tid, time)", label), "%d",
          k.f.sample_id_word);
    for (uint64_t e = 0; e < 3; e++) {
        bb_record_begin(&b, PV_RECORD_SAMPLE, 0, swap);
        bb_u64(&b, 0x401000);
        bb_u32(&b, 1);
        bb_u32(&b, 2);
        bb_u64(&b, 3);
        bb_u64(&b, 0x100 * (e + 1));
        bb_u32(&b, 1);
        bb_u32(&b, 0);
        bb_u64(&b, 4000 + e);
        check(decode(&k, &b, &s, &err) == 0 && s.attr_index == (int)e && s.id == 0x100 * (e + 1) &&
              s.period == 4000 + e, name("%s: sample of event %llu", label, (unsigned long long)e),
              "attr_index %d id 0x%llx", s.attr_index, (unsigned long long)s.id);
    }

    /* The sample_id_all trailer of a COMM: tid, time, id, cpu. */
    bb_record_begin(&b, PV_RECORD_COMM, 0, swap);
    bb_u32(&b, 42);
    bb_u32(&b, 43);
    bb_bytes(&b, "bash\0\0\0\0", 8);
    bb_u32(&b, 42);
    bb_u32(&b, 43);
    bb_u64(&b, 777);
    bb_u64(&b, 0x300);
    bb_u32(&b, 3);
    bb_u32(&b, 0);
    pv_record r = bb_record_end(&b);
    pv_sample_id sid;
    int rc = pv_sample_id_decode(&k.f, &r, &sid, &err);
    check(rc == 0, name("%s: COMM trailer decodes", label), "%s", err.msg);
    check(sid.attr_index == 2, name("%s: COMM trailer id 0x300 is event 2", label), "attr_index %d",
          sid.attr_index);
    check_u64(name("%s: trailer fields", label), sid.fields,
              PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_ID | PV_SAMPLE_CPU);
    check_u64(name("%s: trailer size", label), sid.size, 32);
    check(sid.pid == 42 && sid.tid == 43 && sid.time == 777 && sid.id == 0x300 && sid.cpu == 3,
          name("%s: trailer values", label), "pid %u tid %u time %llu id 0x%llx cpu %u", sid.pid,
          sid.tid, (unsigned long long)sid.time, (unsigned long long)sid.id, sid.cpu);
}

static void test_sample_id_trailer(bool swap)
{
    const char *label = swap ? "sample_id_all trailer big-endian" : "sample_id_all trailer";
    fake k;
    byte_builder b;
    pv_error err;
    pv_sample_id sid;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IDENTIFIER | PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_TIME |
                             PV_SAMPLE_ID | PV_SAMPLE_STREAM_ID | PV_SAMPLE_CPU | PV_SAMPLE_PERIOD |
                             PV_SAMPLE_CALLCHAIN;
    k.attrs[0].flags = 1ull << PV_ATTR_SAMPLE_ID_ALL;
    fake_locate_ids(&k);

    /* A FORK record: pid ppid tid ptid time, then the trailer
     * tid time id stream_id cpu identifier. */
    bb_record_begin(&b, PV_RECORD_FORK, 0, swap);
    bb_u32(&b, 100);
    bb_u32(&b, 1);
    bb_u32(&b, 101);
    bb_u32(&b, 1);
    bb_u64(&b, 5000);
    bb_u32(&b, 100);
    bb_u32(&b, 101);
    bb_u64(&b, 5001);
    bb_u64(&b, 0x1d);
    bb_u64(&b, 0x5d);
    bb_u32(&b, 9);
    bb_u32(&b, 0);
    bb_u64(&b, 0x1d);
    pv_record r = bb_record_end(&b);
    int rc = pv_sample_id_decode(&k.f, &r, &sid, &err);
    check(rc == 0, name("%s: FORK decodes", label), "%s", err.msg);
    check_u64(name("%s: fields (no IP, PERIOD, CALLCHAIN)", label), sid.fields,
              PV_SAMPLE_IDENTIFIER | PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_ID |
              PV_SAMPLE_STREAM_ID | PV_SAMPLE_CPU);
    check_u64(name("%s: size", label), sid.size, 48);
    check(sid.pid == 100 && sid.tid == 101, name("%s: pid/tid", label), "%u/%u", sid.pid, sid.tid);
    check_u64(name("%s: time", label), sid.time, 5001);
    check_u64(name("%s: id", label), sid.id, 0x1d);
    check_u64(name("%s: stream_id", label), sid.stream_id, 0x5d);
    check_u64(name("%s: cpu", label), sid.cpu, 9);
    check_u64(name("%s: identifier last", label), sid.identifier, 0x1d);

    /* Too short for its trailer. */
    bb_record_begin(&b, PV_RECORD_FORK, 0, swap);
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    r = bb_record_end(&b);
    rc = pv_sample_id_decode(&k.f, &r, &sid, &err);
    check(rc == -1 && strstr(err.msg, FAKE_PATH) && strstr(err.msg, "offset 0x"),
          name("%s: record shorter than the trailer is an error with the offset", label),
          "rc %d '%s'", rc, err.msg);

    /* User records (type >= 64) have no trailer. */
    bb_record_begin(&b, PV_RECORD_FINISHED_ROUND, 0, swap);
    r = bb_record_end(&b);
    rc = pv_sample_id_decode(&k.f, &r, &sid, &err);
    check(rc == 0 && sid.fields == 0, name("%s: FINISHED_ROUND has none", label), "rc %d fields 0x%llx",
          rc, (unsigned long long)sid.fields);

    /* sample_id_all off: none. */
    k.attrs[0].flags = 0;
    bb_record_begin(&b, PV_RECORD_EXIT, 0, swap);
    bb_u64(&b, 1);
    r = bb_record_end(&b);
    rc = pv_sample_id_decode(&k.f, &r, &sid, &err);
    check(rc == 0 && sid.fields == 0 && sid.size == 0, name("%s: sample_id_all off, no trailer", label),
          "rc %d fields 0x%llx", rc, (unsigned long long)sid.fields);
}

static void expect_malformed(fake *k, byte_builder *b, const char *label)
{
    pv_sample s;
    pv_error err;
    int rc = decode(k, b, &s, &err);
    char at[32];
    snprintf(at, sizeof at, "offset 0x%x", BB_RECORD_OFFSET);
    check(rc == -1 && strstr(err.msg, FAKE_PATH) && strstr(err.msg, at),
          name("malformed %s: error naming the file and offset", label), "rc %d '%s'", rc, err.msg);
}

static void test_malformed(void)
{
    fake k;
    byte_builder b;
    fake_init(&k, false);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_CALLCHAIN;
    fake_locate_ids(&k);

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 1ull << 61);     /* nr * 8 wraps to 0 */
    bb_u64(&b, 0x401000);
    expect_malformed(&k, &b, "callchain nr 2^61");

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, UINT64_MAX);
    expect_malformed(&k, &b, "callchain nr 2^64-1");

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 3);
    bb_u64(&b, 0x401000);
    bb_u64(&b, 0x402000);
    expect_malformed(&k, &b, "callchain nr 3 with 2 entries");

    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_BRANCH_STACK;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 0x0aaaaaaaaaaaaaabull);  /* nr * 24 wraps to 8 */
    bb_u64(&b, 0);
    expect_malformed(&k, &b, "branch nr that wraps nr*24");

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    bb_u64(&b, 3);
    expect_malformed(&k, &b, "branch nr 2 with 1 entry");

    k.attrs[0].branch_sample_type = PV_BRANCH_HW_INDEX;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 1);
    bb_u64(&b, 0);          /* hw_idx */
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    expect_malformed(&k, &b, "branch entry cut short after hw_idx");

    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_RAW;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u32(&b, 0xfffffffc);
    bb_u32(&b, 0);
    expect_malformed(&k, &b, "raw size 0xfffffffc");

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u32(&b, 12);
    bb_u32(&b, 0);
    expect_malformed(&k, &b, "raw size 12 with 4 bytes");

    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_STACK_USER;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, UINT64_MAX - 7);
    bb_u64(&b, 0);
    expect_malformed(&k, &b, "stack size 2^64-8");

    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 8);
    bb_u64(&b, 0);          /* the 8 bytes, but no dyn_size */
    expect_malformed(&k, &b, "stack without dyn_size");

    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_READ;
    k.attrs[0].read_format = PV_FORMAT_GROUP | PV_FORMAT_ID;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 1ull << 60);   /* nr * 16 wraps to 0 */
    expect_malformed(&k, &b, "read group nr 2^60");

    k.attrs[0].read_format = PV_FORMAT_TOTAL_TIME_ENABLED | PV_FORMAT_ID;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    bb_u64(&b, 3);
    expect_malformed(&k, &b, "read non-group missing its id");

    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_REGS_USER;
    k.attrs[0].sample_regs_user = 0xff;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    bb_u64(&b, 3);
    expect_malformed(&k, &b, "regs_user with fewer values than the mask");

    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_AUX;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 1ull << 63);
    expect_malformed(&k, &b, "aux size 2^63");

    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_PHYS_ADDR | PV_SAMPLE_CGROUP;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 1);
    bb_u64(&b, 2);
    bb_u64(&b, 3);
    expect_malformed(&k, &b, "record ending before cgroup");
}

/* The id -> event lookup: perf_file.c keeps ids that lie close together
 * in a dense table, others in a sorted list it searches.  Both must give
 * an event that lists the id (one of them for an id two events list), -1
 * for an id no event lists. */
static bool lookup_right(const pv_file *f, uint64_t id)
{
    int got = pv_file_attr_for_id(f, id);
    bool listed = false;
    for (size_t i = 0; i < f->nr_id_map; i++)
        if (f->id_map[i].id == id) {
            listed = true;
            if (got == (int)f->id_map[i].attr_index)
                return true;
        }
    return !listed && got == -1;
}

/* perf_samples' column read alone finds a sample's event by
 * pv_sample_attr_index_dense where pv_sample_dense_id_at allows: the same
 * event as its twin pv_sample_attr_index, for a sample of that id. */
static bool dense_read_right(fake *k, uint64_t id)
{
    uint16_t at = pv_sample_dense_id_at(&k->f);
    if (at == 0)
        return true;
    byte_builder b;
    bb_record_begin(&b, PV_RECORD_SAMPLE, 0, false);
    bb_u64(&b, 0x1234);     /* ip */
    bb_u64(&b, id);
    pv_record r = bb_record_end(&b);
    bool same = r.size >= at + 8u &&
                pv_sample_attr_index_dense(&k->f, &r, at) == pv_sample_attr_index(&k->f, &r);
    return same;
}

static void check_id_lookup(const char *label, uint64_t *ids0, uint64_t n0, uint64_t *ids1,
                            uint64_t n1, bool want_dense)
{
    fake k;
    pv_error err;
    fake_init(&k, false);
    k.f.nr_attrs = 2;
    k.f.id_map = NULL;
    k.f.nr_id_map = 0;
    for (int i = 0; i < 2; i++)
        k.attrs[i].sample_type = PV_SAMPLE_IP | PV_SAMPLE_ID;
    k.attrs[0].ids = ids0;
    k.attrs[0].nr_ids = n0;
    k.attrs[1].ids = ids1;
    k.attrs[1].nr_ids = n1;
    check(pv_file_index_ids(&k.f, &err) == 0, name("id lookup %s: indexes", label), "%s", err.msg);
    check((k.f.id_dense != NULL) == want_dense, name("id lookup %s: dense table %s", label,
          want_dense ? "built" : "not built"), "id_dense %p", (void *)k.f.id_dense);
    bool same = true;
    uint64_t bad = 0;
    uint64_t probes[] = { 0, 1, UINT64_MAX, UINT64_MAX - 1 };
    fake_locate_ids(&k);
    check(pv_sample_dense_id_at(&k.f) == (want_dense ? 16 : 0),
          name("id lookup %s: samples' ids read straight %s", label, want_dense ? "at 16" : "nowhere"),
          "at %u", (unsigned)pv_sample_dense_id_at(&k.f));
    for (size_t i = 0; i < 4; i++)
        if ((!lookup_right(&k.f, probes[i]) || !dense_read_right(&k, probes[i])) && same) {
            same = false;
            bad = probes[i];
        }
    for (uint64_t a = 0; a < n0 + n1; a++) {
        uint64_t id = a < n0 ? ids0[a] : ids1[a - n0];
        for (uint64_t d = 0; d < 3; d++) {
            uint64_t near[] = { id - d, id + d };
            for (int j = 0; j < 2; j++)
                if ((!lookup_right(&k.f, near[j]) || !dense_read_right(&k, near[j])) && same) {
                    same = false;
                    bad = near[j];
                }
        }
    }
    check(same, name("id lookup %s: every id and its neighbours as listed", label),
          "id 0x%llx: event %d", (unsigned long long)bad, pv_file_attr_for_id(&k.f, bad));
    free(k.f.id_map);
    free(k.f.id_dense);
}

static void test_id_lookup(void)
{
    uint64_t row0[] = { 106713, 106714 }, row1[] = { 106715, 106716 };
    check_id_lookup("perf's ids in a row", row0, 2, row1, 2, true);
    uint64_t gap0[] = { 7, 9, 30 }, gap1[] = { 8, 100 };
    check_id_lookup("ids with gaps", gap0, 3, gap1, 2, true);
    uint64_t far0[] = { 5, 1ull << 40 }, far1[] = { UINT64_MAX };
    check_id_lookup("ids far apart", far0, 2, far1, 1, false);
    uint64_t dup0[] = { 3, 4 }, dup1[] = { 4, 5 };
    check_id_lookup("an id two events list", dup0, 2, dup1, 2, false);
    uint64_t top0[] = { UINT64_MAX - 2 }, top1[] = { UINT64_MAX };
    check_id_lookup("ids at the top of u64", top0, 1, top1, 1, true);
}

int main(void)
{
    test_id_lookup();
    test_multi_event_identifier();
    test_multi_event_id_position(false);
    test_multi_event_id_position(true);
    test_sample_id_trailer(false);
    test_sample_id_trailer(true);
    test_malformed();
    pv_strbuf_free(&json);
    return 0;
}
