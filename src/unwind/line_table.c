#include "unwind/line_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/key_table.h"
#include "base/pv_alloc.h"
#include "base/pv_array.h"
#include "base/pv_env.h"
#include "base/pv_stop.h"
#include "unwind/debug_sections.h"
#include "unwind/dwarf_units.h"
#include "unwind/elf_snapshot.h"
#include "unwind/libdw_memory.h"
#include "unwind/line_program.h"

#define NO_PATH UINT32_MAX

/* A row of a unit's line table: from addr on, path's line (NO_PATH: no
 * line there; the end of a sequence, line 0, no file). */
typedef struct line_row {
    uint64_t addr;
    uint32_t line;
    uint32_t path;      /* a key of paths */
} line_row;

/* A compile unit's rows: rows[first .. first + nr). */
typedef struct line_unit {
    uint64_t die_offset;
    uint64_t unit_offset;   /* its header, for the DWARF read here */
    uint32_t first, nr;
    bool pending;           /* its program not run yet: run at its first lookup */
} line_unit;

struct own_reader;

/* A run of .debug_aranges entries naming one unit, from start on. */
typedef struct unit_run {
    uint64_t start;
    uint32_t unit;
} unit_run;

struct pv_line_table {
    uint64_t unit_bias;     /* pc - unit_bias: the address the aranges search takes */
    uint64_t row_bias;      /* pc - row_bias: the address the rows search takes */
    unit_run *runs;
    size_t nr_runs;
    uint64_t last_end;      /* the end of the last arange (libdwfl's last-range check) */
    line_unit *units;
    size_t nr_units, cap_units;
    line_row *rows;
    size_t nr_rows, cap_rows;
    pv_key_table paths;     /* the files' paths, each once */
    char *joined;           /* while building: dir/name of the path looked up */
    size_t cap_joined;
    struct own_reader *lazy;    /* while units are pending: what running them needs */
    size_t nr_pending;
};

static void free_lazy(pv_line_table *t);

void pv_line_table_free(pv_line_table *t)
{
    if (!t)
        return;
    free_lazy(t);
    free(t->runs);
    free(t->units);
    free(t->rows);
    pv_key_table_free(&t->paths);
    free(t->joined);
    free(t);
}

static size_t lazy_bytes(const pv_line_table *t);

size_t pv_line_table_bytes(const pv_line_table *t)
{
    return t ? sizeof *t + t->nr_runs * sizeof *t->runs + t->cap_units * sizeof *t->units +
                   t->cap_rows * sizeof *t->rows + pv_key_table_bytes(&t->paths) + lazy_bytes(t)
             : 0;
}

/* The key of dir/name (dir NULL: name alone) in t->paths, added when
 * new; NO_PATH when out of memory. */
static uint32_t intern_path(pv_line_table *t, const char *dir, const char *name)
{
    size_t dir_len = dir ? strlen(dir) + 1 : 0, name_len = strlen(name);
    /* + 1: joined is never NULL, even for an empty name */
    if (name_len > SIZE_MAX - 1 - dir_len ||
        !pv_array_grow((void **)&t->joined, &t->cap_joined, dir_len + name_len + 1, 1))
        return NO_PATH;
    if (dir) {
        memcpy(t->joined, dir, dir_len - 1);
        t->joined[dir_len - 1] = '/';
    }
    memcpy(t->joined + dir_len, name, name_len);
    bool added;
    int64_t key = pv_key_table_intern(&t->paths, t->joined, dir_len + name_len, &added);
    return key < 0 || key >= NO_PATH ? NO_PATH : (uint32_t)key;
}

static bool add_row(pv_line_table *t, line_unit *u, uint64_t addr, uint32_t line, uint32_t path)
{
    /* a row giving the answer of the row kept before it changes no lookup:
     * the search takes the last row at or before an address */
    if (u->nr > 0) {
        const line_row *prev = &t->rows[t->nr_rows - 1];
        if (prev->path == path && (path == NO_PATH || prev->line == line))
            return true;
    }
    if (t->nr_rows >= UINT32_MAX ||
        !pv_array_grow((void **)&t->rows, &t->cap_rows, t->nr_rows + 1, sizeof *t->rows))
        return false;
    t->rows[t->nr_rows++] = (line_row){ addr, line, path };
    u->nr++;
    return true;
}

