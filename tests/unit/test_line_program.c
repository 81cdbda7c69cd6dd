/*
 * Unit tests of the DWARF line reading of src/unwind/ (line_program.c,
 * dwarf_units.c, dwarf_forms.c, debug_sections.c), which
 * tests/t_line_table.sh holds to libdw on real files:
 *  - hand-built .debug_line units: DWARF 2 with a minimum instruction
 *    length of 4, an opcode_base past the standard opcodes (an unknown
 *    standard opcode skipped by its argument count), an unknown extended
 *    opcode, DW_LNE_define_file and set_discriminator, two sequences out
 *    of order; DWARF 5 in 64-bit form with line_strp, string, udata and
 *    MD5 entries; both byte orders.
 *  - malformed input: this test's own debug sections (it is built with
 *    -g) with bytes changed at random and cut short, read again and again:
 *    an error or rows, never a read out of bounds (the sanitized pass) or
 *    a crash; and whole files so damaged, through pv_line_table_build.
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <dwarf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "unwind/debug_sections.h"
#include "unwind/dwarf_units.h"
#include "unwind/elf_snapshot.h"
#include "unwind/line_program.h"
#include "unwind/line_table.h"
#include "byte_builder.h"
#include "test_files.h"
#include "unit_check.h"

static pv_section_bytes built(byte_builder *b)
{
    return (pv_section_bytes){ b->bytes, b->n };
}

/* Patches the width-byte field at at with v. */
static void patch(byte_builder *b, size_t at, uint64_t v, int width)
{
    bb_store(b->bytes + at, v, width, b->big_endian);
}

static void bb_string(byte_builder *b, const char *s)
{
    bb_bytes(b, s, strlen(s) + 1);
}

/* A DWARF 2 unit exercising the opcodes (see the file's comment). */
static void build_v2(byte_builder *b, bool big_endian)
{
    bb_reset(b, big_endian);
    bb_u32(b, 0);           /* unit_length, patched */
    bb_u16(b, 2);
    size_t header_length_at = b->n;
    bb_u32(b, 0);           /* header_length, patched */
    size_t header_start = b->n;
    bb_u8(b, 4);            /* minimum_instruction_length */
    bb_u8(b, 1);            /* default_is_stmt */
    bb_u8(b, (uint8_t)-5);  /* line_base */
    bb_u8(b, 14);           /* line_range */
    bb_u8(b, 14);           /* opcode_base: opcode 13 is unknown */
    static const uint8_t lengths[13] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 2 };
    bb_bytes(b, lengths, sizeof lengths);
    bb_string(b, "inc");
    bb_u8(b, 0);
    bb_string(b, "a.c"), bb_u8(b, 0), bb_u8(b, 0), bb_u8(b, 0);
    bb_string(b, "b.h"), bb_u8(b, 1), bb_u8(b, 0), bb_u8(b, 0);
    bb_string(b, "/abs/c.c"), bb_u8(b, 1), bb_u8(b, 0), bb_u8(b, 0);
    bb_u8(b, 0);
    patch(b, header_length_at, b->n - header_start, 4);
    bb_u8(b, 0), bb_u8(b, 9), bb_u8(b, DW_LNE_set_address), bb_u64(b, 0x1000);
    bb_u8(b, 20);                                   /* special: line +1, address +0 */
    bb_u8(b, 13), bb_u8(b, 0x81), bb_u8(b, 0x01), bb_u8(b, 5);     /* unknown standard */
    bb_u8(b, 0), bb_u8(b, 3), bb_u8(b, 0x99), bb_u8(b, 0xaa), bb_u8(b, 0xbb); /* unknown extended */
    bb_u8(b, DW_LNS_advance_pc), bb_u8(b, 2);       /* 2 x 4 bytes */
    bb_u8(b, DW_LNS_set_file), bb_u8(b, 2);
    bb_u8(b, DW_LNS_advance_line), bb_u8(b, 10);
    bb_u8(b, DW_LNS_copy);
    bb_u8(b, 0), bb_u8(b, 8), bb_u8(b, DW_LNE_define_file);
    bb_string(b, "d.c"), bb_u8(b, 1), bb_u8(b, 0), bb_u8(b, 0);
    bb_u8(b, DW_LNS_set_file), bb_u8(b, 4);
    bb_u8(b, 0), bb_u8(b, 2), bb_u8(b, DW_LNE_set_discriminator), bb_u8(b, 5);
    bb_u8(b, 33);                                   /* special: line +0, address +4 */
    bb_u8(b, DW_LNS_fixed_advance_pc), bb_u16(b, 0x10);
    bb_u8(b, 0), bb_u8(b, 1), bb_u8(b, DW_LNE_end_sequence);
    bb_u8(b, 0), bb_u8(b, 9), bb_u8(b, DW_LNE_set_address), bb_u64(b, 0x800);
    bb_u8(b, DW_LNS_set_file), bb_u8(b, 3);
    bb_u8(b, DW_LNS_copy);
    bb_u8(b, DW_LNS_advance_pc), bb_u8(b, 1);
    bb_u8(b, 0), bb_u8(b, 1), bb_u8(b, DW_LNE_end_sequence);
    patch(b, 0, b->n - 4, 4);
}

