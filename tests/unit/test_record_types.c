/*
 * Unit test of the typed record decoders (src/decode/record_types.h): records
 * built byte by byte in both byte orders, each decoder's fields and
 * sample_id trailer checked, and short or damaged records that must be
 * errors naming the file, the record, its offset and the field.
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

/* The trailer of attr_trailer's sample_type (TID, TIME, CPU). */
static void trailer(byte_builder *w)
{
    bb_u32(w, 501); bb_u32(w, 502); bb_u64(w, 123456789); bb_u32(w, 3); bb_u32(w, 0);
}

/* ------------------------------------------------------------ fake files */

static pv_attr attr_plain, attr_trailer, attr_read, attr_group;

static void expect_trailer(const char *what, const pv_sample_id *t)
{
    EQ(what, t->fields, PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_CPU);
    EQ(what, t->pid, 501);
    EQ(what, t->tid, 502);
    EQ(what, t->time, 123456789);
    EQ(what, t->cpu, 3);
    check(true, what, " ");
}

/* ------------------------------------------------------------ maps */

static void test_mmap(bool be)
{
    pv_file ft = fake_file(&attr_trailer, be), f = fake_file(&attr_plain, be);
    byte_builder w;
    pv_error err;
    pv_rec_mmap m;

    bb_record_start(&w, be);
    bb_u32(&w, 10); bb_u32(&w, 11); bb_u64(&w, 0x400000); bb_u64(&w, 0x2000); bb_u64(&w, 0x1000);
    bb_padded_string(&w, "/bin/ls", 16);
    trailer(&w);
    pv_record r = bb_record_finish(&w, PV_RECORD_MMAP, 2, 0);
    const char *what = named("MMAP fields and trailer", be);
    DECODED(what, pv_rec_mmap_decode(&ft, &r, &m, &err), err);
    EQ(what, m.mmap2, false);
    EQ(what, m.pid, 10);
    EQ(what, m.tid, 11);
    EQ(what, m.start, 0x400000);
    EQ(what, m.len, 0x2000);
    EQ(what, m.pgoff, 0x1000);
    TEXT(what, m.filename, m.filename_len, "/bin/ls");
    expect_trailer(what, &m.trailer);

    r = bb_record_finish(&w, PV_RECORD_MMAP, 2, PV_RECORD_HEADER_SIZE + 12);
    expect_error(named("MMAP cut inside start", be), pv_rec_mmap_decode(&f, &r, &m, &err), &err,
                 "MMAP record", "start at offset 0x1a48");

    /* MMAP2, inode form */
    bb_record_start(&w, be);
    bb_u32(&w, 20); bb_u32(&w, 21); bb_u64(&w, 0x1000); bb_u64(&w, 0x2000); bb_u64(&w, 0x3000);
    bb_u32(&w, 8); bb_u32(&w, 1); bb_u64(&w, 123456); bb_u64(&w, 7);
    bb_u32(&w, 5); bb_u32(&w, 2); bb_padded_string(&w, "/usr/lib/libc.so.6", 24);
    trailer(&w);
    r = bb_record_finish(&w, PV_RECORD_MMAP2, 2, 0);
    what = named("MMAP2 inode form", be);
    DECODED(what, pv_rec_mmap_decode(&ft, &r, &m, &err), err);
    EQ(what, m.mmap2, true);
    EQ(what, m.has_build_id, false);
    EQ(what, m.pid, 20);
    EQ(what, m.maj, 8);
    EQ(what, m.min, 1);
    EQ(what, m.ino, 123456);
    EQ(what, m.ino_generation, 7);
    EQ(what, m.prot, 5);
    EQ(what, m.flags, 2);
    EQ(what, m.short_layout, false);
    TEXT(what, m.filename, m.filename_len, "/usr/lib/libc.so.6");
    expect_trailer(what, &m.trailer);

    /* MMAP2, build-id form */
    bb_record_start(&w, be);
    bb_u32(&w, 20); bb_u32(&w, 21); bb_u64(&w, 0x1000); bb_u64(&w, 0x2000); bb_u64(&w, 0);
    bb_u8(&w, 20); bb_u8(&w, 0); bb_u16(&w, 0);
    for (int i = 0; i < 20; i++) bb_u8(&w, 0xa0 + i);
    bb_u32(&w, 5); bb_u32(&w, 2); bb_padded_string(&w, "/x", 8);
    r = bb_record_finish(&w, PV_RECORD_MMAP2, 2 | PV_MISC_MMAP_BUILD_ID, 0);
    what = named("MMAP2 build-id of 20 bytes", be);
    DECODED(what, pv_rec_mmap_decode(&f, &r, &m, &err), err);
    EQ(what, m.has_build_id, true);
    EQ(what, m.build_id_size, 20);
    EQ(what, m.build_id[0], 0xa0);
    EQ(what, m.build_id[19], 0xb3);
    EQ(what, m.prot, 5);
    TEXT(what, m.filename, m.filename_len, "/x");
    EQ(what, m.trailer.fields, 0);
    check(true, what, " ");

    w.bytes[PV_RECORD_HEADER_SIZE + 32] = 16;
    what = named("MMAP2 build-id of 16 bytes: the rest of the field skipped", be);
    DECODED(what, pv_rec_mmap_decode(&f, &r, &m, &err), err);
    EQ(what, m.build_id_size, 16);
    EQ(what, m.prot, 5);
    TEXT(what, m.filename, m.filename_len, "/x");
    check(true, what, " ");

    /* the one rule for every consumer: over 20 bytes is an error */
    w.bytes[PV_RECORD_HEADER_SIZE + 32] = 21;
    expect_error(named("MMAP2 build-id of 21 bytes is an error", be),
                 pv_rec_mmap_decode(&f, &r, &m, &err), &err, "MMAP2 record", "build-id size 21");
    w.bytes[PV_RECORD_HEADER_SIZE + 32] = 255;
    expect_error(named("MMAP2 build-id of 255 bytes is an error", be),
                 pv_rec_mmap_decode(&f, &r, &m, &err), &err, "build-id size 255", NULL);
    w.bytes[PV_RECORD_HEADER_SIZE + 32] = 20;
    r = bb_record_finish(&w, PV_RECORD_MMAP2, 2 | PV_MISC_MMAP_BUILD_ID, PV_RECORD_HEADER_SIZE + 48);
    expect_error(named("MMAP2 cut inside its build-id", be), pv_rec_mmap_decode(&f, &r, &m, &err),
                 &err, "build_id at offset", NULL);
}

