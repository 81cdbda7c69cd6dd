/*
 * The line tables of one ELF file's debug info, in a compact form of our
 * own (16 bytes a row, a run of rows that give the same answer kept as
 * one, each file path once).
 *
 * libdw keeps every compile unit's parsed line table (about 50 bytes a
 * row; libpython has 620 k rows), libdwfl an index of its own beside it,
 * and every inflated .debug_* section of a compressed debug file, all
 * until its session ends.  So the DWARF is read here instead
 * (debug_sections.h, dwarf_units.h, line_program.h): one section inflated
 * at a time, each unit's program run and its rows copied at once.  A file
 * that reading leaves to libdw (debug_sections.h says which) is opened in
 * a libdwfl session of its own, every unit's rows copied out of libdw, and
 * the session ended at once.
 *
 * Lazy per compile unit: the build reads the units and every line
 * program's header and file table (which tell whether libdw must read the
 * file), and runs a unit's program the first time a lookup lands in the
 * unit, keeping .debug_line and the string sections inflated until every
 * unit has run.  PERFVTAB_WHOLE_LINE_TABLES set (any value) runs them all
 * in the build, the twin tests/t_line_table.sh compares with.
 *
 * A lookup answers exactly as dwfl_module_getsrc on the file's module at
 * its own addresses (debug_cache.h) and dwfl_lineinfo on its row would,
 * the path joined to the unit's DW_AT_comp_dir as source_lines.h names
 * it: the compile unit is found by .debug_aranges as libdwfl finds it
 * (one run per unit, a gap inside the module belonging to the unit before
 * it), the row within the unit by the same search over the rows sorted
 * as libdw sorts them.  tests/t_line_table.sh compares the two at every
 * address of the fixtures' and libc's debug files.
 */
#ifndef PV_LINE_TABLE_H
#define PV_LINE_TABLE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_line_table pv_line_table;

/* The line tables of the ELF file at path, its debug info found through
 * callbacks (as debug_cache.c's sessions find it), into *out: a table
 * with no rows when the file has no debug info or is no ELF file.  0, -1
 * when memory ran out (here or inside libdw/libelf), or -2 when stop
 * (NULL: never) said stop between the reads of its sections. */
struct pv_stop;
int pv_line_table_build(const Dwfl_Callbacks *callbacks, const char *path,
                        const struct pv_stop *stop, pv_line_table **out);

void pv_line_table_free(pv_line_table *t);

/* The source line of pc (an address of the file's own): its file's path
 * into file (size bytes, cut short if longer) and its line into *line;
 * false when there is none (no unit or row covers pc, the row ends a
 * sequence, has line 0 or no file), or when running pc's unit ran out of
 * memory (counted, base/pv_alloc.h; the next lookup runs it again).  The
 * table is changed by that run, though const: one user at a time, as
 * debug_cache.h's tables are. */
bool pv_line_table_find(const pv_line_table *t, uint64_t pc, char *file, size_t size,
                        uint64_t *line);

/* The bytes the table holds, for tests and diagnostics. */
size_t pv_line_table_bytes(const pv_line_table *t);

#endif