/* Copies the rows of the unit whose DIE is at u->die_offset, as libdwfl
 * reads them (dwarf_offdie, dwarf_getsrclines): none when libdw cannot
 * read them.  false when out of memory. */
static bool copy_unit(pv_line_table *t, Dwarf *dw, line_unit *u)
{
    u->first = (uint32_t)t->nr_rows;
    u->nr = 0;
    Dwarf_Die die;
    Dwarf_Lines *lines;
    size_t nr_lines;
    pv_libdw_memory_begin();
    if (!dwarf_offdie(dw, u->die_offset, &die) || dwarf_getsrclines(&die, &lines, &nr_lines) != 0)
        return !pv_libdw_out_of_memory();   /* memory: not taken for a unit without lines */
    Dwarf_Attribute attr;
    const char *comp_dir = dwarf_formstring(dwarf_attr(&die, DW_AT_comp_dir, &attr));
    if (comp_dir && !*comp_dir)
        comp_dir = NULL;
    const char *last_name = NULL;
    uint32_t last_path = NO_PATH;
    for (size_t i = 0; i < nr_lines; i++) {
        Dwarf_Line *row = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr;
        bool end = true;
        int line = 0;
        if (!row || dwarf_lineaddr(row, &addr) != 0)
            return false;   /* libdw handed out fewer rows than it counted */
        dwarf_lineendsequence(row, &end);
        dwarf_lineno(row, &line);
        const char *name = end || line <= 0 ? NULL : dwarf_linesrc(row, NULL, NULL);
        uint32_t path = NO_PATH;
        if (name && name == last_name) {
            path = last_path;
        } else if (name) {
            path = intern_path(t, name[0] != '/' ? comp_dir : NULL, name);
            if (path == NO_PATH)
                return false;
            last_name = name;
            last_path = path;
        }
        if (!add_row(t, u, addr, path == NO_PATH ? 0 : (uint32_t)line, path))
            return false;
    }
    return true;
}

static int64_t unit_number(pv_line_table *t, const pv_arange *a)
{
    for (size_t i = t->nr_units; i-- > 0;)
        if (t->units[i].die_offset == a->die_offset)
            return (int64_t)i;
    if (t->nr_units >= UINT32_MAX ||
        !pv_array_grow((void **)&t->units, &t->cap_units, t->nr_units + 1, sizeof *t->units))
        return -1;
    t->units[t->nr_units] = (line_unit){ a->die_offset, a->unit_offset, 0, 0, false };
    return (int64_t)t->nr_units++;
}

/* The units by their aranges, as libdwfl's addrarange collects them: one
 * run per stretch of entries naming the same unit. */
static bool add_runs(pv_line_table *t, const pv_arange *a, size_t nr)
{
    if (nr == 0)
        return true;
    t->runs = pv_calloc(nr, sizeof *t->runs);
    if (!t->runs)
        return false;
    for (size_t i = 0; i < nr; i++) {
        if (i == nr - 1)
            t->last_end = a[i].start + a[i].length;
        if (i > 0 && a[i].die_offset == a[i - 1].die_offset)
            continue;
        int64_t unit = unit_number(t, &a[i]);
        if (unit < 0)
            return false;
        t->runs[t->nr_runs++] = (unit_run){ a[i].start, (uint32_t)unit };
    }
    return true;
}

/* The aranges as libdw's dwarf_getaranges gives them. */
static bool read_runs(pv_line_table *t, Dwarf *dw)
{
    Dwarf_Aranges *aranges;
    size_t nr;
    pv_libdw_memory_begin();
    if (dwarf_getaranges(dw, &aranges, &nr) != 0)
        return !pv_libdw_out_of_memory();
    pv_arange *a = nr ? pv_calloc(nr, sizeof *a) : NULL;
    if (nr && !a)
        return false;
    bool ok = true;
    for (size_t i = 0; i < nr && ok; i++) {
        Dwarf_Addr start = 0;
        Dwarf_Word length = 0;
        Dwarf_Off offset = 0;
        Dwarf_Arange *one = dwarf_onearange(aranges, i);
        ok = one && dwarf_getarangeinfo(one, &start, &length, &offset) == 0;
        if (ok)
            a[i] = (pv_arange){ start, length, 0, offset };
    }
    ok = ok && add_runs(t, a, nr);
    free(a);
    return ok;
}

