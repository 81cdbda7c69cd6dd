/*
 * Unit tests of src/symbols/jitdump.c: a jitdump built byte by byte from
 * perf's jitdump-specification.txt, in both byte orders (the magic read
 * back swapped says which): a load after unwinding info (mapped after the
 * code, 8-aligned, as perf inject maps it), its debug entries, a second
 * load, a move of the first (its name and lines kept), CLOSE and an
 * unknown record skipped; then the same file cut inside a record, a bad
 * magic, unknown flags, and perf's rule for the names of jitdumps.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "byte_builder.h"
#include "symbols/jitdump.h"
#include "unit_check.h"

static void prefix(byte_builder *b, uint32_t id, uint32_t total, uint64_t time)
{
    bb_u32(b, id);
    bb_u32(b, total);
    bb_u64(b, time);
}

static void build(byte_builder *b, bool big_endian, uint64_t flags)
{
    bb_reset(b, big_endian);
    bb_u32(b, PV_JITDUMP_MAGIC);
    bb_u32(b, 1);           /* version */
    bb_u32(b, 40);          /* header size */
    bb_u32(b, 62);          /* EM_X86_64 */
    bb_u32(b, 0);
    bb_u32(b, 4242);        /* pid */
    bb_u64(b, 50);
    bb_u64(b, flags);
    /* UNWINDING_INFO: 16 bytes mapped after the next load's code */
    prefix(b, 4, 16 + 24 + 8, 90);
    bb_u64(b, 8);
    bb_u64(b, 4);
    bb_u64(b, 16);
    bb_zeros(b, 8);
    /* DEBUG_INFO for the next load: two entries */
    prefix(b, 2, 16 + 16 + 2 * (16 + 5), 95);
    bb_u64(b, 0x1000);
    bb_u64(b, 2);
    bb_u64(b, 0x1000);
    bb_u32(b, 10);
    bb_u32(b, 0);
    bb_bytes(b, "a.js", 5);
    bb_u64(b, 0x1008);
    bb_u32(b, 11);
    bb_u32(b, 0);
    bb_bytes(b, "a.js", 5);
    /* LOAD f at 0x1000, 0x1c bytes, index 7 */
    prefix(b, 0, 16 + 40 + 2 + 0x1c, 100);
    bb_u32(b, 4242);
    bb_u32(b, 4243);
    bb_u64(b, 0x1000);
    bb_u64(b, 0x1000);
    bb_u64(b, 0x1c);
    bb_u64(b, 7);
    bb_bytes(b, "f", 2);
    bb_zeros(b, 0x1c);
    /* LOAD g at 0x2000, 0x10 bytes, index 8 */
    prefix(b, 0, 16 + 40 + 2 + 0x10, 200);
    bb_u32(b, 4242);
    bb_u32(b, 4243);
    bb_u64(b, 0x2000);
    bb_u64(b, 0x2000);
    bb_u64(b, 0x10);
    bb_u64(b, 8);
    bb_bytes(b, "g", 2);
    bb_zeros(b, 0x10);
    /* MOVE index 7 to 0x3000 */
    prefix(b, 1, 16 + 48, 300);
    bb_u32(b, 4242);
    bb_u32(b, 4243);
    bb_u64(b, 0x3000);
    bb_u64(b, 0x1000);
    bb_u64(b, 0x3000);
    bb_u64(b, 0x1c);
    bb_u64(b, 7);
    /* an id this reader does not know, then CLOSE */
    prefix(b, 9, 24, 310);
    bb_zeros(b, 8);
    prefix(b, 3, 16, 320);
}

static bool write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(p, 1, n, f) == n;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

