/*
 * DWARF attribute values as libdw reads them: LEB128 numbers (at most 10
 * bytes; an unterminated one is all ones, its bytes consumed), the length
 * of a value of each form, and the strings of the string forms.  Shared
 * by the unit reader (dwarf_units.h) and the line programs
 * (line_program.h), so that both read a form alike.
 */
#ifndef PV_DWARF_FORMS_H
#define PV_DWARF_FORMS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/byte_reader.h"
#include "unwind/debug_sections.h"

/* What a value is read against: its unit's sizes and the string
 * sections. */
typedef struct pv_dwarf_context {
    uint8_t offset_size;    /* 4 or 8 */
    uint8_t address_size;
    uint16_t version;
    const pv_section_bytes *str;        /* .debug_str */
    const pv_section_bytes *line_str;   /* .debug_line_str */
} pv_dwarf_context;

typedef enum pv_form_status {
    PV_FORM_OK,
    PV_FORM_BAD,            /* not a string form, or out of bounds: libdw's error */
    PV_FORM_FOR_LIBDW,      /* a form read through tables this reader leaves to libdw */
} pv_form_status;

uint64_t pv_dwarf_uleb(pv_byte_reader *r);
int64_t pv_dwarf_sleb(pv_byte_reader *r);

/* Skips the value of form at r's position; false when the form is
 * unknown or the value runs past the window. */
bool pv_dwarf_skip_form(pv_byte_reader *r, uint64_t form, const pv_dwarf_context *c);

/* The string of a value of form at r's position (r not moved), as
 * dwarf_formstring gives it. */
pv_form_status pv_dwarf_form_string(const pv_byte_reader *r, uint64_t form,
                                    const pv_dwarf_context *c, const char **out);

/* The unsigned value of a constant form (data1/2/4/8, udata) at r's
 * position (r not moved); false for other forms. */
bool pv_dwarf_form_udata(const pv_byte_reader *r, uint64_t form, uint64_t *out);

#endif