/* An MMAP2 in the inode form up to ino_generation (body offset 56). */
static void mmap2_head(byte_builder *w, bool be)
{
    bb_record_start(w, be);
    bb_u32(w, 30); bb_u32(w, 31); bb_u64(w, 0x7f0000); bb_u64(w, 0x1000); bb_u64(w, 0x2000);
    bb_u32(w, 253); bb_u32(w, 0); bb_u64(w, 4242); bb_u64(w, 9);
}

/* The name NUL-terminated and NUL-padded to a multiple of 8, as kernels write it. */
static void kernel_name(byte_builder *w, const char *name)
{
    bb_padded_string(w, name, (strlen(name) + 1 + 7) / 8 * 8);
}

/* Linux 3.12-3.15 and RHEL 7's 3.10: no prot and flags, the name at 56. */
static void test_mmap2_short(bool be)
{
    pv_file ft = fake_file(&attr_trailer, be), f = fake_file(&attr_plain, be);
    byte_builder w;
    pv_error err;
    pv_rec_mmap m;

    /* a name of 8 bytes or more: read at 64, it is a well-formed name too,
     * 8 bytes late (perf 6.1's "64/libc-2.17.so") */
    mmap2_head(&w, be);
    kernel_name(&w, "/usr/lib64/libc-2.17.so");
    trailer(&w);
    pv_record r = bb_record_finish(&w, PV_RECORD_MMAP2, 2, 0);
    const char *what = named("short MMAP2 /usr/lib64/libc-2.17.so, with a trailer", be);
    DECODED(what, pv_rec_mmap_decode(&ft, &r, &m, &err), err);
    EQ(what, m.short_layout, true);
    EQ(what, m.prot, 0);
    EQ(what, m.flags, 0);
    EQ(what, m.maj, 253);
    EQ(what, m.ino, 4242);
    EQ(what, m.ino_generation, 9);
    TEXT(what, m.filename, m.filename_len, "/usr/lib64/libc-2.17.so");
    expect_trailer(what, &m.trailer);

    /* names under 8 bytes (read at 64 there is no name at all, only the
     * trailer), of exactly 8 (the NUL takes 8 more) and longer */
    static const char *const short_names[] = {"//anon", "[vdso]", "[stack]", "/a", "/bin/cat",
                                              "/usr/bin/x", "anon_inode:[perf_event]"};
    for (size_t i = 0; i < sizeof short_names / sizeof *short_names; i++) {
        char what_name[96];
        snprintf(what_name, sizeof what_name, "short MMAP2 %s", short_names[i]);
        what = named(what_name, be);
        mmap2_head(&w, be);
        kernel_name(&w, short_names[i]);
        r = bb_record_finish(&w, PV_RECORD_MMAP2, 2, 0);
        DECODED(what, pv_rec_mmap_decode(&f, &r, &m, &err), err);
        EQ(what, m.short_layout, true);
        TEXT(what, m.filename, m.filename_len, short_names[i]);
        check(true, what, " ");
    }

    /* padding that is not the kernel's (16 bytes for a 6-byte name): not
     * taken as short, read in today's layout as it is */
    mmap2_head(&w, be);
    bb_padded_string(&w, "//anon", 16);
    r = bb_record_finish(&w, PV_RECORD_MMAP2, 2, 0);
    what = named("a name at 56 padded past the kernel's 8 bytes is not the short layout", be);
    DECODED(what, pv_rec_mmap_decode(&f, &r, &m, &err), err);
    EQ(what, m.short_layout, false);
    check(true, what, " ");

    /* MMAP has no prot to leave out */
    bb_record_start(&w, be);
    bb_u32(&w, 1); bb_u32(&w, 1); bb_u64(&w, 0); bb_u64(&w, 0x1000); bb_u64(&w, 0);
    bb_u32(&w, 0); bb_u32(&w, 0); bb_u64(&w, 0); bb_u64(&w, 0);
    kernel_name(&w, "/usr/lib64/libc-2.17.so");
    r = bb_record_finish(&w, PV_RECORD_MMAP, 2, 0);
    what = named("an MMAP is never short", be);
    DECODED(what, pv_rec_mmap_decode(&f, &r, &m, &err), err);
    EQ(what, m.short_layout, false);
    check(true, what, " ");
}