static bool row_is(const pv_line_program *p, size_t i, uint64_t addr, uint32_t file, int line,
                   bool end)
{
    const pv_line_row *r = &p->rows[i];
    return i < p->nr_rows && r->addr == addr && r->end == end &&
           (end || (r->file == file && r->line == line));
}

static void v2_tests(bool big_endian)
{
    byte_builder b;
    build_v2(&b, big_endian);
    pv_section_bytes line = built(&b);
    pv_line_program p = { 0 };
    pv_dwarf_context strings = { 0 };
    pv_lines_status s = pv_line_program_run(&p, &line, big_endian, 0, 8, "/cd", &strings);
    const char *order = big_endian ? "big-endian" : "little-endian";
    check(s == PV_LINES_READ && p.nr_rows == 6, "DWARF 2 program runs", "%s: status %d, %zu rows",
          order, (int)s, p.nr_rows);
    if (s == PV_LINES_READ && p.nr_rows == 6)
        check(row_is(&p, 0, 0x800, 3, 1, false) && row_is(&p, 1, 0x804, 0, 0, true) &&
                  row_is(&p, 2, 0x1000, 1, 2, false) && row_is(&p, 3, 0x1008, 2, 12, false) &&
                  row_is(&p, 4, 0x100c, 4, 12, false) && row_is(&p, 5, 0x101c, 0, 0, true),
              "DWARF 2 rows sorted, with the unknown opcodes skipped", "%s", order);
    const char *f0 = pv_line_program_file(&p, 0), *f1 = pv_line_program_file(&p, 1);
    const char *f2 = pv_line_program_file(&p, 2), *f3 = pv_line_program_file(&p, 3);
    const char *f4 = pv_line_program_file(&p, 4);
    check(f0 && f1 && f2 && f3 && f4 && !strcmp(f0, "???") && !strcmp(f1, "/cd/a.c") &&
              !strcmp(f2, "inc/b.h") && !strcmp(f3, "/abs/c.c") && !strcmp(f4, "inc/d.c") &&
              !pv_line_program_file(&p, 5),
          "DWARF 2 files joined to their directories as libdw joins them", "%s: %s %s %s %s %s",
          order, f0 ? f0 : "-", f1 ? f1 : "-", f2 ? f2 : "-", f3 ? f3 : "-", f4 ? f4 : "-");
    /* every cut: an error or rows, within the bytes */
    bool cut_ok = true;
    for (uint64_t n = 0; n < line.size; n++) {
        pv_section_bytes cut = { NULL, n };
        cut.data = n ? malloc(n) : NULL;
        if (n)
            memcpy(cut.data, line.data, n);
        s = pv_line_program_run(&p, &cut, big_endian, 0, 8, "/cd", &strings);
        cut_ok = cut_ok && (s == PV_LINES_READ || s == PV_LINES_BAD);
        free(cut.data);
    }
    check(cut_ok, "DWARF 2 program cut at every length", "%s: a status not READ or BAD", order);
    pv_line_program_free(&p);
}

