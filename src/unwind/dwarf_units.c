#include "unwind/dwarf_units.h"

#include <dwarf.h>
#include <stdlib.h>

#include "base/pv_alloc.h"
#include "base/pv_array.h"

/* A unit's header in .debug_info. */
typedef struct unit_header {
    uint64_t end, die;
    uint64_t abbrev_offset;
    uint16_t version;
    uint8_t unit_type, address_size, offset_size;
} unit_header;

static uint64_t read_offset(pv_byte_reader *r, uint8_t offset_size)
{
    return offset_size == 8 ? pv_bytes_u64(r) : pv_bytes_u32(r);
}

static bool read_unit_header(const pv_section_bytes *info, bool swap, uint64_t at, unit_header *h)
{
    if (!info->data || at >= info->size)
        return false;
    pv_byte_reader r;
    pv_byte_reader_init(&r, info->data + at, info->size - at, at, swap);
    uint64_t length = pv_bytes_u32(&r);
    h->offset_size = 4;
    if (length == 0xffffffffu) {
        length = pv_bytes_u64(&r);
        h->offset_size = 8;
    } else if (length >= 0xfffffff0u) {
        return false;
    }
    if (r.failed || length > pv_bytes_left(&r))
        return false;
    h->end = at + r.pos + length;
    r.size = r.pos + length;
    h->version = pv_bytes_u16(&r);
    if (h->version < 2 || h->version > 5)
        return false;
    h->unit_type = DW_UT_compile;
    if (h->version >= 5) {
        h->unit_type = pv_bytes_u8(&r);
        h->address_size = pv_bytes_u8(&r);
        h->abbrev_offset = read_offset(&r, h->offset_size);
    } else {
        h->abbrev_offset = read_offset(&r, h->offset_size);
        h->address_size = pv_bytes_u8(&r);
    }
    if (h->unit_type == DW_UT_skeleton || h->unit_type == DW_UT_split_compile)
        pv_bytes_skip(&r, 8);       /* dwo_id */
    else if (h->unit_type == DW_UT_type || h->unit_type == DW_UT_split_type)
        pv_bytes_skip(&r, 8 + (uint64_t)h->offset_size);   /* signature, type offset */
    h->die = at + r.pos;
    return !r.failed;
}

static int by_start(const void *a, const void *b)
{
    const pv_arange *x = a, *y = b;
    return x->start == y->start ? 0 : x->start < y->start ? -1 : 1;
}

/* One set of .debug_aranges at r's position; false when malformed. */
static bool read_set(pv_byte_reader *r, const pv_section_bytes *info, bool swap, pv_arange **out,
                     size_t *nr, size_t *cap, bool *no_memory)
{
    uint64_t set_start = r->pos;
    uint64_t length = pv_bytes_u32(r);
    uint8_t offset_size = 4;
    if (length == 0xffffffffu) {
        length = pv_bytes_u64(r);
        offset_size = 8;
    } else if (length >= 0xfffffff0u) {
        return false;
    }
    if (r->failed || length > pv_bytes_left(r))
        return false;
    uint64_t set_end = r->pos + length;
    if (pv_bytes_u16(r) != 2)
        return false;
    uint64_t unit_offset = read_offset(r, offset_size);
    uint8_t address_size = pv_bytes_u8(r);
    pv_bytes_u8(r);     /* segment selector size */
    if (r->failed || (address_size != 4 && address_size != 8))
        return false;
    unit_header h;
    if (!info->data || info->size < 4 || unit_offset > info->size - 4 ||
        !read_unit_header(info, swap, unit_offset, &h))
        return false;
    uint64_t tuple = 2 * (uint64_t)address_size;
    pv_bytes_skip(r, (tuple - (r->pos - set_start) % tuple) % tuple);
    for (;;) {
        uint64_t start = address_size == 4 ? pv_bytes_u32(r) : pv_bytes_u64(r);
        uint64_t len = address_size == 4 ? pv_bytes_u32(r) : pv_bytes_u64(r);
        if (r->failed)
            return false;
        if (start == 0 && len == 0)
            break;
        if (!pv_array_grow((void **)out, cap, *nr + 1, sizeof **out)) {
            *no_memory = true;
            return false;
        }
        (*out)[(*nr)++] = (pv_arange){ start, len, unit_offset, h.die };
    }
    if (r->pos < set_end)
        r->pos = set_end;
    return true;
}

int pv_dwarf_read_aranges(const pv_section_bytes *aranges, const pv_section_bytes *info,
                          bool swap, pv_arange **out, size_t *nr)
{
    *out = NULL;
    *nr = 0;
    if (!aranges->data)
        return 0;
    pv_byte_reader r;
    pv_byte_reader_init(&r, aranges->data, aranges->size, 0, swap);
    size_t cap = 0;
    bool no_memory = false;
    while (pv_bytes_left(&r) > 0) {
        if (!read_set(&r, info, swap, out, nr, &cap, &no_memory)) {
            free(*out);
            *out = NULL;
            *nr = 0;
            return no_memory ? -1 : 0;
        }
    }
    /* a stable sort, as glibc's qsort in libdw: entries of equal start
     * keep the section's order */
    pv_arange *tmp = *nr > 1 ? pv_malloc(*nr * sizeof *tmp) : NULL;
    if (*nr > 1 && !tmp) {
        free(*out);
        *out = NULL;
        *nr = 0;
        return -1;
    }
    for (size_t width = 1; width < *nr; width *= 2) {
        for (size_t lo = 0; lo < *nr; lo += 2 * width) {
            size_t mid = lo + width < *nr ? lo + width : *nr;
            size_t hi = mid + width < *nr ? mid + width : *nr;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = by_start(&(*out)[j], &(*out)[i]) < 0 ? (*out)[j++] : (*out)[i++];
            while (i < mid)
                tmp[k++] = (*out)[i++];
            while (j < hi)
                tmp[k++] = (*out)[j++];
        }
        pv_arange *swap_arrays = *out;
        *out = tmp;
        tmp = swap_arrays;
    }
    free(tmp);
    return 0;
}