/* Today's layout is never taken as short, whatever the name's length (so
 * also the lengths at which the name read at 56 would end where the padding
 * does), for every prot a writer puts there and common flags. */
static void test_mmap2_long_never_short(bool be)
{
    pv_file f = fake_file(&attr_plain, be), ft = fake_file(&attr_trailer, be);
    static const uint32_t flags[] = {0, 1 /* MAP_SHARED */, 2 /* MAP_PRIVATE */,
                                     0x1802 /* PRIVATE|DENYWRITE|EXECUTABLE */, 0x7f7f7f7f};
    const char *what = named("today's MMAP2 is never short: names of 1..64 bytes, prot 0..7, "
                             "5 kinds of flags, with and without a trailer", be);
    char name[80];
    for (size_t len = 1; len <= 64; len++) {
        for (size_t i = 0; i < len; i++)
            name[i] = (char)('a' + (i % 26));
        name[0] = '/';
        name[len] = 0;
        for (uint32_t prot = 0; prot <= 7; prot++) {
            for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) {
                for (int with_trailer = 0; with_trailer <= 1; with_trailer++) {
                    byte_builder w;
                    pv_error err;
                    pv_rec_mmap m;
                    mmap2_head(&w, be);
                    bb_u32(&w, prot); bb_u32(&w, flags[k]);
                    kernel_name(&w, name);
                    if (with_trailer)
                        trailer(&w);
                    pv_record r = bb_record_finish(&w, PV_RECORD_MMAP2, 2, 0);
                    DECODED(what, pv_rec_mmap_decode(with_trailer ? &ft : &f, &r, &m, &err), err);
                    EQ(what, m.short_layout, false);
                    EQ(what, m.prot, prot);
                    EQ(what, m.flags, flags[k]);
                    TEXT(what, m.filename, m.filename_len, name);
                }
            }
        }
    }
    check(true, what, " ");
}

/* ------------------------------------------------------------ tasks */