/* A DWARF 5 unit in 64-bit form. */
static void v5_tests(void)
{
    byte_builder b, line_str;
    bb_reset(&line_str, false);
    bb_string(&line_str, "/src");
    bb_string(&line_str, "sub");
    bb_reset(&b, false);
    bb_u32(&b, 0xffffffff);
    bb_u64(&b, 0);          /* unit_length, patched */
    bb_u16(&b, 5);
    bb_u8(&b, 8), bb_u8(&b, 0);     /* address size, segment selector size */
    size_t header_length_at = b.n;
    bb_u64(&b, 0);
    size_t header_start = b.n;
    bb_u8(&b, 1), bb_u8(&b, 1), bb_u8(&b, 1), bb_u8(&b, (uint8_t)-5), bb_u8(&b, 14), bb_u8(&b, 13);
    static const uint8_t lengths[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
    bb_bytes(&b, lengths, sizeof lengths);
    bb_u8(&b, 1), bb_u8(&b, DW_LNCT_path), bb_u8(&b, DW_FORM_line_strp);
    bb_u8(&b, 2), bb_u64(&b, 0), bb_u64(&b, 5);     /* "/src", "sub" */
    bb_u8(&b, 3);
    bb_u8(&b, DW_LNCT_path), bb_u8(&b, DW_FORM_string);
    bb_u8(&b, DW_LNCT_directory_index), bb_u8(&b, DW_FORM_udata);
    bb_u8(&b, DW_LNCT_MD5), bb_u8(&b, DW_FORM_data16);
    bb_u8(&b, 2);
    bb_string(&b, "main.c"), bb_u8(&b, 0), bb_zeros(&b, 16);
    bb_string(&b, "x.h"), bb_u8(&b, 1), bb_zeros(&b, 16);
    patch(&b, header_length_at, b.n - header_start, 8);
    bb_u8(&b, 0), bb_u8(&b, 9), bb_u8(&b, DW_LNE_set_address), bb_u64(&b, 0x2000);
    bb_u8(&b, DW_LNS_set_file), bb_u8(&b, 0);
    bb_u8(&b, DW_LNS_copy);
    bb_u8(&b, DW_LNS_set_file), bb_u8(&b, 1);
    bb_u8(&b, 0x21);                                /* special: line +1, address +1 */
    bb_u8(&b, 0), bb_u8(&b, 1), bb_u8(&b, DW_LNE_end_sequence);
    patch(&b, 4, b.n - 12, 8);
    pv_section_bytes line = built(&b), strs = built(&line_str);
    pv_dwarf_context strings = { .line_str = &strs };
    pv_line_program p = { 0 };
    pv_lines_status s = pv_line_program_run(&p, &line, false, 0, 8, "/cd", &strings);
    /* at 0x2001 the end of the sequence sorts first, and the last row,
     * the one of line 2, is marked an end as libdw marks it */
    check(s == PV_LINES_READ && p.nr_rows == 3 && row_is(&p, 0, 0x2000, 0, 1, false) &&
              row_is(&p, 1, 0x2001, 0, 0, true) && row_is(&p, 2, 0x2001, 0, 0, true) &&
              p.rows[2].file == 1 && p.rows[2].line == 2,
          "DWARF 5 (64-bit) program runs, its rows sorted as libdw sorts them",
          "status %d, %zu rows", (int)s, p.nr_rows);
    const char *f0 = pv_line_program_file(&p, 0), *f1 = pv_line_program_file(&p, 1);
    check(f0 && f1 && !strcmp(f0, "/src/main.c") && !strcmp(f1, "sub/x.h"),
          "DWARF 5 files named through .debug_line_str", "%s %s", f0 ? f0 : "-", f1 ? f1 : "-");
    s = pv_line_program_run(&p, &line, false, 0, 4, "/cd", &strings);
    check(s == PV_LINES_BAD, "DWARF 5 header's address size must be the unit's", "status %d",
          (int)s);
    pv_line_program_free(&p);
}

static uint64_t seed = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return seed;
}

/* Every unit of the sections, read as line_table.c reads them. */
static size_t read_all(const pv_section_bytes *aranges, const pv_section_bytes *info,
                       const pv_section_bytes *abbrev, const pv_section_bytes *line,
                       const pv_dwarf_context *strings, pv_line_program *p)
{
    pv_arange *a;
    size_t nr, rows = 0;
    if (pv_dwarf_read_aranges(aranges, info, false, &a, &nr) != 0)
        return 0;
    for (size_t i = 0; i < nr; i++) {
        pv_unit_lines u;
        if (pv_dwarf_unit_lines(info, abbrev, strings, false, a[i].unit_offset, &u) !=
            PV_UNIT_LINES)
            continue;
        if (pv_line_program_run(p, line, false, u.stmt_list, u.address_size, u.comp_dir,
                                strings) == PV_LINES_READ)
            rows += p->nr_rows;
    }
    free(a);
    return rows;
}

static void damage(pv_section_bytes *s, const pv_section_bytes *from)
{
    memcpy(s->data, from->data, from->size);
    s->size = from->size;
    int flips = 1 + (int)(next_random() % 4);
    for (int i = 0; i < flips && s->size; i++)
        s->data[next_random() % s->size] = (uint8_t)next_random();
    if (next_random() % 4 == 0)
        s->size = next_random() % (s->size + 1);
}