/* Whether libdwfl found no DWARF for want of memory, or because libelf
 * could not read the file (its last error, read and cleared, in the C
 * locale): the file is a sealed snapshot (elf_snapshot.h), which only
 * memory running out (a mapping refused) keeps it from reading.  Taken
 * for no debug info, it would be lines lost without a word. */
static bool snapshot_unread(void)
{
    int error = dwfl_errno();
    if (!error)
        return false;
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t before = c ? uselocale(c) : (locale_t)0;
    const char *message = dwfl_errmsg(error);
    bool unread = message && (strstr(message, "cannot read data") || strstr(message, "out of memory") ||
                              strstr(message, "Cannot allocate memory"));
    if (c) {
        uselocale(before);
        freelocale(c);
    }
    return unread;
}

/* The building's leftovers given back: only the building looks paths up. */
static void finish(pv_line_table *t)
{
    pv_key_table_drop_lookup(&t->paths);
    free(t->joined);
    t->joined = NULL;
    t->cap_joined = 0;
    pv_array_trim((void **)&t->rows, &t->cap_rows, t->nr_rows, sizeof *t->rows);
    pv_key_table_trim(&t->paths);
    pv_array_trim((void **)&t->units, &t->cap_units, t->nr_units, sizeof *t->units);
}

/* Back to no rows, for libdw to fill the table instead. */
static void reset(pv_line_table *t)
{
    free_lazy(t);
    free(t->runs);
    free(t->units);
    free(t->rows);
    pv_key_table_free(&t->paths);
    free(t->joined);
    memset(t, 0, sizeof *t);
}

/* The table through libdw: the slow way, kept for what the reading below
 * leaves to it. */
static bool fill_with_libdw(pv_line_table *t, Dwfl_Module *mod)
{
    Dwarf_Addr debug_bias, main_bias;
    pv_libdw_memory_begin();
    Dwarf *dw = dwfl_module_getdwarf(mod, &debug_bias);
    /* asked even when it succeeded: libdw opens a file whose compressed
     * .debug_line it could not inflate as if it had none */
    bool unread = !dw && snapshot_unread();     /* first: it takes libdwfl's error */
    if (unread || pv_libdw_out_of_memory())
        return false;
    if (!dw || !dwfl_module_getelf(mod, &main_bias))
        return true;    /* no debug info */
    /* libdwfl takes pc - debug bias + main bias to the aranges, pc - debug
     * bias to the rows */
    t->unit_bias = debug_bias - main_bias;
    t->row_bias = debug_bias;
    if (!read_runs(t, dw))
        return false;
    for (size_t i = 0; i < t->nr_units; i++)
        if (!copy_unit(t, dw, &t->units[i]))
            return false;
    finish(t);
    return true;
}

/*
 * The table from the DWARF read here (debug_sections.h, dwarf_units.h,
 * line_program.h), so that no libdw row array and no inflated section but
 * the one at hand ever exists: .debug_aranges, .debug_info and
 * .debug_abbrev for the units (freed before the line programs are read),
 * then .debug_line, each unit's rows copied as soon as its program has
 * run.  The answers are libdw's (tests/t_line_table.sh); what this
 * reading leaves to libdw (own_status OWN_FOR_LIBDW) is read by libdw.
 *
 * Lazily: a unit's program is run the first time an address in it is
 * looked up (the first row of a query in ld.so would otherwise run all of
 * its programs), the reader kept with .debug_line and the string
 * sections until every unit has run.  Only the forms of a DWARF 5 file
 * table leave a program to libdw, so every unit's header and file table
 * are read at once: a file that libdw must read is known before any
 * lookup.  PERFVTAB_WHOLE_LINE_TABLES set runs every program at once, the
 * twin tests/t_line_table.sh compares with.
 */
typedef enum own_status { OWN_DONE, OWN_FOR_LIBDW, OWN_NO_MEMORY, OWN_STOPPED } own_status;

#define NOT_YET (UINT32_MAX - 1)

/* What a unit's line program needs from .debug_info, kept once that is
 * freed. */
typedef struct unit_lines_ref {
    uint64_t stmt_list;
    uint32_t comp_dir;      /* an offset in dirs; NO_PATH: none */
    uint8_t address_size;
    bool has_lines;
} unit_lines_ref;