static void test_tasks(bool be)
{
    pv_file ft = fake_file(&attr_trailer, be), f = fake_file(&attr_plain, be);
    byte_builder w;
    pv_error err;

    pv_rec_comm c;
    bb_record_start(&w, be);
    bb_u32(&w, 42); bb_u32(&w, 43); bb_padded_string(&w, "workload", 16);
    trailer(&w);
    pv_record r = bb_record_finish(&w, PV_RECORD_COMM, PV_MISC_COMM_EXEC, 0);
    const char *what = named("COMM", be);
    DECODED(what, pv_rec_comm_decode(&ft, &r, &c, &err), err);
    EQ(what, c.pid, 42);
    EQ(what, c.tid, 43);
    EQ(what, c.exec, true);
    TEXT(what, c.comm, c.comm_len, "workload");
    expect_trailer(what, &c.trailer);
    r = bb_record_finish(&w, PV_RECORD_COMM, 0, PV_RECORD_HEADER_SIZE + 4);
    expect_error(named("COMM without its tid", be), pv_rec_comm_decode(&f, &r, &c, &err), &err,
                 "COMM record", "tid at offset 0x1a44");
    r = bb_record_finish(&w, PV_RECORD_COMM, 0, PV_RECORD_HEADER_SIZE + 16);
    expect_error(named("COMM shorter than its trailer", be),
                 pv_rec_comm_decode(&ft, &r, &c, &err), &err, "trailer", NULL);

    pv_rec_task t;
    bb_record_start(&w, be);
    bb_u32(&w, 100); bb_u32(&w, 1); bb_u32(&w, 101); bb_u32(&w, 2); bb_u64(&w, 999);
    trailer(&w);
    r = bb_record_finish(&w, PV_RECORD_EXIT, 0, 0);
    what = named("EXIT", be);
    DECODED(what, pv_rec_task_decode(&ft, &r, &t, &err), err);
    EQ(what, t.exit, true);
    EQ(what, t.pid, 100);
    EQ(what, t.ppid, 1);
    EQ(what, t.tid, 101);
    EQ(what, t.ptid, 2);
    EQ(what, t.time, 999);
    expect_trailer(what, &t.trailer);
    r = bb_record_finish(&w, PV_RECORD_FORK, 0, PV_RECORD_HEADER_SIZE + 16);
    expect_error(named("FORK without its time", be), pv_rec_task_decode(&f, &r, &t, &err), &err,
                 "FORK record", "time at offset");

    pv_rec_namespaces ns;
    bb_record_start(&w, be);
    bb_u32(&w, 7); bb_u32(&w, 8); bb_u64(&w, 2);
    bb_u64(&w, 4); bb_u64(&w, 0xf0000001); bb_u64(&w, 4); bb_u64(&w, 0xf0000002);
    r = bb_record_finish(&w, PV_RECORD_NAMESPACES, 0, 0);
    what = named("NAMESPACES", be);
    DECODED(what, pv_rec_namespaces_decode(&f, &r, &ns, &err), err);
    EQ(what, ns.pid, 7);
    EQ(what, ns.nr_namespaces, 2);
    uint64_t dev, ino;
    pv_rec_namespace_at(&ns, 1, &dev, &ino);
    EQ(what, dev, 4);
    EQ(what, ino, 0xf0000002);
    check(true, what, " ");
    w.n = PV_RECORD_HEADER_SIZE + 8;
    bb_u64(&w, 3);
    w.n = PV_RECORD_HEADER_SIZE + 48;
    r = bb_record_finish(&w, PV_RECORD_NAMESPACES, 0, 0);
    expect_error(named("NAMESPACES nr larger than the record", be),
                 pv_rec_namespaces_decode(&f, &r, &ns, &err), &err, "namespaces count 3", NULL);

    pv_rec_cgroup cg;
    bb_record_start(&w, be);
    bb_u64(&w, 77); bb_padded_string(&w, "/sys/fs/cgroup/a", 24);
    r = bb_record_finish(&w, PV_RECORD_CGROUP, 0, 0);
    what = named("CGROUP", be);
    DECODED(what, pv_rec_cgroup_decode(&f, &r, &cg, &err), err);
    EQ(what, cg.id, 77);
    TEXT(what, cg.path, cg.path_len, "/sys/fs/cgroup/a");
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_CGROUP, 0, PV_RECORD_HEADER_SIZE + 4);
    expect_error(named("CGROUP cut inside its id", be), pv_rec_cgroup_decode(&f, &r, &cg, &err),
                 &err, "id at offset", NULL);
}

/* ------------------------------------------------------------ deferred callchains */