static pv_section_bytes copy_of(const pv_section_bytes *s)
{
    pv_section_bytes c = { malloc(s->size ? s->size : 1), s->size };
    memcpy(c.data, s->data, s->size);
    return c;
}

static void damaged_section_tests(const char *self)
{
    int fd = open(self, O_RDONLY | O_CLOEXEC);
    pv_debug_elf e;
    bool no_memory;
    if (fd < 0 || !pv_debug_elf_open(&e, fd, &no_memory)) {
        check(false, "own debug sections", "cannot open %s", self);
        return;
    }
    static const char *names[] = { ".debug_aranges", ".debug_info", ".debug_abbrev",
                                   ".debug_line", ".debug_str", ".debug_line_str" };
    pv_section_bytes s[6] = { { 0 } };
    bool have = true;
    for (int i = 0; i < 6; i++)
        have = pv_debug_elf_read(&e, names[i], &s[i]) != PV_SECTION_NO_MEMORY && have;
    if (!have || !s[0].data || !s[3].data) {
        printf("ok - damaged debug sections # SKIP input absent: %s has no DWARF\n", self);
    } else {
        pv_dwarf_context strings = { .str = &s[4], .line_str = &s[5] };
        pv_line_program p = { 0 };
        size_t whole = read_all(&s[0], &s[1], &s[2], &s[3], &strings, &p);
        check(whole > 0, "own debug sections read", "no rows");
        /* 500 damaged copies of each section in turn */
        for (int which = 0; which < 6; which++) {
            pv_section_bytes copies[6];
            for (int i = 0; i < 6; i++)
                copies[i] = copy_of(&s[i]);
            for (int round = 0; round < 500; round++) {
                damage(&copies[which], &s[which]);
                pv_dwarf_context st = { .str = &copies[4], .line_str = &copies[5] };
                read_all(&copies[0], &copies[1], &copies[2], &copies[3], &st, &p);
            }
            for (int i = 0; i < 6; i++)
                free(copies[i].data);
            check(true, "damaged sections read without a fault", "%s", names[which]);
        }
        pv_line_program_free(&p);
    }
    for (int i = 0; i < 6; i++)
        pv_section_bytes_free(&s[i]);
    pv_debug_elf_close(&e);
    close(fd);
}

/* Whole files with damaged bytes in their DWARF, through the table's
 * builder (the sections found, inflated, read). */
static void damaged_file_tests(const char *self, const char *tmpdir)
{
    uint64_t size;
    uint8_t *bytes = slurp(self, &size);
    if (!bytes) {
        check(false, "damaged files", "cannot read %s", self);
        return;
    }
    Dwfl_Callbacks callbacks = { .find_elf = dwfl_build_id_find_elf,
                                 .find_debuginfo = pv_elf_snapshot_find_debuginfo,
                                 .section_address = dwfl_offline_section_address };
    char path[4096];
    snprintf(path, sizeof path, "%s/damaged", tmpdir);
    bool ok = true;
    for (int round = 0; round < 40 && ok; round++) {
        uint8_t *copy = malloc(size);
        memcpy(copy, bytes, size);
        /* the second half of the file holds the debug sections */
        for (int i = 0; i < 64; i++)
            copy[size / 2 + next_random() % (size - size / 2)] = (uint8_t)next_random();
        FILE *f = fopen(path, "wb");
        ok = f && fwrite(copy, 1, size, f) == size;
        if (f)
            fclose(f);
        free(copy);
        pv_line_table *t = NULL;
        if (ok && pv_line_table_build(&callbacks, path, NULL, &t) == 0) {
            char file[256];
            uint64_t line;
            for (uint64_t pc = 0; pc < 0x40000; pc += 7)
                pv_line_table_find(t, pc, file, sizeof file, &line);
        }
        pv_line_table_free(t);
    }
    unlink(path);
    free(bytes);
    check(ok, "damaged files built into tables without a fault", "cannot write %s", path);
}

int main(int argc, char **argv)
{
    (void)argc;
    v2_tests(false);
    v2_tests(true);
    v5_tests();
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        check(false, "own executable", "cannot resolve %s", argv[0]);
        return 1;
    }
    self[n] = '\0';
    damaged_section_tests(self);
    char tmpdir[] = "/tmp/pv_line_program_XXXXXX";
    if (mkdtemp(tmpdir)) {
        damaged_file_tests(self, tmpdir);
        rmdir(tmpdir);
    }
    return failures != 0;
}
