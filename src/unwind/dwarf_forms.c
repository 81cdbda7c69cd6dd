#include "unwind/dwarf_forms.h"

#include <dwarf.h>
#include <string.h>

/* The bytes a LEB128 number may take at r's position (libdw's limit). */
static uint64_t leb_room(const pv_byte_reader *r)
{
    uint64_t left = pv_bytes_left(r);
    return left < 10 ? left : 10;
}

uint64_t pv_dwarf_uleb(pv_byte_reader *r)
{
    uint64_t room = leb_room(r), acc = 0;
    if (room == 0) {
        pv_bytes_take(r, 1);    /* marks the reader failed */
        return 0;
    }
    for (uint64_t i = 0; i < room; i++) {
        uint8_t b = r->data[r->pos++];
        if (!(b & 0x80))
            return acc | (uint64_t)b << (7 * i);
        acc |= (uint64_t)(b & 0x7f) << (7 * i);
    }
    return UINT64_MAX;
}

int64_t pv_dwarf_sleb(pv_byte_reader *r)
{
    uint64_t room = leb_room(r), acc = 0;
    if (room == 0) {
        pv_bytes_take(r, 1);
        return 0;
    }
    for (uint64_t i = 0; i < room; i++) {
        uint8_t b = r->data[r->pos++];
        if (!(b & 0x80)) {
            int64_t low = (b & 0x40) ? (int64_t)b - 0x80 : (int64_t)b;    /* 7 bits, signed */
            return (int64_t)(acc | (uint64_t)low << (7 * i));
        }
        acc |= (uint64_t)(b & 0x7f) << (7 * i);
    }
    return INT64_MAX;
}

static uint64_t read_sized(pv_byte_reader *r, unsigned size)
{
    switch (size) {
    case 1: return pv_bytes_u8(r);
    case 2: return pv_bytes_u16(r);
    case 4: return pv_bytes_u32(r);
    default: return pv_bytes_u64(r);
    }
}

bool pv_dwarf_skip_form(pv_byte_reader *r, uint64_t form, const pv_dwarf_context *c)
{
    uint64_t n;
    switch (form) {
    case DW_FORM_flag_present:
    case DW_FORM_implicit_const:
        return !r->failed;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
    case DW_FORM_addrx1:
        n = 1; break;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
        n = 2; break;
    case DW_FORM_strx3: case DW_FORM_addrx3:
        n = 3; break;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
    case DW_FORM_ref_sup4:
        n = 4; break;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
        n = 8; break;
    case DW_FORM_data16:
        n = 16; break;
    case DW_FORM_addr:
        n = c->address_size; break;
    case DW_FORM_ref_addr:
        n = c->version < 3 ? c->address_size : c->offset_size; break;
    case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
        n = c->offset_size; break;
    case DW_FORM_block1:
        n = pv_bytes_u8(r); break;
    case DW_FORM_block2:
        n = pv_bytes_u16(r); break;
    case DW_FORM_block4:
        n = pv_bytes_u32(r); break;
    case DW_FORM_block: case DW_FORM_exprloc:
        n = pv_dwarf_uleb(r); break;
    case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx:
    case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
        pv_dwarf_uleb(r);
        return !r->failed;
    case DW_FORM_string: {
        uint64_t left = pv_bytes_left(r);
        const uint8_t *nul = left ? memchr(r->data + r->pos, 0, left) : NULL;
        if (!nul)
            return false;
        n = (uint64_t)(nul - (r->data + r->pos)) + 1;
        break;
    }
    default:
        return false;
    }
    return pv_bytes_skip(r, n);
}

/* The NUL-terminated string at offset of a string section. */
static const char *section_string(const pv_section_bytes *s, uint64_t offset)
{
    if (!s || !s->data || offset >= s->size || !memchr(s->data + offset, 0, s->size - offset))
        return NULL;
    return (const char *)s->data + offset;
}

pv_form_status pv_dwarf_form_string(const pv_byte_reader *r, uint64_t form,
                                    const pv_dwarf_context *c, const char **out)
{
    pv_byte_reader at = *r;
    *out = NULL;
    switch (form) {
    case DW_FORM_string: {
        uint64_t left = pv_bytes_left(&at);
        if (!left || !memchr(at.data + at.pos, 0, left))
            return PV_FORM_BAD;
        *out = (const char *)at.data + at.pos;
        return PV_FORM_OK;
    }
    case DW_FORM_strp:
    case DW_FORM_line_strp: {
        uint64_t offset = read_sized(&at, c->offset_size);
        if (at.failed)
            return PV_FORM_BAD;
        *out = section_string(form == DW_FORM_strp ? c->str : c->line_str, offset);
        return *out ? PV_FORM_OK : PV_FORM_BAD;
    }
    case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
    case DW_FORM_strx4: case DW_FORM_GNU_str_index: case DW_FORM_GNU_strp_alt:
    case DW_FORM_strp_sup:
        return PV_FORM_FOR_LIBDW;
    default:
        return PV_FORM_BAD;
    }
}

bool pv_dwarf_form_udata(const pv_byte_reader *r, uint64_t form, uint64_t *out)
{
    pv_byte_reader at = *r;
    switch (form) {
    case DW_FORM_data1: *out = pv_bytes_u8(&at); break;
    case DW_FORM_data2: *out = pv_bytes_u16(&at); break;
    case DW_FORM_data4: *out = pv_bytes_u32(&at); break;
    case DW_FORM_data8: *out = pv_bytes_u64(&at); break;
    case DW_FORM_udata: *out = pv_dwarf_uleb(&at); break;
    default: return false;
    }
    return !at.failed;
}