static void test_callchain_deferred(bool be)
{
    pv_file ft = fake_file(&attr_trailer, be);
    byte_builder w;
    pv_error err;
    pv_rec_callchain_deferred c;
    bb_record_start(&w, be);
    bb_u64(&w, 0x3001); bb_u64(&w, 3);
    bb_u64(&w, PV_CONTEXT_USER); bb_u64(&w, 0x401000); bb_u64(&w, 0x7f0000001234);
    trailer(&w);
    pv_record r = bb_record_finish(&w, PV_RECORD_CALLCHAIN_DEFERRED, 2, 0);
    const char *what = named("CALLCHAIN_DEFERRED", be);
    DECODED(what, pv_rec_callchain_deferred_decode(&ft, &r, &c, &err), err);
    EQ(what, c.cookie, 0x3001);
    EQ(what, c.nr, 3);
    EQ(what, pv_rec_callchain_deferred_ip(&c, 0), PV_CONTEXT_USER);
    EQ(what, pv_rec_callchain_deferred_ip(&c, 1), 0x401000);
    EQ(what, pv_rec_callchain_deferred_ip(&c, 2), 0x7f0000001234);
    expect_trailer(what, &c.trailer);
    /* nr past the body: one error naming the count, nothing read past */
    bb_record_start(&w, be);
    bb_u64(&w, 0x3001); bb_u64(&w, 1000); bb_u64(&w, PV_CONTEXT_USER);
    trailer(&w);
    r = bb_record_finish(&w, PV_RECORD_CALLCHAIN_DEFERRED, 0, 0);
    expect_error(named("CALLCHAIN_DEFERRED with nr past its end", be),
                 pv_rec_callchain_deferred_decode(&ft, &r, &c, &err), &err,
                 "CALLCHAIN_DEFERRED record", "ips count 1000");
    r = bb_record_finish(&w, PV_RECORD_CALLCHAIN_DEFERRED, 0, PV_RECORD_HEADER_SIZE + 4 + 24);
    expect_error(named("CALLCHAIN_DEFERRED cut in its cookie", be),
                 pv_rec_callchain_deferred_decode(&ft, &r, &c, &err), &err, "cookie at offset",
                 NULL);
}

/* ------------------------------------------------------------ losses and events */

static void test_losses(bool be)
{
    pv_file ft = fake_file(&attr_trailer, be), f = fake_file(&attr_plain, be);
    byte_builder w;
    pv_error err;

    pv_rec_lost l;
    bb_record_start(&w, be);
    bb_u64(&w, 0x55); bb_u64(&w, 12);
    trailer(&w);
    pv_record r = bb_record_finish(&w, PV_RECORD_LOST, 0, 0);
    const char *what = named("LOST", be);
    DECODED(what, pv_rec_lost_decode(&ft, &r, &l, &err), err);
    EQ(what, l.has_id, true);
    EQ(what, l.id, 0x55);
    EQ(what, l.lost, 12);
    expect_trailer(what, &l.trailer);
    r = bb_record_finish(&w, PV_RECORD_LOST, 0, PV_RECORD_HEADER_SIZE + 8);
    expect_error(named("LOST without its count", be), pv_rec_lost_decode(&f, &r, &l, &err), &err,
                 "LOST record", "lost at offset 0x1a48");

    bb_record_start(&w, be);
    bb_u64(&w, 9);
    r = bb_record_finish(&w, PV_RECORD_LOST_SAMPLES, 0, 0);
    what = named("LOST_SAMPLES", be);
    DECODED(what, pv_rec_lost_decode(&f, &r, &l, &err), err);
    EQ(what, l.has_id, false);
    EQ(what, l.lost, 9);
    check(true, what, " ");

    pv_rec_throttle t;
    bb_record_start(&w, be);
    bb_u64(&w, 1000); bb_u64(&w, 0x66); bb_u64(&w, 0x67);
    r = bb_record_finish(&w, PV_RECORD_UNTHROTTLE, 0, 0);
    what = named("UNTHROTTLE", be);
    DECODED(what, pv_rec_throttle_decode(&f, &r, &t, &err), err);
    EQ(what, t.unthrottle, true);
    EQ(what, t.time, 1000);
    EQ(what, t.id, 0x66);
    EQ(what, t.stream_id, 0x67);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_THROTTLE, 0, PV_RECORD_HEADER_SIZE + 16);
    expect_error(named("THROTTLE without stream_id", be),
                 pv_rec_throttle_decode(&f, &r, &t, &err), &err, "stream_id at offset", NULL);
}

