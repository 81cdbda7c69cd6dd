/*
 * Unit test of record_fields.c: records built by hand in byte buffers (both
 * byte orders), their JSON compared with what perf's layouts say, and
 * malformed records that must be errors naming the offset.
 *
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "byte_builder.h"
#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "decode/record_fields.h"
#include "unit_check.h"
#include "record_checks.h"

static sqlite3 *db;

/* ------------------------------------------------------------ fake files */

static pv_attr attr_plain, attr_trailer, attr_read, attr_group;

/* ------------------------------------------------------------ checks */

static bool json_valid(const char *text)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT json_valid(?)", -1, &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    bool ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
    sqlite3_finalize(st);
    return ok;
}

/* The record's JSON must equal want exactly (and be valid JSON). */
static void expect(const char *what, const pv_file *f, const pv_record *rec, const char *want)
{
    pv_strbuf out = {0};
    pv_error err = {0};
    int rc = pv_record_fields_json(f, rec, &out, &err);
    const char *got = pv_strbuf_text(&out);
    if (rc != 0)
        check(false, what, "error: %s", err.msg);
    else if (strcmp(got, want) != 0)
        check(false, what, "got %s, want %s", got, want);
    else if (!json_valid(got))
        check(false, what, "not valid JSON: %s", got);
    else
        check(true, what, " ");
    pv_strbuf_free(&out);
}

/* The record's JSON must be valid and contain every given fragment. */
static void expect_contains(const char *what, const pv_file *f, const pv_record *rec, ...)
{
    pv_strbuf out = {0};
    pv_error err = {0};
    int rc = pv_record_fields_json(f, rec, &out, &err);
    const char *got = pv_strbuf_text(&out);
    bool ok = rc == 0 && json_valid(got);
    const char *missing = NULL;
    va_list ap;
    va_start(ap, rec);
    for (const char *frag; ok && (frag = va_arg(ap, const char *));)
        if (!strstr(got, frag)) {
            ok = false;
            missing = frag;
        }
    va_end(ap);
    if (rc != 0)
        check(false, what, "error: %s", err.msg);
    else
        check(ok, what, "%s%s in %s", missing ? "missing " : "invalid JSON",
               missing ? missing : "", got);
    pv_strbuf_free(&out);
}

/* The record must be an error whose message names the offset (and has
 * fragment, when given). */
static void expect_json_error(const char *what, const pv_file *f, const pv_record *rec, const char *fragment)
{
    pv_strbuf out = {0};
    pv_error err = {0};
    int rc = pv_record_fields_json(f, rec, &out, &err);
    if (rc == 0)
        check(false, what, "no error; got %s", pv_strbuf_text(&out));
    else if (!strstr(err.msg, "offset 0x") || !strstr(err.msg, "fake.data"))
        check(false, what, "message lacks file or offset: %s", err.msg);
    else if (fragment && !strstr(err.msg, fragment))
        check(false, what, "message lacks \"%s\": %s", fragment, err.msg);
    else
        check(true, what, " ");
    pv_strbuf_free(&out);
}

/* ------------------------------------------------------------ kernel records */

