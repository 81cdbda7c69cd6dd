/*
 * Which compile unit covers an address and where its line program is, read
 * from .debug_aranges, .debug_info and .debug_abbrev as libdw reads them
 * for dwfl_module_getsrc: the aranges sorted by address (entries of equal
 * address in their order in the section), each naming its unit by the
 * offset of the unit's first DIE; the unit's DW_AT_stmt_list and
 * DW_AT_comp_dir from that DIE, as dwarf_attr and dwarf_formstring give
 * them.
 */
#ifndef PV_DWARF_UNITS_H
#define PV_DWARF_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/debug_sections.h"
#include "unwind/dwarf_forms.h"

typedef struct pv_arange {
    uint64_t start, length;
    uint64_t unit_offset;   /* the unit's header in .debug_info */
    uint64_t die_offset;    /* its first DIE */
} pv_arange;

/* The aranges into *out (pv_malloc'd, *nr of them; none when libdw would
 * find the section malformed or absent).  0, or -1 when memory ran out. */
int pv_dwarf_read_aranges(const pv_section_bytes *aranges, const pv_section_bytes *info,
                          bool swap, pv_arange **out, size_t *nr);

typedef struct pv_unit_lines {
    uint64_t stmt_list;     /* offset in .debug_line */
    uint8_t address_size;
    const char *comp_dir;   /* in the string sections or .debug_info; NULL: none */
} pv_unit_lines;

typedef enum pv_unit_status {
    PV_UNIT_LINES,          /* *out filled */
    PV_UNIT_NO_LINES,       /* libdw finds no line table for the unit */
    PV_UNIT_FOR_LIBDW,      /* forms or unit kinds this reader leaves to libdw */
} pv_unit_status;

/* The line program of the unit whose header is at unit_offset (its
 * offset not yet held to .debug_line's size: pv_line_program_run does). */
pv_unit_status pv_dwarf_unit_lines(const pv_section_bytes *info, const pv_section_bytes *abbrev,
                                   const pv_dwarf_context *strings, bool swap,
                                   uint64_t unit_offset, pv_unit_lines *out);

#endif