static void test_events(bool be)
{
    pv_file f = fake_file(&attr_plain, be), fr = fake_file(&attr_read, be);
    pv_file fg = fake_file(&attr_group, be), ft = fake_file(&attr_trailer, be);
    byte_builder w;
    pv_error err;

    pv_rec_read rd;
    bb_record_start(&w, be);
    bb_u32(&w, 1); bb_u32(&w, 2); bb_u64(&w, 500); bb_u64(&w, 600); bb_u64(&w, 700); bb_u64(&w, 0x99);
    pv_record r = bb_record_finish(&w, PV_RECORD_READ, 0, 0);
    const char *what = named("READ, one value", be);
    DECODED(what, pv_rec_read_decode(&fr, &r, &rd, &err), err);
    EQ(what, rd.group, false);
    EQ(what, rd.pid, 1);
    EQ(what, rd.time_enabled, 600);
    EQ(what, rd.time_running, 700);
    pv_read_value v = pv_rec_read_value_at(&rd, 0);
    EQ(what, v.value, 500);
    EQ(what, v.id, 0x99);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_READ, 0, PV_RECORD_HEADER_SIZE + 32);
    expect_error(named("READ without its id", be), pv_rec_read_decode(&fr, &r, &rd, &err), &err,
                 "READ record", "id at offset");

    bb_record_start(&w, be);
    bb_u32(&w, 1); bb_u32(&w, 2); bb_u64(&w, 2); bb_u64(&w, 600);
    bb_u64(&w, 10); bb_u64(&w, 0x91); bb_u64(&w, 0); bb_u64(&w, 20); bb_u64(&w, 0x92); bb_u64(&w, 4);
    r = bb_record_finish(&w, PV_RECORD_READ, 0, 0);
    what = named("READ, a group", be);
    DECODED(what, pv_rec_read_decode(&fg, &r, &rd, &err), err);
    EQ(what, rd.group, true);
    EQ(what, rd.nr, 2);
    EQ(what, rd.time_enabled, 600);
    v = pv_rec_read_value_at(&rd, 1);
    EQ(what, v.value, 20);
    EQ(what, v.id, 0x92);
    EQ(what, v.lost, 4);
    check(true, what, " ");
    w.n = PV_RECORD_HEADER_SIZE + 8;
    bb_u64(&w, 1000);
    w.n = PV_RECORD_HEADER_SIZE + 72;
    r = bb_record_finish(&w, PV_RECORD_READ, 0, 0);
    expect_error(named("READ group nr larger than the record", be),
                 pv_rec_read_decode(&fg, &r, &rd, &err), &err, "read group count 1000", NULL);

    pv_rec_switch sw;
    bb_record_start(&w, be);
    trailer(&w);
    r = bb_record_finish(&w, PV_RECORD_SWITCH, PV_MISC_SWITCH_OUT | PV_MISC_SWITCH_OUT_PREEMPT, 0);
    what = named("SWITCH: no body, the task in the trailer", be);
    DECODED(what, pv_rec_switch_decode(&ft, &r, &sw, &err), err);
    EQ(what, sw.cpu_wide, false);
    EQ(what, sw.out, true);
    EQ(what, sw.preempt, true);
    expect_trailer(what, &sw.trailer);

    bb_record_start(&w, be);
    bb_u32(&w, 300); bb_u32(&w, 301);
    r = bb_record_finish(&w, PV_RECORD_SWITCH_CPU_WIDE, 0, 0);
    what = named("SWITCH_CPU_WIDE", be);
    DECODED(what, pv_rec_switch_decode(&f, &r, &sw, &err), err);
    EQ(what, sw.cpu_wide, true);
    EQ(what, sw.out, false);
    EQ(what, sw.next_prev_pid, 300);
    EQ(what, sw.next_prev_tid, 301);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_SWITCH_CPU_WIDE, 0, PV_RECORD_HEADER_SIZE + 4);
    expect_error(named("SWITCH_CPU_WIDE without next_prev_tid", be),
                 pv_rec_switch_decode(&f, &r, &sw, &err), &err, "next_prev_tid at offset", NULL);
}

/* ------------------------------------------------------------ code and aux */