typedef struct own_reader {
    const pv_stop *stop;    /* handed to each file opened (debug_sections.h) */
    pv_debug_elf elf;
    int debug_fd;           /* the separate debug file's, or -1 */
    bool swap;              /* the file's byte order is not ours */
    pv_section_bytes line, str, line_str;
    pv_dwarf_context strings;
    unit_lines_ref *refs;
    char *dirs;
    size_t dirs_len, cap_dirs;
    pv_line_program program;
    uint32_t *file_paths;   /* per file of the program: its path, NOT_YET */
    size_t cap_file_paths;
} own_reader;

static own_status section_failed(pv_section_status s)
{
    return s == PV_SECTION_NO_MEMORY ? OWN_NO_MEMORY
           : s == PV_SECTION_STOPPED ? OWN_STOPPED
                                     : OWN_FOR_LIBDW;
}

/* Reads a section, an absent one as empty. */
static own_status read_section(own_reader *o, const char *name, pv_section_bytes *out)
{
    o->elf.stop = o->stop;
    pv_section_status s = pv_debug_elf_read(&o->elf, name, out);
    return s == PV_SECTION_READ || s == PV_SECTION_ABSENT ? OWN_DONE : section_failed(s);
}

/* Whether libdw takes the file for one with DWARF. */
static bool has_dwarf(pv_debug_elf *e)
{
    return pv_debug_elf_has(e, ".debug_info") || pv_debug_elf_has(e, ".debug_line") ||
           pv_debug_elf_has(e, ".debug_frame");
}

/* Opens the file libdwfl takes the module's DWARF from, as its find_dw
 * chooses: the main file when it has DWARF, else the debug file the
 * find_debuginfo callback gives; *found false when there is none.  The
 * callback is left to libdwfl, which calls it for the symbol table too
 * (dwfl_module_getsymtab; called here directly, it would leave libdwfl's
 * record of the debug file half set, and dwfl_end would close fd 0): so
 * a main file with a symbol table of its own is left to libdw.  The biases
 * as dwfl_module_getelf and dwfl_module_getdwarf give them. */
static own_status open_dwarf_file(own_reader *o, Dwfl_Module *mod, int main_fd, bool *found,
                                  uint64_t *main_bias, uint64_t *debug_bias)
{
    *found = false;
    Dwarf_Addr bias;
    if (!dwfl_module_getelf(mod, &bias))
        return OWN_FOR_LIBDW;
    *main_bias = *debug_bias = bias;
    bool no_memory;
    if (!pv_debug_elf_open(&o->elf, main_fd, &no_memory))
        return no_memory ? OWN_NO_MEMORY : OWN_FOR_LIBDW;
    if (o->elf.type == ET_REL || pv_debug_elf_needs_libdw(&o->elf))
        return OWN_FOR_LIBDW;
    if (has_dwarf(&o->elf)) {
        *found = true;
        return o->elf.failed ? OWN_FOR_LIBDW : OWN_DONE;
    }
    bool own_symtab = pv_debug_elf_has_symtab(&o->elf);
    uint64_t main_sync = pv_debug_elf_address_sync(&o->elf);
    bool main_failed = o->elf.failed;
    pv_debug_elf_close(&o->elf);
    if (main_failed || own_symtab)
        return OWN_FOR_LIBDW;
    pv_libdw_memory_begin();
    dwfl_module_getsymtab(mod);
    const char *debug_name = NULL;
    dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug_name);
    if (!debug_name)
        return pv_libdw_out_of_memory() ? OWN_NO_MEMORY : OWN_DONE;   /* no debug file */
    /* read with pread (debug_sections.h): a file that shrinks is an error */
    o->debug_fd = open(debug_name, O_RDONLY | O_CLOEXEC);
    if (o->debug_fd < 0)
        return OWN_FOR_LIBDW;
    if (!pv_debug_elf_open(&o->elf, o->debug_fd, &no_memory))
        return no_memory ? OWN_NO_MEMORY : OWN_FOR_LIBDW;
    if (o->elf.type == ET_REL || pv_debug_elf_needs_libdw(&o->elf))
        return OWN_FOR_LIBDW;
    *found = has_dwarf(&o->elf);
    /* libdwfl lines the files up at the ends of their first segments */
    *debug_bias = bias + main_sync - pv_debug_elf_address_sync(&o->elf);
    return o->elf.failed ? OWN_FOR_LIBDW : OWN_DONE;
}