static void test_kernel_records(void)
{
    pv_file f = fake_file(&attr_plain, false);
    pv_file ft = fake_file(&attr_trailer, false);
    byte_builder w;
    pv_record r;

    bb_record_start(&w, false);
    bb_u32(&w, 1234); bb_u32(&w, 1235);
    bb_u64(&w, 0xffffffff81000000ull); bb_u64(&w, 0x1209988); bb_u64(&w, 0xffffffff81000000ull);
    bb_padded_string(&w, "[kernel.kallsyms]_text", 24);
    r = bb_record_finish(&w, PV_RECORD_MMAP, 1, 0);
    expect("MMAP", &f, &r,
           "{\"pid\":1234,\"tid\":1235,\"start\":-2130706432,\"len\":18913672,"
           "\"pgoff\":-2130706432,\"filename\":\"[kernel.kallsyms]_text\"}");

    /* pid -1 as the kernel writes it for kernel maps */
    bb_record_start(&w, false);
    bb_u32(&w, 0xffffffff); bb_u32(&w, 0);
    bb_u64(&w, 0x400000); bb_u64(&w, 0x1000); bb_u64(&w, 0);
    bb_padded_string(&w, "/bin/true", 16);
    r = bb_record_finish(&w, PV_RECORD_MMAP, 0, 0);
    expect("MMAP pid -1", &f, &r,
           "{\"pid\":-1,\"tid\":0,\"start\":4194304,\"len\":4096,\"pgoff\":0,"
           "\"filename\":\"/bin/true\"}");

    bb_record_start(&w, false);
    bb_u64(&w, 7); bb_u64(&w, 42);
    r = bb_record_finish(&w, PV_RECORD_LOST, 0, 0);
    expect("LOST", &f, &r, "{\"id\":7,\"lost\":42}");

    /* COMM with a sample_id_all trailer {pid,tid} {time} {cpu,res} */
    bb_record_start(&w, false);
    bb_u32(&w, 10); bb_u32(&w, 11);
    bb_padded_string(&w, "wor\"k\xff", 8);
    bb_u32(&w, 10); bb_u32(&w, 11); bb_u64(&w, 123456789); bb_u32(&w, 3); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_COMM, PV_MISC_COMM_EXEC, 0);
    expect("COMM with trailer, quote and non-UTF-8 byte", &ft, &r,
           "{\"pid\":10,\"tid\":11,\"comm\":\"wor\\\"k\\u00ff\","
           "\"sample_id\":{\"pid\":10,\"tid\":11,\"time\":123456789,\"cpu\":3}}");

    bb_record_start(&w, false);
    bb_u32(&w, 5); bb_u32(&w, 1); bb_u32(&w, 6); bb_u32(&w, 1); bb_u64(&w, 99);
    r = bb_record_finish(&w, PV_RECORD_FORK, 0, 0);
    expect("FORK", &f, &r, "{\"pid\":5,\"ppid\":1,\"tid\":6,\"ptid\":1,\"time\":99}");
    r = bb_record_finish(&w, PV_RECORD_EXIT, 0, 0);
    expect("EXIT", &f, &r, "{\"pid\":5,\"ppid\":1,\"tid\":6,\"ptid\":1,\"time\":99}");

    bb_record_start(&w, false);
    bb_u64(&w, 1000); bb_u64(&w, 17); bb_u64(&w, 18);
    r = bb_record_finish(&w, PV_RECORD_THROTTLE, 0, 0);
    expect("THROTTLE", &f, &r, "{\"time\":1000,\"id\":17,\"stream_id\":18}");
    r = bb_record_finish(&w, PV_RECORD_UNTHROTTLE, 0, 0);
    expect("UNTHROTTLE", &f, &r, "{\"time\":1000,\"id\":17,\"stream_id\":18}");

    /* READ, not grouped: value, enabled, running, id */
    pv_file fr = fake_file(&attr_read, false);
    bb_record_start(&w, false);
    bb_u32(&w, 3); bb_u32(&w, 4); bb_u64(&w, 500); bb_u64(&w, 600); bb_u64(&w, 700); bb_u64(&w, 9);
    r = bb_record_finish(&w, PV_RECORD_READ, 0, 0);
    expect("READ (TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID)", &fr, &r,
           "{\"pid\":3,\"tid\":4,\"value\":500,\"time_enabled\":600,\"time_running\":700,\"id\":9}");

    /* READ, grouped: nr, enabled, nr x {value, id, lost} */
    pv_file fg = fake_file(&attr_group, false);
    bb_record_start(&w, false);
    bb_u32(&w, 3); bb_u32(&w, 4); bb_u64(&w, 2); bb_u64(&w, 600);
    bb_u64(&w, 1); bb_u64(&w, 21); bb_u64(&w, 0);
    bb_u64(&w, 2); bb_u64(&w, 22); bb_u64(&w, 5);
    r = bb_record_finish(&w, PV_RECORD_READ, 0, 0);
    expect("READ group (GROUP|TOTAL_TIME_ENABLED|ID|LOST)", &fg, &r,
           "{\"pid\":3,\"tid\":4,\"nr\":2,\"time_enabled\":600,\"values\":["
           "{\"value\":1,\"id\":21,\"lost\":0},{\"value\":2,\"id\":22,\"lost\":5}]}");

    /* SAMPLE of an IP|TID|TIME|CPU|PERIOD event */
    bb_record_start(&w, false);
    bb_u64(&w, 0xffffffff81234567ull); bb_u32(&w, 7); bb_u32(&w, 8); bb_u64(&w, 5555);
    bb_u32(&w, 2); bb_u32(&w, 0); bb_u64(&w, 100000);
    r = bb_record_finish(&w, PV_RECORD_SAMPLE, 1, 0);
    expect("SAMPLE summary", &f, &r,
           "{\"sample_type\":\"IP|TID|TIME|CPU|PERIOD\",\"ip\":-2128394905,\"pid\":7,"
           "\"tid\":8,\"time\":5555,\"cpu\":2,\"period\":100000}");

    /* MMAP2, device/inode form */
    bb_record_start(&w, false);
    bb_u32(&w, 20); bb_u32(&w, 21); bb_u64(&w, 0x7f0000000000ull); bb_u64(&w, 0x2000); bb_u64(&w, 0x1000);
    bb_u32(&w, 8); bb_u32(&w, 1); bb_u64(&w, 123456); bb_u64(&w, 7);
    bb_u32(&w, 5); bb_u32(&w, 2); bb_padded_string(&w, "/lib/libc.so.6", 16);
    r = bb_record_finish(&w, PV_RECORD_MMAP2, 2, 0);
    expect("MMAP2 maj/min/ino", &f, &r,
           "{\"pid\":20,\"tid\":21,\"start\":139637976727552,\"len\":8192,\"pgoff\":4096,"
           "\"maj\":8,\"min\":1,\"ino\":123456,\"ino_generation\":7,\"prot\":5,\"flags\":2,"
           "\"filename\":\"/lib/libc.so.6\"}");

    /* MMAP2, build-id form (misc bit 14): size 20 */
    bb_record_start(&w, false);
    bb_u32(&w, 20); bb_u32(&w, 21); bb_u64(&w, 0x1000); bb_u64(&w, 0x2000); bb_u64(&w, 0);
    bb_u8(&w, 20); bb_u8(&w, 0); bb_u16(&w, 0);
    for (int i = 0; i < 20; i++) bb_u8(&w, 0xa0 + i);
    bb_u32(&w, 5); bb_u32(&w, 2); bb_padded_string(&w, "/x", 8);
    r = bb_record_finish(&w, PV_RECORD_MMAP2, 2 | PV_MISC_MMAP_BUILD_ID, 0);
    expect("MMAP2 build_id", &f, &r,
           "{\"pid\":20,\"tid\":21,\"start\":4096,\"len\":8192,\"pgoff\":0,"
           "\"build_id\":\"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3\",\"prot\":5,\"flags\":2,"
           "\"filename\":\"/x\"}");

    /* a shorter build id (size 16) */
    w.bytes[8 + 32] = 16;
    expect("MMAP2 build_id of 16 bytes", &f, &r,
           "{\"pid\":20,\"tid\":21,\"start\":4096,\"len\":8192,\"pgoff\":0,"
           "\"build_id\":\"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\",\"prot\":5,\"flags\":2,"
           "\"filename\":\"/x\"}");
    w.bytes[8 + 32] = 30;
    expect_json_error("MMAP2 build_id size 30 is an error", &f, &r, "build-id size 30");

    bb_record_start(&w, false);
    bb_u64(&w, 4096); bb_u64(&w, 8192); bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_AUX, 0, 0);
    expect("AUX", &f, &r, "{\"aux_offset\":4096,\"aux_size\":8192,\"flags\":1}");

    bb_record_start(&w, false);
    bb_u32(&w, 30); bb_u32(&w, 31);
    r = bb_record_finish(&w, PV_RECORD_ITRACE_START, 0, 0);
    expect("ITRACE_START", &f, &r, "{\"pid\":30,\"tid\":31}");

    bb_record_start(&w, false);
    bb_u64(&w, 12);
    r = bb_record_finish(&w, PV_RECORD_LOST_SAMPLES, 0, 0);
    expect("LOST_SAMPLES", &f, &r, "{\"lost\":12}");

    bb_record_start(&w, false);
    bb_u64(&w, 4097); bb_u64(&w, 3); bb_u64(&w, PV_CONTEXT_USER); bb_u64(&w, 4096);
    bb_u64(&w, 8192);
    r = bb_record_finish(&w, PV_RECORD_CALLCHAIN_DEFERRED, 2, 0);
    expect("CALLCHAIN_DEFERRED (the USER marker left out of ips)", &f, &r,
           "{\"cookie\":4097,\"nr\":3,\"ips\":[4096,8192]}");

    bb_record_start(&w, false);
    r = bb_record_finish(&w, PV_RECORD_SWITCH, PV_MISC_SWITCH_OUT | (1u << 14), 0);
    expect("SWITCH out preempt", &f, &r, "{\"out\":1,\"preempt\":1}");
    r = bb_record_finish(&w, PV_RECORD_SWITCH, 0, 0);
    expect("SWITCH in", &f, &r, "{\"out\":0,\"preempt\":0}");

    bb_record_start(&w, false);
    bb_u32(&w, 0xffffffff); bb_u32(&w, 44);
    bb_u32(&w, 1); bb_u32(&w, 1); bb_u64(&w, 77); bb_u32(&w, 0); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_SWITCH_CPU_WIDE, PV_MISC_SWITCH_OUT, 0);
    expect("SWITCH_CPU_WIDE with trailer", &ft, &r,
           "{\"out\":1,\"preempt\":0,\"next_prev_pid\":-1,\"next_prev_tid\":44,"
           "\"sample_id\":{\"pid\":1,\"tid\":1,\"time\":77,\"cpu\":0}}");

    bb_record_start(&w, false);
    bb_u32(&w, 9); bb_u32(&w, 9); bb_u64(&w, 2);
    bb_u64(&w, 4); bb_u64(&w, 0xeffffff9); bb_u64(&w, 4); bb_u64(&w, 0xeffffffe);
    r = bb_record_finish(&w, PV_RECORD_NAMESPACES, 0, 0);
    expect("NAMESPACES", &f, &r,
           "{\"pid\":9,\"tid\":9,\"nr_namespaces\":2,\"namespaces\":[{\"dev\":4,\"ino\":4026531833},"
           "{\"dev\":4,\"ino\":4026531838}]}");

    bb_record_start(&w, false);
    bb_u64(&w, 0xffffffffc0000000ull); bb_u32(&w, 256); bb_u16(&w, 1); bb_u16(&w, 0);
    bb_padded_string(&w, "bpf_prog_abc", 16);
    r = bb_record_finish(&w, PV_RECORD_KSYMBOL, 0, 0);
    expect("KSYMBOL", &f, &r,
           "{\"addr\":-1073741824,\"len\":256,\"ksym_type\":1,\"flags\":0,\"name\":\"bpf_prog_abc\"}");

    bb_record_start(&w, false);
    bb_u16(&w, 1); bb_u16(&w, 0); bb_u32(&w, 42);
    bb_bytes(&w, "\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
    r = bb_record_finish(&w, PV_RECORD_BPF_EVENT, 0, 0);
    expect("BPF_EVENT", &f, &r, "{\"type\":1,\"flags\":0,\"id\":42,\"tag\":\"0123456789abcdef\"}");

    bb_record_start(&w, false);
    bb_u64(&w, 1); bb_padded_string(&w, "/sys/fs/cgroup", 16);
    r = bb_record_finish(&w, PV_RECORD_CGROUP, 0, 0);
    expect("CGROUP", &f, &r, "{\"id\":1,\"path\":\"/sys/fs/cgroup\"}");

    bb_record_start(&w, false);
    bb_u64(&w, 0xffffffff81000010ull); bb_u16(&w, 2); bb_u16(&w, 3);
    bb_bytes(&w, "\x0f\x1f\xe9\x00\x01\x00\x00\x00", 8);
    r = bb_record_finish(&w, PV_RECORD_TEXT_POKE, 0, 0);
    expect("TEXT_POKE", &f, &r,
           "{\"addr\":-2130706416,\"old_len\":2,\"new_len\":3,\"old_bytes\":\"0f1f\","
           "\"new_bytes\":\"e90001\"}");

    bb_record_start(&w, false);
    bb_u64(&w, 3);
    r = bb_record_finish(&w, PV_RECORD_AUX_OUTPUT_HW_ID, 0, 0);
    expect("AUX_OUTPUT_HW_ID", &f, &r, "{\"hw_id\":3}");

    /* unknown kernel and user types */
    bb_record_start(&w, false);
    bb_u64(&w, 1);
    r = bb_record_finish(&w, 30, 0, 0);
    expect("unknown type 30", &f, &r, "{}");
    r = bb_record_finish(&w, 4000, 0, 0);
    expect("unknown type 4000", &f, &r, "{}");
}