static void test_code_and_aux(bool be)
{
    pv_file f = fake_file(&attr_plain, be);
    byte_builder w;
    pv_error err;

    pv_rec_ksymbol k;
    bb_record_start(&w, be);
    bb_u64(&w, 0xffffffffc0000000ull); bb_u32(&w, 256); bb_u16(&w, 1); bb_u16(&w, 0);
    bb_padded_string(&w, "bpf_prog_abc", 16);
    pv_record r = bb_record_finish(&w, PV_RECORD_KSYMBOL, 0, 0);
    const char *what = named("KSYMBOL", be);
    DECODED(what, pv_rec_ksymbol_decode(&f, &r, &k, &err), err);
    EQ(what, k.addr, 0xffffffffc0000000ull);
    EQ(what, k.len, 256);
    EQ(what, k.ksym_type, 1);
    TEXT(what, k.name, k.name_len, "bpf_prog_abc");
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_KSYMBOL, 0, PV_RECORD_HEADER_SIZE + 14);
    expect_error(named("KSYMBOL without flags", be), pv_rec_ksymbol_decode(&f, &r, &k, &err),
                 &err, "flags at offset", NULL);

    pv_rec_bpf_event b;
    bb_record_start(&w, be);
    bb_u16(&w, 1); bb_u16(&w, 0); bb_u32(&w, 42);
    for (int i = 0; i < 8; i++) bb_u8(&w, 0x01 + 0x22 * i);
    r = bb_record_finish(&w, PV_RECORD_BPF_EVENT, 0, 0);
    what = named("BPF_EVENT", be);
    DECODED(what, pv_rec_bpf_event_decode(&f, &r, &b, &err), err);
    EQ(what, b.type, 1);
    EQ(what, b.id, 42);
    EQ(what, b.tag[7], 0x01 + 0x22 * 7);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_BPF_EVENT, 0, PV_RECORD_HEADER_SIZE + 12);
    expect_error(named("BPF_EVENT cut inside its tag", be),
                 pv_rec_bpf_event_decode(&f, &r, &b, &err), &err, "tag at offset", NULL);

    pv_rec_text_poke tp;
    bb_record_start(&w, be);
    bb_u64(&w, 0xffffffff81000000ull); bb_u16(&w, 2); bb_u16(&w, 3);
    bb_u8(&w, 0x90); bb_u8(&w, 0x91); bb_u8(&w, 0xe8); bb_u8(&w, 0x01); bb_u8(&w, 0x02); bb_u8(&w, 0); bb_u8(&w, 0);
    bb_u8(&w, 0); bb_u8(&w, 0); bb_u8(&w, 0); bb_u8(&w, 0); bb_u8(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_TEXT_POKE, 0, 0);
    what = named("TEXT_POKE", be);
    DECODED(what, pv_rec_text_poke_decode(&f, &r, &tp, &err), err);
    EQ(what, tp.old_len, 2);
    EQ(what, tp.new_len, 3);
    EQ(what, tp.old_bytes[1], 0x91);
    EQ(what, tp.new_bytes[0], 0xe8);
    EQ(what, tp.new_bytes[2], 0x02);
    check(true, what, " ");
    w.n = PV_RECORD_HEADER_SIZE + 8;
    bb_u16(&w, 200);
    w.n = PV_RECORD_HEADER_SIZE + 24;
    r = bb_record_finish(&w, PV_RECORD_TEXT_POKE, 0, 0);
    expect_error(named("TEXT_POKE lengths larger than the record", be),
                 pv_rec_text_poke_decode(&f, &r, &tp, &err), &err, "text_poke bytes count", NULL);

    pv_rec_aux a;
    bb_record_start(&w, be);
    bb_u64(&w, 4096); bb_u64(&w, 8192); bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_AUX, 0, 0);
    what = named("AUX", be);
    DECODED(what, pv_rec_aux_decode(&f, &r, &a, &err), err);
    EQ(what, a.aux_offset, 4096);
    EQ(what, a.aux_size, 8192);
    EQ(what, a.flags, 1);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_AUX, 0, PV_RECORD_HEADER_SIZE + 16);
    expect_error(named("AUX without flags", be), pv_rec_aux_decode(&f, &r, &a, &err), &err,
                 "flags at offset", NULL);

    pv_rec_itrace_start it;
    bb_record_start(&w, be);
    bb_u32(&w, 30); bb_u32(&w, 31);
    r = bb_record_finish(&w, PV_RECORD_ITRACE_START, 0, 0);
    what = named("ITRACE_START", be);
    DECODED(what, pv_rec_itrace_start_decode(&f, &r, &it, &err), err);
    EQ(what, it.pid, 30);
    EQ(what, it.tid, 31);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_ITRACE_START, 0, PV_RECORD_HEADER_SIZE + 4);
    expect_error(named("ITRACE_START without tid", be),
                 pv_rec_itrace_start_decode(&f, &r, &it, &err), &err, "tid at offset", NULL);

    pv_rec_aux_output_hw_id h;
    bb_record_start(&w, be);
    bb_u64(&w, 0x1234);
    r = bb_record_finish(&w, PV_RECORD_AUX_OUTPUT_HW_ID, 0, 0);
    what = named("AUX_OUTPUT_HW_ID", be);
    DECODED(what, pv_rec_aux_output_hw_id_decode(&f, &r, &h, &err), err);
    EQ(what, h.hw_id, 0x1234);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_AUX_OUTPUT_HW_ID, 0, PV_RECORD_HEADER_SIZE);
    expect_error(named("AUX_OUTPUT_HW_ID without a body", be),
                 pv_rec_aux_output_hw_id_decode(&f, &r, &h, &err), &err, "hw_id at offset", NULL);
}

/* ------------------------------------------------------------ perf stat */