/* The units by .debug_aranges, and where each one's line program is. */
static own_status read_units(pv_line_table *t, own_reader *o)
{
    pv_section_bytes aranges = { 0 }, info = { 0 }, abbrev = { 0 };
    own_status st = read_section(o, ".debug_aranges", &aranges);
    if (st == OWN_DONE)
        st = read_section(o, ".debug_info", &info);
    if (st == OWN_DONE)
        st = read_section(o, ".debug_abbrev", &abbrev);
    pv_arange *a = NULL;
    size_t nr = 0;
    if (st == OWN_DONE && pv_dwarf_read_aranges(&aranges, &info, o->elf.swap, &a, &nr) != 0)
        st = OWN_NO_MEMORY;
    pv_section_bytes_free(&aranges);
    if (st == OWN_DONE && !add_runs(t, a, nr))
        st = OWN_NO_MEMORY;
    free(a);
    if (st == OWN_DONE && t->nr_units > 0 && !(o->refs = pv_calloc(t->nr_units, sizeof *o->refs)))
        st = OWN_NO_MEMORY;
    for (size_t i = 0; st == OWN_DONE && i < t->nr_units; i++) {
        pv_unit_lines lines;
        pv_unit_status us = pv_dwarf_unit_lines(&info, &abbrev, &o->strings, o->elf.swap,
                                                t->units[i].unit_offset, &lines);
        if (us == PV_UNIT_FOR_LIBDW)
            st = OWN_FOR_LIBDW;
        if (us != PV_UNIT_LINES)
            continue;
        o->refs[i] = (unit_lines_ref){ lines.stmt_list, NO_PATH, lines.address_size, true };
        if (!lines.comp_dir)
            continue;
        size_t len = strlen(lines.comp_dir) + 1;
        if (o->dirs_len >= NO_PATH - len ||
            !pv_array_grow((void **)&o->dirs, &o->cap_dirs, o->dirs_len + len, 1)) {
            st = OWN_NO_MEMORY;
            continue;
        }
        memcpy(o->dirs + o->dirs_len, lines.comp_dir, len);
        o->refs[i].comp_dir = (uint32_t)o->dirs_len;
        o->dirs_len += len;
    }
    pv_section_bytes_free(&info);
    pv_section_bytes_free(&abbrev);
    return st;
}

/* The rows of the program just run into unit u, as copy_unit copies
 * libdw's. */
static bool copy_program(pv_line_table *t, own_reader *o, line_unit *u, const char *comp_dir)
{
    const pv_line_program *p = &o->program;
    u->first = (uint32_t)t->nr_rows;
    u->nr = 0;
    if (comp_dir && !*comp_dir)
        comp_dir = NULL;
    if (!pv_array_grow((void **)&o->file_paths, &o->cap_file_paths, p->nr_files + 1,
                       sizeof *o->file_paths))
        return false;
    for (size_t f = 0; f < p->nr_files; f++)
        o->file_paths[f] = NOT_YET;
    for (size_t i = 0; i < p->nr_rows; i++) {
        const pv_line_row *row = &p->rows[i];
        uint32_t path = NO_PATH;
        if (!row->end && row->line > 0 && row->file < p->nr_files) {
            path = o->file_paths[row->file];
            if (path == NOT_YET) {
                const char *name = pv_line_program_file(p, row->file);
                path = intern_path(t, name[0] != '/' ? comp_dir : NULL, name);
                if (path == NO_PATH)
                    return false;
                o->file_paths[row->file] = path;
            }
        }
        if (!add_row(t, u, row->addr, path == NO_PATH ? 0 : (uint32_t)row->line, path))
            return false;
    }
    return true;
}

/* Runs unit i's program and copies its rows: false when out of memory
 * (the unit then has no rows). */
static bool run_unit(pv_line_table *t, own_reader *o, size_t i, own_status *st)
{
    const unit_lines_ref *ref = &o->refs[i];
    line_unit *u = &t->units[i];
    const char *comp_dir = ref->comp_dir == NO_PATH ? NULL : o->dirs + ref->comp_dir;
    u->first = (uint32_t)t->nr_rows;
    u->nr = 0;
    pv_lines_status ls = pv_line_program_run(&o->program, &o->line, o->swap, ref->stmt_list,
                                             ref->address_size, comp_dir, &o->strings);
    if (ls == PV_LINES_FOR_LIBDW)
        *st = OWN_FOR_LIBDW;
    if (ls == PV_LINES_NO_MEMORY || (ls == PV_LINES_READ && !copy_program(t, o, u, comp_dir))) {
        *st = OWN_NO_MEMORY;
        t->nr_rows = u->first;  /* its rows so far dropped: the unit can be run again */
        u->nr = 0;
        return false;
    }
    return true;
}