static void check_whole(const char *path, bool big_endian)
{
    const char *order = big_endian ? "big-endian" : "little-endian";
    char what[200], why[256];
    pv_jitdump j;
    pv_error err;
    int rc = pv_jitdump_read(path, NULL, &j, why, sizeof why, &err);
    snprintf(what, sizeof what, "%s: read whole, 3 codes, no damage, 1 unknown record", order);
    check(rc == 0 && j.nr_codes == 3 && !j.damage && j.nr_unknown == 1 && j.pid == 4242 &&
              j.other_byte_order == big_endian,
          what, "rc %d (%s), %zu codes, damage %s, unknown %llu, pid %u", rc, rc ? why : "",
          j.nr_codes, j.damage ? j.damage : "-", (unsigned long long)j.nr_unknown, j.pid);
    if (rc != 0 || j.nr_codes != 3)
        return;
    const pv_jit_code *f = &j.codes[0], *g = &j.codes[1], *moved = &j.codes[2];
    snprintf(what, sizeof what, "%s: the load after unwinding info maps ALIGN_8(size) + mapped_size",
             order);
    check(strcmp(pv_jit_code_name(&j, f), "f") == 0 && f->start == 0x1000 && f->code_size == 0x1c &&
              f->map_len == 0x20 + 16 && f->time == 100 && f->pid == 4242,
          what, "%s at 0x%llx, size 0x%llx, mapped 0x%llx, time %llu", pv_jit_code_name(&j, f),
          (unsigned long long)f->start, (unsigned long long)f->code_size,
          (unsigned long long)f->map_len, (unsigned long long)f->time);
    snprintf(what, sizeof what, "%s: the next load maps its code only, and has no lines", order);
    check(strcmp(pv_jit_code_name(&j, g), "g") == 0 && g->map_len == 0x10 && g->nr_lines == 0 &&
              g->time == 200,
          what, "%s mapped 0x%llx, %u lines", pv_jit_code_name(&j, g),
          (unsigned long long)g->map_len, g->nr_lines);
    const pv_jit_line *l = pv_jitdump_line(&j, f, 0x100a);
    snprintf(what, sizeof what, "%s: the debug entry at or below an address gives its line", order);
    check(l && l->line == 11 && strcmp(j.names + l->file, "a.js") == 0 && !pv_jitdump_line(&j, f, 0xfff),
          what, "line %u", l ? l->line : 0);
    l = pv_jitdump_line(&j, moved, 0x3002 - moved->start + moved->line_base);
    snprintf(what, sizeof what, "%s: a move keeps the load's name and lines at its new place", order);
    check(strcmp(pv_jit_code_name(&j, moved), "f") == 0 && moved->start == 0x3000 &&
              moved->time == 300 && l && l->line == 10,
          what, "%s at 0x%llx, line %u", pv_jit_code_name(&j, moved),
          (unsigned long long)moved->start, l ? l->line : 0);
    pv_jitdump_free(&j);
}

int main(void)
{
    char dir[] = "/tmp/pv_jitdump_XXXXXX", path[4200];
    if (!mkdtemp(dir)) {
        printf("not ok - mkdtemp failed\n");
        return 1;
    }
    snprintf(path, sizeof path, "%s/jit-4242.dump", dir);
    static byte_builder b;
    for (int big = 0; big <= 1; big++) {
        build(&b, big, 0);
        if (!write_file(path, b.bytes, b.n)) {
            printf("not ok - cannot write %s\n", path);
            return 1;
        }
        check_whole(path, big);
    }

    pv_jitdump j;
    pv_error err;
    char why[256];
    /* cut inside the second load: the first is kept, the damage said */
    build(&b, false, 0);
    size_t cut = 40 + 48 + 74 + 86 + 30;
    write_file(path, b.bytes, cut);
    int rc = pv_jitdump_read(path, NULL, &j, why, sizeof why, &err);
    check(rc == 0 && j.nr_codes == 1 && j.damage && strstr(j.damage, "past the end of the file"),
          "cut inside a record: read up to it, the damage said", "rc %d, %zu codes, damage %s", rc,
          j.nr_codes, rc == 0 && j.damage ? j.damage : "-");
    if (rc == 0)
        pv_jitdump_free(&j);
    build(&b, false, 0);
    b.bytes[0] ^= 0xff;
    write_file(path, b.bytes, b.n);
    rc = pv_jitdump_read(path, NULL, &j, why, sizeof why, &err);
    check(rc == -1 && strstr(why, "not a jitdump"), "a bad magic: not a jitdump", "rc %d, %s", rc, why);
    build(&b, true, 2);
    write_file(path, b.bytes, b.n);
    rc = pv_jitdump_read(path, NULL, &j, why, sizeof why, &err);
    check(rc == -1 && strstr(why, "unknown header flags 0x2"), "unknown header flags: refused, as perf does",
          "rc %d, %s", rc, why);
    rc = pv_jitdump_read("/nonexistent/jit-1.dump", NULL, &j, why, sizeof why, &err);
    check(rc == -1 && strstr(why, "No such file"), "a missing file: why says so", "rc %d, %s", rc, why);

    const char *dump = "/tmp/x/jit-4242.dump";
    check(pv_jitdump_path_matches(dump, strlen(dump), 4242) && pv_jitdump_path_matches(dump, strlen(dump), 0) &&
              !pv_jitdump_path_matches(dump, strlen(dump), 4243) &&
              !pv_jitdump_path_matches("/tmp/x/jit-42a.dump", 19, 0) &&
              !pv_jitdump_path_matches("jit-4242.dump", 13, 4242) &&
              !pv_jitdump_path_matches("/tmp/jit-.dump", 14, 0),
          "jitdump names: /jit-<the mapping pid, or any for pid 0>.dump", "a name judged wrongly");
    unlink(path);
    rmdir(dir);
    return failures != 0;
}