/* ------------------------------------------------------------ user records */

static void test_user_records(void)
{
    pv_file f = fake_file(&attr_trailer, false);   /* user records never have a trailer */
    byte_builder w;
    pv_record r;

    /* HEADER_ATTR: a 72-byte attr (VER1), then two ids */
    bb_record_start(&w, false);
    bb_u32(&w, 0); bb_u32(&w, 72); bb_u64(&w, 0); bb_u64(&w, 4000); bb_u64(&w, 7); bb_u64(&w, 0);
    bb_u64(&w, 1u << 18); bb_u32(&w, 0); bb_u32(&w, 0); bb_u64(&w, 0); bb_u64(&w, 0);
    bb_u64(&w, 5); bb_u64(&w, 6);
    r = bb_record_finish(&w, PV_RECORD_HEADER_ATTR, 0, 0);
    expect_contains("HEADER_ATTR", &f, &r, "{\"attr\":{\"type\":0,\"size\":72,",
                    "\"sample_period\":4000", "\"sample_type\":7", "\"sample_id_all\":1",
                    "},\"ids\":[5,6]}", (const char *)NULL);

    bb_record_start(&w, false);
    bb_u64(&w, 33); bb_padded_string(&w, "sched:sched_switch", 64);
    r = bb_record_finish(&w, PV_RECORD_HEADER_EVENT_TYPE, 0, 0);
    expect("HEADER_EVENT_TYPE", &f, &r, "{\"event_id\":33,\"name\":\"sched:sched_switch\"}");

    bb_record_start(&w, false);
    bb_u32(&w, 4096); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_HEADER_TRACING_DATA, 0, 0);
    expect("HEADER_TRACING_DATA", &f, &r, "{\"size\":4096}");

    bb_record_start(&w, false);
    bb_u32(&w, 0xffffffff);
    for (int i = 0; i < 20; i++) bb_u8(&w, i);
    bb_u8(&w, 8); bb_u8(&w, 0); bb_u16(&w, 0);
    bb_padded_string(&w, "/usr/lib/x.so", 16);
    r = bb_record_finish(&w, PV_RECORD_HEADER_BUILD_ID, 2, 0);
    expect("HEADER_BUILD_ID (20 bytes)", &f, &r,
           "{\"pid\":-1,\"build_id\":\"000102030405060708090a0b0c0d0e0f10111213\","
           "\"filename\":\"/usr/lib/x.so\"}");
    r = bb_record_finish(&w, PV_RECORD_HEADER_BUILD_ID, 2 | PV_MISC_BUILD_ID_SIZE, 0);
    expect("HEADER_BUILD_ID (size byte 8)", &f, &r,
           "{\"pid\":-1,\"build_id\":\"0001020304050607\",\"filename\":\"/usr/lib/x.so\"}");

    bb_record_start(&w, false);
    r = bb_record_finish(&w, PV_RECORD_FINISHED_ROUND, 0, 0);
    expect("FINISHED_ROUND", &f, &r, "{}");
    r = bb_record_finish(&w, PV_RECORD_FINISHED_INIT, 0, 0);
    expect("FINISHED_INIT", &f, &r, "{}");

    /* ID_INDEX with 4-u64 entries only */
    bb_record_start(&w, false);
    bb_u64(&w, 2);
    bb_u64(&w, 171); bb_u64(&w, 0); bb_u64(&w, 0); bb_u64(&w, 4865);
    bb_u64(&w, 172); bb_u64(&w, 1); bb_u64(&w, (uint64_t)-1); bb_u64(&w, (uint64_t)-1);
    r = bb_record_finish(&w, PV_RECORD_ID_INDEX, 0, 0);
    expect("ID_INDEX", &f, &r,
           "{\"nr\":2,\"entries\":[{\"id\":171,\"idx\":0,\"cpu\":0,\"tid\":4865},"
           "{\"id\":172,\"idx\":1,\"cpu\":-1,\"tid\":-1}]}");

    /* ID_INDEX with the second array {machine_pid, vcpu} after the first */
    bb_record_start(&w, false);
    bb_u64(&w, 2);
    bb_u64(&w, 171); bb_u64(&w, 0); bb_u64(&w, 0); bb_u64(&w, 4865);
    bb_u64(&w, 172); bb_u64(&w, 1); bb_u64(&w, 1); bb_u64(&w, 4866);
    bb_u64(&w, 100); bb_u64(&w, 0);
    bb_u64(&w, 100); bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_ID_INDEX, 0, 0);
    expect("ID_INDEX with machine_pid/vcpu", &f, &r,
           "{\"nr\":2,\"entries\":[{\"id\":171,\"idx\":0,\"cpu\":0,\"tid\":4865,\"machine_pid\":100,"
           "\"vcpu\":0},{\"id\":172,\"idx\":1,\"cpu\":1,\"tid\":4866,\"machine_pid\":100,\"vcpu\":1}]}");

    bb_record_start(&w, false);
    bb_u32(&w, 1); bb_u32(&w, 0); bb_u64(&w, 0x8008); bb_u64(&w, 1); bb_u64(&w, 0xffffffffffffffffull);
    r = bb_record_finish(&w, PV_RECORD_AUXTRACE_INFO, 0, 0);
    expect("AUXTRACE_INFO", &f, &r, "{\"type\":1,\"priv\":[32776,1,-1]}");

    bb_record_start(&w, false);
    bb_u64(&w, 65536); bb_u64(&w, 0); bb_u64(&w, 0x1234); bb_u32(&w, 0); bb_u32(&w, 77); bb_u32(&w, 0xffffffff); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_AUXTRACE, 0, 0);
    expect("AUXTRACE", &f, &r,
           "{\"size\":65536,\"offset\":0,\"reference\":4660,\"idx\":0,\"tid\":77,\"cpu\":-1}");

    /* AUXTRACE_ERROR, fmt 0: msg where fmt 1 has time */
    bb_record_start(&w, false);
    bb_u32(&w, 1); bb_u32(&w, 6); bb_u32(&w, 2); bb_u32(&w, 100); bb_u32(&w, 101); bb_u32(&w, 0);
    bb_u64(&w, 0x4005d0); bb_padded_string(&w, "Overflow packet", 16);
    r = bb_record_finish(&w, PV_RECORD_AUXTRACE_ERROR, 0, 0);
    expect("AUXTRACE_ERROR fmt 0", &f, &r,
           "{\"type\":1,\"code\":6,\"cpu\":2,\"pid\":100,\"tid\":101,\"fmt\":0,\"ip\":4195792,"
           "\"msg\":\"Overflow packet\"}");

    bb_record_start(&w, false);
    bb_u32(&w, 1); bb_u32(&w, 6); bb_u32(&w, 2); bb_u32(&w, 100); bb_u32(&w, 101); bb_u32(&w, 1);
    bb_u64(&w, 0x4005d0); bb_u64(&w, 987654321); bb_padded_string(&w, "Lost trace data", 16);
    r = bb_record_finish(&w, PV_RECORD_AUXTRACE_ERROR, 0, 0);
    expect("AUXTRACE_ERROR fmt 1", &f, &r,
           "{\"type\":1,\"code\":6,\"cpu\":2,\"pid\":100,\"tid\":101,\"fmt\":1,\"ip\":4195792,"
           "\"time\":987654321,\"msg\":\"Lost trace data\"}");

    bb_record_start(&w, false);
    bb_u32(&w, 1); bb_u32(&w, 6); bb_u32(&w, 2); bb_u32(&w, 100); bb_u32(&w, 101); bb_u32(&w, 2);
    bb_u64(&w, 0x4005d0); bb_u64(&w, 987654321); bb_padded_string(&w, "Lost trace data", 64);
    bb_u32(&w, 555); bb_u32(&w, 3);
    r = bb_record_finish(&w, PV_RECORD_AUXTRACE_ERROR, 0, 0);
    expect("AUXTRACE_ERROR fmt 2", &f, &r,
           "{\"type\":1,\"code\":6,\"cpu\":2,\"pid\":100,\"tid\":101,\"fmt\":2,\"ip\":4195792,"
           "\"time\":987654321,\"msg\":\"Lost trace data\",\"machine_pid\":555,\"vcpu\":3}");

    bb_record_start(&w, false);
    bb_u64(&w, 2); bb_u64(&w, 4865); bb_padded_string(&w, "workload", 16); bb_u64(&w, (uint64_t)-1); bb_padded_string(&w, "", 16);
    r = bb_record_finish(&w, PV_RECORD_THREAD_MAP, 0, 0);
    expect("THREAD_MAP", &f, &r,
           "{\"nr\":2,\"threads\":[{\"pid\":4865,\"comm\":\"workload\"},{\"pid\":-1,\"comm\":\"\"}]}");

    /* CPU_MAP, type 0: a list of u16 cpus, (u16)-1 = any */
    bb_record_start(&w, false);
    bb_u16(&w, 0); bb_u16(&w, 3); bb_u16(&w, 0); bb_u16(&w, 2); bb_u16(&w, 0xffff); bb_u16(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect("CPU_MAP cpus list", &f, &r, "{\"cpus\":[0,2,-1]}");

    /* type 1 with long_size 4: u32 words from offset 6 */
    bb_record_start(&w, false);
    bb_u16(&w, 1); bb_u16(&w, 2); bb_u16(&w, 4); bb_u32(&w, 0x80000005); bb_u32(&w, 0x1); bb_u16(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect("CPU_MAP mask (long_size 4)", &f, &r, "{\"cpus\":[0,2,31,32]}");

    /* type 1 with long_size 8: 4 pad bytes, u64 words from offset 10 */
    bb_record_start(&w, false);
    bb_u16(&w, 1); bb_u16(&w, 1); bb_u16(&w, 8); bb_u32(&w, 0); bb_u64(&w, 0x8000000000000003ull);
    bb_u16(&w, 0); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect("CPU_MAP mask (long_size 8)", &f, &r, "{\"cpus\":[0,1,63]}");

    /* type 2: a range */
    bb_record_start(&w, false);
    bb_u16(&w, 2); bb_u8(&w, 0); bb_u8(&w, 0); bb_u16(&w, 4); bb_u16(&w, 7);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect("CPU_MAP range", &f, &r, "{\"cpus\":[4,5,6,7]}");
    w.bytes[10] = 1;
    expect("CPU_MAP range with any_cpu", &f, &r, "{\"cpus\":[-1,4,5,6,7]}");

    bb_record_start(&w, false);
    bb_u64(&w, 3); bb_u64(&w, 0); bb_u64(&w, 2); bb_u64(&w, 1); bb_u64(&w, 1000); bb_u64(&w, 9); bb_u64(&w, 4);
    r = bb_record_finish(&w, PV_RECORD_STAT_CONFIG, 0, 0);
    expect("STAT_CONFIG", &f, &r, "{\"aggr_mode\":2,\"interval\":1000,\"tag_9\":4}");

    bb_record_start(&w, false);
    bb_u64(&w, 55); bb_u32(&w, 1); bb_u32(&w, 0); bb_u64(&w, 1000); bb_u64(&w, 2000); bb_u64(&w, 1500);
    r = bb_record_finish(&w, PV_RECORD_STAT, 0, 0);
    expect("STAT", &f, &r,
           "{\"id\":55,\"cpu\":1,\"thread\":0,\"val\":1000,\"ena\":2000,\"run\":1500}");

    bb_record_start(&w, false);
    bb_u64(&w, 1); bb_u64(&w, 123);
    r = bb_record_finish(&w, PV_RECORD_STAT_ROUND, 0, 0);
    expect("STAT_ROUND", &f, &r, "{\"type\":1,\"time\":123}");

    bb_record_start(&w, false);
    bb_u64(&w, 0); bb_u64(&w, 55); bb_padded_string(&w, "msec", 8);
    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    expect("EVENT_UPDATE unit", &f, &r, "{\"type\":0,\"id\":55,\"unit\":\"msec\"}");

    bb_record_start(&w, false);
    bb_u64(&w, 1); bb_u64(&w, 55); bb_u64(&w, 0x3eb0c6f7a0b5ed8dull);   /* 1e-06 */
    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    expect("EVENT_UPDATE scale", &f, &r, "{\"type\":1,\"id\":55,\"scale\":1e-06}");
    w.n -= 8;
    bb_u64(&w, 0x3fb999999999999aull);   /* 0.1 */
    expect("EVENT_UPDATE scale 0.1", &f, &r, "{\"type\":1,\"id\":55,\"scale\":0.1}");
    w.n -= 8;
    bb_u64(&w, 0x7ff8000000000000ull);   /* NaN */
    expect("EVENT_UPDATE scale NaN is null", &f, &r, "{\"type\":1,\"id\":55,\"scale\":null}");

    bb_record_start(&w, false);
    bb_u64(&w, 2); bb_u64(&w, 55); bb_padded_string(&w, "cycles:u", 16);
    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    expect("EVENT_UPDATE name", &f, &r, "{\"type\":2,\"id\":55,\"name\":\"cycles:u\"}");

    bb_record_start(&w, false);
    bb_u64(&w, 3); bb_u64(&w, 55); bb_u16(&w, 0); bb_u16(&w, 2); bb_u16(&w, 0); bb_u16(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    expect("EVENT_UPDATE cpus", &f, &r, "{\"type\":3,\"id\":55,\"cpus\":[0,1]}");

    bb_record_start(&w, false);
    bb_u64(&w, 31); bb_u64(&w, 1000); bb_u64(&w, 5);
    r = bb_record_finish(&w, PV_RECORD_TIME_CONV, 0, 0);
    expect("TIME_CONV (3 fields)", &f, &r, "{\"time_shift\":31,\"time_mult\":1000,\"time_zero\":5}");
    bb_u64(&w, 77); bb_u64(&w, 0xffffffffffffffffull); bb_u8(&w, 1); bb_u8(&w, 1); bb_padded_string(&w, "", 6);
    r = bb_record_finish(&w, PV_RECORD_TIME_CONV, 0, 0);
    expect("TIME_CONV (extended)", &f, &r,
           "{\"time_shift\":31,\"time_mult\":1000,\"time_zero\":5,\"time_cycles\":77,"
           "\"time_mask\":-1,\"cap_user_time_zero\":1,\"cap_user_time_short\":1}");

    bb_record_start(&w, false);
    bb_u64(&w, 7); bb_u64(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_HEADER_FEATURE, 0, 0);
    expect("HEADER_FEATURE", &f, &r, "{\"feat_id\":7}");

    bb_record_start(&w, false);
    bb_padded_string(&w, "\x28\xb5\x2f\xfd", 24);
    r = bb_record_finish(&w, PV_RECORD_COMPRESSED, 0, 0);
    expect("COMPRESSED", &f, &r, "{\"data_size\":24}");

    /* perf 6.17's BPF_METADATA, perf 7.0's SCHEDSTAT_* (event.h) */
    bb_record_start(&w, false);
    bb_padded_string(&w, "prog", 512); bb_u64(&w, 1);
    bb_padded_string(&w, "bpf_metadata_k", 64); bb_padded_string(&w, "v\"1", 256);
    r = bb_record_finish(&w, PV_RECORD_BPF_METADATA, 0, 0);
    expect("BPF_METADATA", &f, &r,
           "{\"prog_name\":\"prog\",\"entries\":[{\"key\":\"bpf_metadata_k\",\"value\":\"v\\\"1\"}]}");
    bb_record_start(&w, false);
    bb_u64(&w, 99); bb_u32(&w, 2); bb_u16(&w, 15); bb_u16(&w, 0);
    for (int i = 0; i < 6; i++)
        bb_u32(&w, (uint64_t)i);
    bb_u64(&w, 1ull << 40); bb_u64(&w, 7); bb_u64(&w, 8);
    r = bb_record_finish(&w, PV_RECORD_SCHEDSTAT_CPU, 0, 0);
    expect("SCHEDSTAT_CPU version 15", &f, &r,
           "{\"timestamp\":99,\"cpu\":2,\"version\":15,\"yld_count\":0,\"array_exp\":1,"
           "\"sched_count\":2,\"sched_goidle\":3,\"ttwu_count\":4,\"ttwu_local\":5,"
           "\"rq_cpu_time\":1099511627776,\"run_delay\":7,\"pcount\":8}");
    bb_record_start(&w, false);
    bb_u64(&w, 99); bb_u32(&w, 2); bb_u16(&w, 99); bb_u16(&w, 4); bb_u32(&w, 0xabcdef01);
    r = bb_record_finish(&w, PV_RECORD_SCHEDSTAT_DOMAIN, 0, 0);
    expect("SCHEDSTAT_DOMAIN of a version without a known layout", &f, &r,
           "{\"timestamp\":99,\"cpu\":2,\"version\":99,\"domain\":4,"
           "\"counters_unknown_layout\":\"01efcdab\"}");
}

/* ------------------------------------------------------------ big-endian */

static void test_big_endian(void)
{
    pv_file f = fake_file(&attr_trailer, true);
    byte_builder w;
    pv_record r;

    bb_record_start(&w, true);
    bb_u32(&w, 1234); bb_u32(&w, 1235);
    bb_u64(&w, 0xffffffff81000000ull); bb_u64(&w, 0x1209988); bb_u64(&w, 0);
    bb_padded_string(&w, "vmlinux", 8);
    bb_u32(&w, 1234); bb_u32(&w, 1235); bb_u64(&w, 42); bb_u32(&w, 3); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_MMAP, 1, 0);
    expect("big-endian MMAP with trailer", &f, &r,
           "{\"pid\":1234,\"tid\":1235,\"start\":-2130706432,\"len\":18913672,\"pgoff\":0,"
           "\"filename\":\"vmlinux\",\"sample_id\":{\"pid\":1234,\"tid\":1235,\"time\":42,\"cpu\":3}}");

    bb_record_start(&w, true);
    bb_u32(&w, 9); bb_u32(&w, 9); bb_u64(&w, 1); bb_u64(&w, 4); bb_u64(&w, 0xeffffff9);
    bb_u32(&w, 9); bb_u32(&w, 9); bb_u64(&w, 43); bb_u32(&w, 1); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_NAMESPACES, 0, 0);
    expect("big-endian NAMESPACES", &f, &r,
           "{\"pid\":9,\"tid\":9,\"nr_namespaces\":1,\"namespaces\":[{\"dev\":4,\"ino\":4026531833}],"
           "\"sample_id\":{\"pid\":9,\"tid\":9,\"time\":43,\"cpu\":1}}");

    bb_record_start(&w, true);
    bb_u16(&w, 1); bb_u16(&w, 2); bb_u16(&w, 4); bb_u32(&w, 0x80000005); bb_u32(&w, 0x1); bb_u16(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect("big-endian CPU_MAP mask (long_size 4)", &f, &r, "{\"cpus\":[0,2,31,32]}");

    bb_record_start(&w, true);
    bb_u64(&w, 1); bb_u64(&w, 171); bb_u64(&w, 0); bb_u64(&w, 2); bb_u64(&w, 4865);
    r = bb_record_finish(&w, PV_RECORD_ID_INDEX, 0, 0);
    expect("big-endian ID_INDEX", &f, &r,
           "{\"nr\":1,\"entries\":[{\"id\":171,\"idx\":0,\"cpu\":2,\"tid\":4865}]}");
}

/* ------------------------------------------------------------ malformed */

static void test_malformed(void)
{
    pv_file f = fake_file(&attr_plain, false);
    pv_file ft = fake_file(&attr_trailer, false);
    byte_builder w;
    pv_record r;

    bb_record_start(&w, false);
    bb_u32(&w, 9); bb_u32(&w, 9); bb_u64(&w, 1000000); bb_u64(&w, 4); bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_NAMESPACES, 0, 0);
    expect_json_error("NAMESPACES nr larger than the record", &f, &r, "NAMESPACES record at offset 0x1a38");

    bb_record_start(&w, false);
    bb_u32(&w, 9); bb_u32(&w, 9); bb_u64(&w, 0xffffffffffffffffull); bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_NAMESPACES, 0, 0);
    expect_json_error("NAMESPACES with nr 2^64-1 (no overflow)", &f, &r,
                 "namespaces count 18446744073709551615 (of 16 bytes each)");

    bb_record_start(&w, false);
    bb_u64(&w, 3); bb_u64(&w, 171); bb_u64(&w, 0); bb_u64(&w, 0); bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_ID_INDEX, 0, 0);
    expect_json_error("ID_INDEX nr larger than the record", &f, &r, "ID_INDEX record");

    bb_record_start(&w, false);
    bb_u64(&w, 0x4000000000000000ull);
    r = bb_record_finish(&w, PV_RECORD_THREAD_MAP, 0, 0);
    expect_json_error("THREAD_MAP nr larger than the record", &f, &r, "thread_map count");

    bb_record_start(&w, false);
    bb_u64(&w, 0x2000000000000000ull); bb_u64(&w, 0); bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_STAT_CONFIG, 0, 0);
    expect_json_error("STAT_CONFIG nr larger than the record", &f, &r, "stat_config count");

    bb_record_start(&w, false);
    bb_u16(&w, 0); bb_u16(&w, 100); bb_u16(&w, 1); bb_u16(&w, 2);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect_json_error("CPU_MAP nr larger than the record", &f, &r, "cpu map count 100");

    bb_record_start(&w, false);
    bb_u16(&w, 1); bb_u16(&w, 1); bb_u16(&w, 3); bb_u16(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect_json_error("CPU_MAP mask long_size 3", &f, &r, "long_size 3");

    bb_record_start(&w, false);
    bb_u16(&w, 2); bb_u8(&w, 0); bb_u8(&w, 0); bb_u16(&w, 7); bb_u16(&w, 4);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect_json_error("CPU_MAP range ending before its start", &f, &r, "cpu range 7..4");

    bb_record_start(&w, false);
    bb_u16(&w, 9); bb_u16(&w, 0); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_CPU_MAP, 0, 0);
    expect_json_error("CPU_MAP unknown encoding", &f, &r, "cpu map type 9");

    bb_record_start(&w, false);
    bb_u64(&w, 0); bb_u16(&w, 100); bb_u16(&w, 100); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_TEXT_POKE, 0, 0);
    expect_json_error("TEXT_POKE lengths larger than the record", &f, &r, "text_poke bytes");

    /* a MMAP of 16 bytes: pid/tid then nothing */
    bb_record_start(&w, false);
    bb_u32(&w, 1); bb_u32(&w, 2);
    r = bb_record_finish(&w, PV_RECORD_MMAP, 0, 0);
    expect_json_error("MMAP too small", &f, &r, "start at offset 0x1a48");

    bb_record_start(&w, false);
    bb_u64(&w, 5);
    r = bb_record_finish(&w, PV_RECORD_LOST, 0, 0);
    expect_json_error("LOST too small", &f, &r, "lost at offset");

    /* the trailer (24 bytes) leaves 8 bytes for a COMM's pid/tid and comm */
    bb_record_start(&w, false);
    bb_u32(&w, 1); bb_u32(&w, 2); bb_u32(&w, 1); bb_u32(&w, 2); bb_u64(&w, 3); bb_u32(&w, 4); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_COMM, 0, 0);
    expect("COMM with an empty comm before the trailer", &ft, &r,
           "{\"pid\":1,\"tid\":2,\"comm\":\"\",\"sample_id\":{\"pid\":1,\"tid\":2,\"time\":3,\"cpu\":4}}");
    bb_record_start(&w, false);
    bb_u64(&w, 1); bb_u64(&w, 2);
    r = bb_record_finish(&w, PV_RECORD_COMM, 0, 0);
    expect_json_error("COMM shorter than its trailer", &ft, &r, "offset 0x1a38");

    /* READ group whose nr needs more than the body */
    pv_file fg = fake_file(&attr_group, false);
    bb_record_start(&w, false);
    bb_u32(&w, 3); bb_u32(&w, 4); bb_u64(&w, 1000); bb_u64(&w, 600); bb_u64(&w, 1); bb_u64(&w, 2); bb_u64(&w, 3);
    r = bb_record_finish(&w, PV_RECORD_READ, 0, 0);
    expect_json_error("READ group nr larger than the record", &fg, &r, "read group count 1000");

    bb_record_start(&w, false);
    bb_u32(&w, 0); bb_u32(&w, 200); bb_u64(&w, 0); bb_u64(&w, 0); bb_u64(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_HEADER_ATTR, 0, 0);
    expect_json_error("HEADER_ATTR with attr.size larger than the record", &f, &r, "attr.size 200");

    bb_record_start(&w, false);
    bb_u32(&w, 1); for (int i = 0; i < 20; i++) bb_u8(&w, i);
    bb_u8(&w, 21); bb_u8(&w, 0); bb_u16(&w, 0); bb_padded_string(&w, "/x", 8);
    r = bb_record_finish(&w, PV_RECORD_HEADER_BUILD_ID, PV_MISC_BUILD_ID_SIZE, 0);
    expect_json_error("HEADER_BUILD_ID size byte 21", &f, &r, "build-id size 21");

    bb_record_start(&w, false);
    bb_u64(&w, 1); bb_u64(&w, 2);
    r = bb_record_finish(&w, PV_RECORD_AUXTRACE, 0, 0);
    expect_json_error("AUXTRACE too small", &f, &r, "reference at offset");

    bb_record_start(&w, false);
    bb_u64(&w, 1); bb_u64(&w, 5);
    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    expect_json_error("EVENT_UPDATE scale missing", &f, &r, "scale at offset");

    /* a SAMPLE shorter than its fixed fields */
    bb_record_start(&w, false);
    bb_u64(&w, 1);
    r = bb_record_finish(&w, PV_RECORD_SAMPLE, 0, 0);
    expect_json_error("SAMPLE too small", &f, &r, "offset 0x1a38");
}

int main(void)
{
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        printf("not ok - sqlite3_open\n");
        return 1;
    }
    attr_plain.sample_type = PV_SAMPLE_IP | PV_SAMPLE_TID | PV_SAMPLE_TIME | PV_SAMPLE_CPU |
                             PV_SAMPLE_PERIOD;
    attr_trailer = attr_plain;
    attr_trailer.flags = 1ull << PV_ATTR_SAMPLE_ID_ALL;
    attr_read = attr_plain;
    attr_read.read_format = PV_FORMAT_TOTAL_TIME_ENABLED | PV_FORMAT_TOTAL_TIME_RUNNING | PV_FORMAT_ID;
    attr_group = attr_plain;
    attr_group.read_format = PV_FORMAT_GROUP | PV_FORMAT_TOTAL_TIME_ENABLED | PV_FORMAT_ID |
                             PV_FORMAT_LOST;

    test_kernel_records();
    test_user_records();
    test_big_endian();
    test_malformed();
    sqlite3_close(db);
    return 0;
}