/* Each unit's line program, run and copied. */
static own_status read_lines(pv_line_table *t, own_reader *o)
{
    own_status st = OWN_DONE;
    for (size_t i = 0; st == OWN_DONE && i < t->nr_units; i++)
        if (o->refs[i].has_lines)
            run_unit(t, o, i, &st);
    return st;
}

/* Each unit's header and file table read, its program left pending: those
 * tell whether libdw must read the file (pv_line_program_files). */
static own_status check_lines(pv_line_table *t, own_reader *o)
{
    for (size_t i = 0; i < t->nr_units; i++) {
        unit_lines_ref *ref = &o->refs[i];
        if (!ref->has_lines)
            continue;
        const char *comp_dir = ref->comp_dir == NO_PATH ? NULL : o->dirs + ref->comp_dir;
        pv_lines_status ls = pv_line_program_files(&o->program, &o->line, o->swap,
                                                   ref->stmt_list, ref->address_size, comp_dir,
                                                   &o->strings);
        if (ls == PV_LINES_FOR_LIBDW)
            return OWN_FOR_LIBDW;
        if (ls == PV_LINES_NO_MEMORY)
            return OWN_NO_MEMORY;
        /* a malformed header: no rows, as running it would give */
        ref->has_lines = ls == PV_LINES_READ;
        t->units[i].pending = ref->has_lines;
        t->nr_pending += ref->has_lines;
    }
    return OWN_DONE;
}

static void close_files(own_reader *o)
{
    pv_debug_elf_close(&o->elf);
    if (o->debug_fd >= 0)
        close(o->debug_fd);
    o->debug_fd = -1;
}

static void free_reader(own_reader *o)
{
    close_files(o);
    pv_section_bytes_free(&o->line);
    pv_section_bytes_free(&o->str);
    pv_section_bytes_free(&o->line_str);
    free(o->refs);
    free(o->dirs);
    free(o->file_paths);
    pv_line_program_free(&o->program);
    free(o);
}

static void free_lazy(pv_line_table *t)
{
    if (t->lazy)
        free_reader(t->lazy);
    t->lazy = NULL;
    t->nr_pending = 0;
}

static size_t lazy_bytes(const pv_line_table *t)
{
    const own_reader *o = t->lazy;
    return o ? sizeof *o + o->line.size + o->str.size + o->line_str.size +
                   t->nr_units * sizeof *o->refs + o->cap_dirs
             : 0;
}

/* Runs pending unit i (a lookup's): false when out of memory, the
 * failure counted (base/pv_alloc.h) so that the query does not take the
 * missing line for none.  The last pending unit run, the reader is freed. */
static bool run_pending(pv_line_table *t, size_t i)
{
    own_status st = OWN_DONE;
    if (!run_unit(t, t->lazy, i, &st)) {
        pv_alloc_count_failure();
        return false;
    }
    t->units[i].pending = false;
    if (--t->nr_pending == 0) {
        free_lazy(t);
        finish(t);
    }
    return true;
}

static own_status fill_own(pv_line_table *t, Dwfl_Module *mod, int main_fd, const pv_stop *stop)
{
    own_reader *o = pv_calloc(1, sizeof *o);
    if (!o)
        return OWN_NO_MEMORY;
    o->stop = stop;
    o->debug_fd = -1;
    o->strings.str = &o->str;
    o->strings.line_str = &o->line_str;
    bool found;
    uint64_t main_bias, debug_bias;
    own_status st = open_dwarf_file(o, mod, main_fd, &found, &main_bias, &debug_bias);
    if (st == OWN_DONE && found) {
        t->unit_bias = debug_bias - main_bias;
        t->row_bias = debug_bias;
        o->swap = o->elf.swap;
        st = read_section(o, ".debug_str", &o->str);
        if (st == OWN_DONE)
            st = read_section(o, ".debug_line_str", &o->line_str);
        if (st == OWN_DONE)
            st = read_units(t, o);
        if (st == OWN_DONE && t->nr_units > 0)
            st = read_section(o, ".debug_line", &o->line);
        if (st == OWN_DONE && t->nr_units > 0)
            st = pv_env_flag("PERFVTAB_WHOLE_LINE_TABLES") ? read_lines(t, o) : check_lines(t, o);
    }
    if (st == OWN_DONE && t->nr_pending > 0) {
        /* kept for the lookups: the files are closed, the sections read */
        close_files(o);
        o->stop = NULL;
        t->lazy = o;
        pv_array_trim((void **)&t->units, &t->cap_units, t->nr_units, sizeof *t->units);
        return OWN_DONE;
    }
    free_reader(o);
    t->nr_pending = 0;
    if (st == OWN_DONE)
        finish(t);
    return st;
}

