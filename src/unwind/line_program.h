/*
 * One compile unit's .debug_line program, run as libdw's
 * dwarf_getsrclines runs it (DWARF 2 to 5, 32- and 64-bit): its rows
 * sorted as libdw sorts them (by address, an end of sequence before the
 * other rows of its address, else in program order), the last marked as
 * an end of sequence, and its files named as libdw names them (a relative
 * name joined to its directory, entry 0 of a DWARF 2-4 table being the
 * unit's DW_AT_comp_dir).  What libdw takes for malformed, this takes so
 * too: the unit then has no rows.
 */
#ifndef PV_LINE_PROGRAM_H
#define PV_LINE_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/debug_sections.h"
#include "unwind/dwarf_forms.h"

typedef struct pv_line_row {
    uint64_t addr;
    uint32_t file;
    int32_t line;
    uint32_t seq;           /* its place in the program */
    bool end;               /* ends a sequence */
} pv_line_row;

/* Arrays reused from one unit to the next. */
typedef struct pv_line_program {
    pv_line_row *rows;
    size_t nr_rows, cap_rows;
    uint32_t *files;        /* offsets in names */
    size_t nr_files, cap_files;
    char *names;
    size_t names_len, cap_names;
    const char **dirs;
    size_t nr_dirs, cap_dirs;
} pv_line_program;

typedef enum pv_lines_status {
    PV_LINES_READ,
    PV_LINES_BAD,           /* libdw's error: no rows */
    PV_LINES_FOR_LIBDW,     /* forms this reader leaves to libdw */
    PV_LINES_NO_MEMORY,
} pv_lines_status;

/* Runs the program at offset of .debug_line for a unit of that address
 * size and compilation directory (NULL: none); strings gives the string
 * sections. */
pv_lines_status pv_line_program_run(pv_line_program *p, const pv_section_bytes *line, bool swap,
                                    uint64_t offset, uint8_t address_size, const char *comp_dir,
                                    const pv_dwarf_context *strings);

/* The header and file table alone of the program at offset, read as
 * pv_line_program_run reads them (no rows): whether running it would be
 * PV_LINES_FOR_LIBDW is known from these, since only the forms of a DWARF
 * 5 file table leave a program to libdw. */
pv_lines_status pv_line_program_files(pv_line_program *p, const pv_section_bytes *line, bool swap,
                                      uint64_t offset, uint8_t address_size, const char *comp_dir,
                                      const pv_dwarf_context *strings);

/* The name of file number file of the last program run; NULL when it has
 * none of that number. */
const char *pv_line_program_file(const pv_line_program *p, uint32_t file);

void pv_line_program_free(pv_line_program *p);

#endif