static void test_stat(bool be)
{
    /* user records have no trailer, even in a file with sample_id_all */
    pv_file f = fake_file(&attr_trailer, be);
    byte_builder w;
    pv_error err;

    pv_rec_stat s;
    bb_record_start(&w, be);
    bb_u64(&w, 0x77); bb_u32(&w, 0xffffffff); bb_u32(&w, 5); bb_u64(&w, 1000); bb_u64(&w, 2000); bb_u64(&w, 1500);
    pv_record r = bb_record_finish(&w, PV_RECORD_STAT, 0, 0);
    const char *what = named("STAT", be);
    DECODED(what, pv_rec_stat_decode(&f, &r, &s, &err), err);
    EQ(what, s.id, 0x77);
    EQ(what, (int32_t)s.cpu, -1);
    EQ(what, s.thread, 5);
    EQ(what, s.val, 1000);
    EQ(what, s.ena, 2000);
    EQ(what, s.run, 1500);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_STAT, 0, PV_RECORD_HEADER_SIZE + 24);
    expect_error(named("STAT cut after val", be), pv_rec_stat_decode(&f, &r, &s, &err), &err,
                 "STAT record", "ena at offset");

    pv_rec_stat_round sr;
    bb_record_start(&w, be);
    bb_u64(&w, 1); bb_u64(&w, 555);
    r = bb_record_finish(&w, PV_RECORD_STAT_ROUND, 0, 0);
    what = named("STAT_ROUND", be);
    DECODED(what, pv_rec_stat_round_decode(&f, &r, &sr, &err), err);
    EQ(what, sr.type, 1);
    EQ(what, sr.time, 555);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_STAT_ROUND, 0, PV_RECORD_HEADER_SIZE + 8);
    expect_error(named("STAT_ROUND without its time", be),
                 pv_rec_stat_round_decode(&f, &r, &sr, &err), &err, "time at offset", NULL);

    pv_rec_stat_config sc;
    bb_record_start(&w, be);
    bb_u64(&w, 2); bb_u64(&w, 0); bb_u64(&w, 1); bb_u64(&w, 7); bb_u64(&w, 42);
    r = bb_record_finish(&w, PV_RECORD_STAT_CONFIG, 0, 0);
    what = named("STAT_CONFIG", be);
    DECODED(what, pv_rec_stat_config_decode(&f, &r, &sc, &err), err);
    EQ(what, sc.nr, 2);
    uint64_t tag, val;
    pv_rec_stat_config_at(&sc, 1, &tag, &val);
    EQ(what, tag, 7);
    EQ(what, val, 42);
    check(true, what, " ");
    w.bytes[PV_RECORD_HEADER_SIZE + (be ? 7 : 0)] = 5;
    expect_error(named("STAT_CONFIG nr larger than the record", be),
                 pv_rec_stat_config_decode(&f, &r, &sc, &err), &err, "stat_config count 5", NULL);
}

/* A file without events (a pipe cut before its HEADER_ATTR): no trailer. */
static void test_no_events(void)
{
    pv_file f = fake_file(NULL, false);
    byte_builder w;
    pv_error err;
    pv_rec_comm c;
    bb_record_start(&w, false);
    bb_u32(&w, 1); bb_u32(&w, 2); bb_padded_string(&w, "sh", 8);
    pv_record r = bb_record_finish(&w, PV_RECORD_COMM, 0, 0);
    const char *what = "COMM of a file without events: no trailer";
    DECODED(what, pv_rec_comm_decode(&f, &r, &c, &err), err);
    EQ(what, c.trailer.fields, 0);
    EQ(what, c.trailer.attr_index, -1);
    TEXT(what, c.comm, c.comm_len, "sh");
    check(true, what, " ");
}

int main(void)
{
    attr_plain.sample_type = PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_CPU |
                             PV_SAMPLE_PERIOD;
    attr_trailer = attr_plain;
    attr_trailer.flags = 1ull << PV_ATTR_SAMPLE_ID_ALL;
    attr_read = attr_plain;
    attr_read.read_format = PV_FORMAT_TOTAL_TIME_ENABLED | PV_FORMAT_TOTAL_TIME_RUNNING |
                            PV_FORMAT_ID;
    attr_group = attr_plain;
    attr_group.read_format = PV_FORMAT_GROUP | PV_FORMAT_TOTAL_TIME_ENABLED | PV_FORMAT_ID |
                             PV_FORMAT_LOST;
    for (int be = 0; be <= 1; be++) {
        test_mmap(be);
        test_mmap2_short(be);
        test_mmap2_long_never_short(be);
        test_tasks(be);
        test_losses(be);
        test_callchain_deferred(be);
        test_events(be);
        test_code_and_aux(be);
        test_stat(be);
    }
    test_no_events();
    return failures != 0;
}