int pv_line_table_build(const Dwfl_Callbacks *callbacks, const char *path, const pv_stop *stop,
                        pv_line_table **out)
{
    bool was_stopped = false;
    *out = NULL;
    pv_line_table *t = pv_calloc(1, sizeof *t);
    if (!t)
        return -1;
    /* each libdw call that fails is asked whether memory was why: a
     * table short of units for want of memory is no table */
    pv_libdw_memory_begin();
    bool ok = false;
    Dwfl *dwfl = dwfl_begin(callbacks);
    if (dwfl) {
        char why[256];
        int fd = pv_elf_snapshot(path, -1, why, sizeof why);
        ok = fd >= 0 || errno != ENOMEM;
        /* a handle of our own on the snapshot: libdwfl owns fd */
        int own_fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
        dwfl_report_begin(dwfl);
        Dwfl_Module *mod = fd >= 0 ? dwfl_report_elf(dwfl, path, path, fd, 0, true) : NULL;
        dwfl_report_end(dwfl, NULL, NULL);
        if (!mod && fd >= 0) {
            ok = !pv_libdw_out_of_memory();
            close(fd);
        }
        if (ok && mod) {
            own_status st = own_fd >= 0 ? fill_own(t, mod, own_fd, stop) : OWN_FOR_LIBDW;
            was_stopped = st == OWN_STOPPED;
            if (st == OWN_FOR_LIBDW) {
                reset(t);
                ok = fill_with_libdw(t, mod);
            } else {
                ok = st == OWN_DONE;
            }
        }
        if (own_fd >= 0)
            close(own_fd);
        dwfl_end(dwfl);
    }
    if (!ok) {
        pv_line_table_free(t);
        return was_stopped ? -2 : -1;
    }
    *out = t;
    return 0;
}

/* The unit libdwfl's addrarange gives address a, as it searches its runs
 * (an address past a run's start and before the next run's belongs to
 * it; past the last run, up to and with the last arange's end). */
static const line_unit *unit_at(const pv_line_table *t, uint64_t a)
{
    size_t l = 0, u = t->nr_runs;
    while (l < u) {
        size_t idx = (l + u) / 2;
        uint64_t start = t->runs[idx].start;
        if (a < start) {
            u = idx;
            continue;
        }
        if (a > start) {
            if (idx + 1 < t->nr_runs) {
                if (a >= t->runs[idx + 1].start) {
                    l = idx + 1;
                    continue;
                }
            } else if (a > t->last_end) {
                break;
            }
        }
        return &t->units[t->runs[idx].unit];
    }
    return NULL;
}

bool pv_line_table_find(const pv_line_table *t, uint64_t pc, char *file, size_t size,
                        uint64_t *line)
{
    if (!t || size == 0)
        return false;
    const line_unit *unit = unit_at(t, pc - t->unit_bias);
    if (unit && unit->pending) {
        /* the cache's table, which one user at a time looks up in
         * (debug_cache.h): its first lookup in a unit runs the unit's
         * program (which may move the units: looked up again) */
        size_t i = (size_t)(unit - t->units);
        if (!run_pending((pv_line_table *)t, i))
            return false;
        unit = &t->units[i];
    }
    if (!unit || unit->nr == 0)
        return false;
    const line_row *rows = t->rows + unit->first;
    uint64_t a = pc - t->row_bias;
    /* the last row at or before a, as dwfl_module_getsrc searches */
    size_t l = 0, u = unit->nr - 1;
    while (l < u) {
        size_t idx = u - (u - l) / 2;
        if (a < rows[idx].addr)
            u = idx - 1;
        else
            l = idx;
    }
    const line_row *row = &rows[l];
    if (row->path == NO_PATH || row->addr > a)
        return false;
    size_t n;
    const char *path = (const char *)pv_key_table_key(&t->paths, row->path, &n);
    if (n > size - 1)
        n = size - 1;
    memcpy(file, path, n);
    file[n] = '\0';
    *line = row->line;
    return true;
}