/* The attribute list of abbreviation code in the table at offset; false
 * when the table has no such code. */
static bool find_abbrev(const pv_section_bytes *abbrev, bool swap, uint64_t offset, uint64_t code,
                        pv_byte_reader *attrs)
{
    if (!abbrev->data || offset >= abbrev->size)
        return false;
    pv_byte_reader r;
    pv_byte_reader_init(&r, abbrev->data + offset, abbrev->size - offset, offset, swap);
    for (;;) {
        uint64_t c = pv_dwarf_uleb(&r);
        if (r.failed || c == 0)
            return false;
        pv_dwarf_uleb(&r);      /* tag */
        pv_bytes_u8(&r);        /* children */
        if (c == code) {
            *attrs = r;
            return !r.failed;
        }
        for (;;) {
            uint64_t name = pv_dwarf_uleb(&r), form = pv_dwarf_uleb(&r);
            if (form == DW_FORM_implicit_const)
                pv_dwarf_sleb(&r);
            if (r.failed)
                return false;
            if (name == 0 && form == 0)
                break;
        }
    }
}

pv_unit_status pv_dwarf_unit_lines(const pv_section_bytes *info, const pv_section_bytes *abbrev,
                                   const pv_dwarf_context *strings, bool swap,
                                   uint64_t unit_offset, pv_unit_lines *out)
{
    unit_header h;
    if (!read_unit_header(info, swap, unit_offset, &h))
        return PV_UNIT_NO_LINES;
    if (h.unit_type == DW_UT_split_compile || h.unit_type == DW_UT_split_type)
        return PV_UNIT_FOR_LIBDW;
    /* libdwfl's intern_cu: no unit this near the section's end */
    if (info->size < 4 || h.die >= info->size - 4 || h.die >= h.end)
        return PV_UNIT_NO_LINES;
    pv_byte_reader die, attrs;
    pv_byte_reader_init(&die, info->data + h.die, h.end - h.die, h.die, swap);
    uint64_t code = pv_dwarf_uleb(&die);
    if (die.failed || code == 0 || !find_abbrev(abbrev, swap, h.abbrev_offset, code, &attrs))
        return PV_UNIT_NO_LINES;
    pv_dwarf_context c = *strings;
    c.offset_size = h.offset_size;
    c.address_size = h.address_size;
    c.version = h.version;
    pv_byte_reader stmt_at, dir_at;
    uint64_t stmt_form = 0, dir_form = 0;
    bool have_stmt = false, have_dir = false;
    /* the first attribute of each name counts, as dwarf_attr finds it */
    while (!(have_stmt && have_dir)) {
        uint64_t name = pv_dwarf_uleb(&attrs), form = pv_dwarf_uleb(&attrs);
        if (form == DW_FORM_implicit_const)
            pv_dwarf_sleb(&attrs);
        if (attrs.failed || (name == 0 && form == 0))
            break;
        if (form == DW_FORM_indirect)
            return PV_UNIT_FOR_LIBDW;
        if (name == DW_AT_stmt_list && !have_stmt) {
            stmt_at = die;
            stmt_form = form;
            have_stmt = true;
        } else if (name == DW_AT_comp_dir && !have_dir) {
            dir_at = die;
            dir_form = form;
            have_dir = true;
        }
        if (!pv_dwarf_skip_form(&die, form, &c))
            break;      /* libdw sees no attribute past one it cannot read */
    }
    if (!have_stmt)
        return PV_UNIT_NO_LINES;
    uint64_t stmt_list;
    if (stmt_form == DW_FORM_sec_offset || (h.version < 4 && stmt_form == DW_FORM_data4))
        stmt_list = stmt_form == DW_FORM_data4 ? pv_bytes_u32(&stmt_at)
                                               : read_offset(&stmt_at, h.offset_size);
    else if (h.version < 4 && stmt_form == DW_FORM_data8)
        stmt_list = pv_bytes_u64(&stmt_at);
    else
        return PV_UNIT_NO_LINES;
    if (stmt_at.failed)
        return PV_UNIT_NO_LINES;
    out->stmt_list = stmt_list;
    out->address_size = h.address_size;
    out->comp_dir = NULL;
    if (have_dir && pv_dwarf_form_string(&dir_at, dir_form, &c, &out->comp_dir) == PV_FORM_FOR_LIBDW)
        return PV_UNIT_FOR_LIBDW;
    return PV_UNIT_LINES;
}
