#include "unwind/line_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/key_table.h"
#include "base/pv_alloc.h"
#include "base/pv_array.h"
#include "unwind/elf_snapshot.h"
#include "unwind/libdw_memory.h"

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
    uint32_t first, nr;
} line_unit;

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
};

/* What only building a table needs. */
typedef struct building {
    uint64_t *die_offsets;  /* units[i]'s DIE */
    size_t cap_die_offsets;
    char *joined;           /* dir/name of the path looked up */
    size_t cap_joined;
} building;

void pv_line_table_free(pv_line_table *t)
{
    if (!t)
        return;
    free(t->runs);
    free(t->units);
    free(t->rows);
    pv_key_table_free(&t->paths);
    free(t);
}

size_t pv_line_table_bytes(const pv_line_table *t)
{
    return t ? sizeof *t + t->nr_runs * sizeof *t->runs + t->cap_units * sizeof *t->units +
                   t->cap_rows * sizeof *t->rows + pv_key_table_bytes(&t->paths)
             : 0;
}

/* The key of dir/name (dir NULL: name alone) in t->paths, added when
 * new; NO_PATH when out of memory. */
static uint32_t intern_path(pv_line_table *t, building *b, const char *dir, const char *name)
{
    size_t dir_len = dir ? strlen(dir) + 1 : 0, name_len = strlen(name);
    /* + 1: joined is never NULL, even for an empty name */
    if (name_len > SIZE_MAX - 1 - dir_len ||
        !pv_array_grow((void **)&b->joined, &b->cap_joined, dir_len + name_len + 1, 1))
        return NO_PATH;
    if (dir) {
        memcpy(b->joined, dir, dir_len - 1);
        b->joined[dir_len - 1] = '/';
    }
    memcpy(b->joined + dir_len, name, name_len);
    bool added;
    int64_t key = pv_key_table_intern(&t->paths, b->joined, dir_len + name_len, &added);
    return key < 0 ? NO_PATH : (uint32_t)key;
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

/* Copies the rows of unit i, as libdwfl reads them (dwarf_offdie,
 * dwarf_getsrclines): none when libdw cannot read them.  false when out
 * of memory. */
static bool copy_unit(pv_line_table *t, building *b, Dwarf *dw, size_t i)
{
    line_unit *u = &t->units[i];
    u->first = (uint32_t)t->nr_rows;
    u->nr = 0;
    Dwarf_Die die;
    Dwarf_Lines *lines;
    size_t nr_lines;
    pv_libdw_memory_begin();
    if (!dwarf_offdie(dw, b->die_offsets[i], &die) || dwarf_getsrclines(&die, &lines, &nr_lines) != 0)
        return !pv_libdw_out_of_memory();   /* memory: not taken for a unit without lines */
    Dwarf_Attribute attr;
    const char *comp_dir = dwarf_formstring(dwarf_attr(&die, DW_AT_comp_dir, &attr));
    if (comp_dir && !*comp_dir)
        comp_dir = NULL;
    const char *last_name = NULL;
    uint32_t last_path = NO_PATH;
    for (size_t j = 0; j < nr_lines; j++) {
        Dwarf_Line *row = dwarf_onesrcline(lines, j);
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
            path = intern_path(t, b, name[0] != '/' ? comp_dir : NULL, name);
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

static int64_t unit_number(pv_line_table *t, building *b, uint64_t die_offset)
{
    for (size_t i = t->nr_units; i-- > 0;)
        if (b->die_offsets[i] == die_offset)
            return (int64_t)i;
    if (t->nr_units >= UINT32_MAX ||
        !pv_array_grow((void **)&t->units, &t->cap_units, t->nr_units + 1, sizeof *t->units) ||
        !pv_array_grow((void **)&b->die_offsets, &b->cap_die_offsets, t->nr_units + 1,
                       sizeof *b->die_offsets))
        return -1;
    t->units[t->nr_units] = (line_unit){ 0, 0 };
    b->die_offsets[t->nr_units] = die_offset;
    return (int64_t)t->nr_units++;
}

/* The units by .debug_aranges, as libdwfl's addrarange collects them: one
 * run per stretch of entries naming the same unit. */
static bool read_runs(pv_line_table *t, building *b, Dwarf *dw)
{
    Dwarf_Aranges *aranges;
    size_t nr;
    pv_libdw_memory_begin();
    if (dwarf_getaranges(dw, &aranges, &nr) != 0)
        return !pv_libdw_out_of_memory();
    if (nr == 0)
        return true;
    t->runs = pv_calloc(nr, sizeof *t->runs);
    if (!t->runs)
        return false;
    uint64_t last_unit = 0;
    for (size_t i = 0; i < nr; i++) {
        Dwarf_Addr start;
        Dwarf_Word length;
        Dwarf_Off offset;
        Dwarf_Arange *a = dwarf_onearange(aranges, i);
        if (!a || dwarf_getarangeinfo(a, &start, &length, &offset) != 0)
            return false;
        if (i == nr - 1)
            t->last_end = start + length;
        if (i > 0 && offset == last_unit)
            continue;
        int64_t unit = unit_number(t, b, offset);
        if (unit < 0)
            return false;
        t->runs[t->nr_runs++] = (unit_run){ start, (uint32_t)unit };
        last_unit = offset;
    }
    return true;
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

static bool fill(pv_line_table *t, Dwfl_Module *mod)
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
    building b = { 0 };
    bool ok = read_runs(t, &b, dw);
    for (size_t i = 0; ok && i < t->nr_units; i++)
        ok = copy_unit(t, &b, dw, i);
    free(b.die_offsets);
    free(b.joined);
    if (!ok)
        return false;
    /* only the building looks paths up */
    pv_key_table_drop_lookup(&t->paths);
    pv_array_trim((void **)&t->rows, &t->cap_rows, t->nr_rows, sizeof *t->rows);
    pv_key_table_trim(&t->paths);
    pv_array_trim((void **)&t->units, &t->cap_units, t->nr_units, sizeof *t->units);
    return true;
}

int pv_line_table_build(const Dwfl_Callbacks *callbacks, const char *path, pv_line_table **out)
{
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
        dwfl_report_begin(dwfl);
        Dwfl_Module *mod = fd >= 0 ? dwfl_report_elf(dwfl, path, path, fd, 0, true) : NULL;
        dwfl_report_end(dwfl, NULL, NULL);
        if (!mod && fd >= 0) {
            ok = !pv_libdw_out_of_memory();
            close(fd);
        }
        ok = ok && (!mod || fill(t, mod));
        dwfl_end(dwfl);
    }
    if (!ok) {
        pv_line_table_free(t);
        return -1;
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
    const char *path = pv_key_table_key(&t->paths, row->path, &n);
    if (n > size - 1)
        n = size - 1;
    memcpy(file, path, n);
    file[n] = '\0';
    *line = row->line;
    return true;
}
