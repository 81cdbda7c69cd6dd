#include "unwind/line_program.h"

#include <dwarf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/pv_array.h"

#define NO_NAME UINT32_MAX

/* The unit's header, as libdw's read_line_header decodes it (offsets in
 * the section). */
typedef struct line_header {
    uint64_t unit_end, header_end, files_start, lengths_at;
    uint16_t version;
    uint8_t offset_size, min_len, max_ops, default_is_stmt, line_range, opcode_base;
    int8_t line_base;
} line_header;

/* The registers of the line state machine, typed as libdw types them. */
typedef struct line_state {
    uint64_t addr;
    uint32_t op_index, file, column, isa, discriminator;
    int64_t line;
    uint8_t is_stmt;
} line_state;

void pv_line_program_free(pv_line_program *p)
{
    free(p->rows);
    free(p->files);
    free(p->names);
    free(p->dirs);
    memset(p, 0, sizeof *p);
}

const char *pv_line_program_file(const pv_line_program *p, uint32_t file)
{
    if (file >= p->nr_files || p->files[file] == NO_NAME)
        return NULL;
    return p->names + p->files[file];
}

static pv_byte_reader window(const pv_section_bytes *line, bool swap, uint64_t from, uint64_t to)
{
    pv_byte_reader r;
    pv_byte_reader_init(&r, line->data + from, to - from, from, swap);
    return r;
}

static pv_lines_status read_header(const pv_section_bytes *line, bool swap, uint64_t offset,
                                   uint8_t address_size, line_header *h)
{
    pv_byte_reader r = window(line, swap, offset, line->size);
    uint64_t unit_length = pv_bytes_u32(&r);
    h->offset_size = 4;
    if (unit_length == 0xffffffffu) {
        unit_length = pv_bytes_u64(&r);
        h->offset_size = 8;
    }
    if (r.failed || unit_length > pv_bytes_left(&r))
        return PV_LINES_BAD;
    r.size = r.pos + unit_length;
    h->unit_end = offset + r.size;
    h->version = pv_bytes_u16(&r);
    if (r.failed || h->version < 2 || h->version > 5)
        return PV_LINES_BAD;
    if (h->version >= 5) {
        uint8_t line_address_size = pv_bytes_u8(&r), segment_size = pv_bytes_u8(&r);
        if (line_address_size != address_size || segment_size != 0)
            return PV_LINES_BAD;
    }
    uint64_t header_length = h->offset_size == 8 ? pv_bytes_u64(&r) : pv_bytes_u32(&r);
    uint64_t header_start = offset + r.pos;
    h->min_len = pv_bytes_u8(&r);
    h->max_ops = 1;
    if (h->version >= 4) {
        h->max_ops = pv_bytes_u8(&r);
        if (h->max_ops == 0)
            return PV_LINES_BAD;
    }
    h->default_is_stmt = pv_bytes_u8(&r);
    h->line_base = (int8_t)pv_bytes_u8(&r);
    h->line_range = pv_bytes_u8(&r);
    h->opcode_base = pv_bytes_u8(&r);
    h->lengths_at = offset + r.pos;
    if (r.failed || h->opcode_base == 0 || !pv_bytes_skip(&r, h->opcode_base - 1u))
        return PV_LINES_BAD;
    h->files_start = offset + r.pos;
    if (header_length > line->size - header_start)
        return PV_LINES_BAD;
    h->header_end = header_start + header_length;
    if (h->files_start > h->header_end)
        return PV_LINES_BAD;
    return PV_LINES_READ;
}

/* The length the header gives standard opcode op (libdw reads it even
 * past the array); -1 when that is past the section. */
static int opcode_length(const pv_section_bytes *line, const line_header *h, unsigned op)
{
    uint64_t at = h->lengths_at + op - 1;
    return at < line->size ? line->data[at] : -1;
}

static bool add_dir(pv_line_program *p, const char *dir)
{
    if (!pv_array_grow((void **)&p->dirs, &p->cap_dirs, p->nr_dirs + 1, sizeof *p->dirs))
        return false;
    p->dirs[p->nr_dirs++] = dir;
    return true;
}

/* Names file slot (NO_NAME: a new one at the end) dir/name as libdw joins
 * them. */
static bool name_file(pv_line_program *p, size_t slot, const char *dir, const char *name)
{
    size_t dir_len = name[0] != '/' && dir ? strlen(dir) + 1 : 0, name_len = strlen(name);
    if (dir_len + name_len >= NO_NAME / 2 || p->names_len > NO_NAME - 2 - dir_len - name_len ||
        !pv_array_grow((void **)&p->names, &p->cap_names, p->names_len + dir_len + name_len + 1, 1))
        return false;
    if (slot == NO_NAME) {
        if (!pv_array_grow((void **)&p->files, &p->cap_files, p->nr_files + 1, sizeof *p->files))
            return false;
        slot = p->nr_files++;
    }
    char *text = p->names + p->names_len;
    if (dir_len) {
        memcpy(text, dir, dir_len - 1);
        text[dir_len - 1] = '/';
    }
    memcpy(text + dir_len, name, name_len + 1);
    p->files[slot] = (uint32_t)p->names_len;
    p->names_len += dir_len + name_len + 1;
    return true;
}

/* A NUL-terminated string at r's position, r past it; NULL when there is
 * no NUL in the window. */
static const char *take_string(pv_byte_reader *r)
{
    uint64_t left = pv_bytes_left(r);
    const uint8_t *at = r->data + r->pos;
    const uint8_t *nul = left ? memchr(at, 0, left) : NULL;
    if (!nul)
        return NULL;
    r->pos += (uint64_t)(nul - at) + 1;
    return (const char *)at;
}

/* DWARF 2-4: the directory and file lists. */
static pv_lines_status read_old_files(pv_line_program *p, pv_byte_reader *r, const char *comp_dir)
{
    if (!add_dir(p, comp_dir))
        return PV_LINES_NO_MEMORY;
    while (pv_bytes_left(r) > 0 && r->data[r->pos] != 0) {
        const char *dir = take_string(r);
        if (!dir)
            return PV_LINES_BAD;
        if (!add_dir(p, dir))
            return PV_LINES_NO_MEMORY;
    }
    if (!pv_bytes_skip(r, 1) || pv_bytes_left(r) == 0)
        return PV_LINES_BAD;
    while (pv_bytes_left(r) > 0 && r->data[r->pos] != 0) {
        const char *name = take_string(r);
        if (!name || pv_bytes_left(r) == 0)
            return PV_LINES_BAD;
        uint64_t dir = pv_dwarf_uleb(r);
        if (dir >= p->nr_dirs)
            return PV_LINES_BAD;
        if (!name_file(p, NO_NAME, p->dirs[dir], name))
            return PV_LINES_NO_MEMORY;
        for (int i = 0; i < 2; i++) {   /* mtime, length */
            if (pv_bytes_left(r) == 0)
                return PV_LINES_BAD;
            pv_dwarf_uleb(r);
        }
    }
    return pv_bytes_skip(r, 1) ? PV_LINES_READ : PV_LINES_BAD;
}

static bool valid_entry_form(uint64_t form)
{
    switch (form) {
    case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
    case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
    case DW_FORM_data16: case DW_FORM_flag: case DW_FORM_line_strp: case DW_FORM_sdata:
    case DW_FORM_sec_offset: case DW_FORM_string: case DW_FORM_strp: case DW_FORM_strx:
    case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3: case DW_FORM_strx4:
    case DW_FORM_udata:
        return true;
    default:
        return false;
    }
}

/* DWARF 5: an entry format and the count of entries after it. */
typedef struct entry_format {
    uint16_t forms[256];
    int path, dir;          /* the forms of DW_LNCT_path, DW_LNCT_directory_index; -1 none */
    unsigned nr;
    uint64_t count;
} entry_format;

static bool read_format(pv_byte_reader *r, entry_format *f)
{
    f->path = f->dir = -1;
    if (pv_bytes_left(r) == 0)
        return false;
    f->nr = pv_bytes_u8(r);
    for (unsigned i = 0; i < f->nr; i++) {
        if (pv_bytes_left(r) == 0)
            return false;
        uint16_t kind = (uint16_t)pv_dwarf_uleb(r);
        if (pv_bytes_left(r) == 0)
            return false;
        uint16_t form = (uint16_t)pv_dwarf_uleb(r);
        if (!valid_entry_form(form))
            return false;
        f->forms[i] = form;
        if (kind == DW_LNCT_path)
            f->path = (int)i;
        else if (kind == DW_LNCT_directory_index)
            f->dir = (int)i;
    }
    if (pv_bytes_left(r) == 0)
        return false;
    f->count = pv_dwarf_uleb(r);
    if (f->nr == 0 && f->count != 0)
        return false;
    return f->nr == 0 || f->count <= pv_bytes_left(r) / f->nr;
}

/* DWARF 5: one entry's path and directory (UINT64_MAX when it has none). */
static pv_lines_status read_entry(pv_byte_reader *r, const entry_format *f,
                                  const pv_dwarf_context *c, const char **path, uint64_t *dir)
{
    *path = NULL;
    *dir = UINT64_MAX;
    for (unsigned m = 0; m < f->nr; m++) {
        if ((int)m == f->path) {
            if (pv_dwarf_form_string(r, f->forms[m], c, path) == PV_FORM_FOR_LIBDW)
                return PV_LINES_FOR_LIBDW;
        } else if ((int)m == f->dir && !pv_dwarf_form_udata(r, f->forms[m], dir)) {
            *dir = UINT64_MAX;
        }
        if (!pv_dwarf_skip_form(r, f->forms[m], c))
            return PV_LINES_BAD;
    }
    return PV_LINES_READ;
}

static pv_lines_status read_v5_files(pv_line_program *p, pv_byte_reader *r,
                                     const pv_dwarf_context *c)
{
    entry_format f;
    const char *path;
    uint64_t dir;
    pv_lines_status s;
    if (!read_format(r, &f) || (f.nr > 0 && f.path < 0))
        return PV_LINES_BAD;
    for (uint64_t n = 0; n < f.count; n++) {
        if ((s = read_entry(r, &f, c, &path, &dir)) != PV_LINES_READ)
            return s;
        if (!path)
            return PV_LINES_BAD;
        if (!add_dir(p, path))
            return PV_LINES_NO_MEMORY;
    }
    if (!read_format(r, &f) || (f.nr > 0 && (f.path < 0 || f.dir < 0)))
        return PV_LINES_BAD;
    for (uint64_t n = 0; n < f.count; n++) {
        if ((s = read_entry(r, &f, c, &path, &dir)) != PV_LINES_READ)
            return s;
        if (!path || dir == UINT64_MAX || dir >= p->nr_dirs)
            return PV_LINES_BAD;
        /* entry 0 takes the place of the "???" file */
        if (!name_file(p, n == 0 ? 0 : NO_NAME, p->dirs[dir], path))
            return PV_LINES_NO_MEMORY;
    }
    return PV_LINES_READ;
}

static pv_lines_status read_files(pv_line_program *p, const pv_section_bytes *line, bool swap,
                                  const line_header *h, const char *comp_dir,
                                  const pv_dwarf_context *c)
{
    /* file 0: libdw's stand-in, until a DWARF 5 list names it */
    if (!name_file(p, NO_NAME, NULL, "???"))
        return PV_LINES_NO_MEMORY;
    pv_byte_reader r = window(line, swap, h->files_start, h->header_end);
    pv_lines_status s = h->version < 5 ? read_old_files(p, &r, comp_dir) : read_v5_files(p, &r, c);
    if (s != PV_LINES_READ)
        return s;
    if (r.pos + 4 == r.size)
        r.pos += 4;     /* NVIDIA's CUBIN string offset */
    return r.pos == r.size ? PV_LINES_READ : PV_LINES_BAD;
}

static pv_lines_status new_row(pv_line_program *p, const line_state *s, bool end)
{
    /* libdw's row keeps these in narrower fields: a value they cannot hold
     * makes the unit malformed */
    if (s->line < INT_MIN || s->line > INT_MAX || s->column > 0xffff || s->is_stmt > 1 ||
        s->isa > 0xff || s->op_index > 0xff)
        return PV_LINES_BAD;
    if (p->nr_rows >= UINT32_MAX ||
        !pv_array_grow((void **)&p->rows, &p->cap_rows, p->nr_rows + 1, sizeof *p->rows))
        return PV_LINES_NO_MEMORY;
    p->rows[p->nr_rows] = (pv_line_row){ s->addr, s->file, (int32_t)s->line,
                                         (uint32_t)p->nr_rows, end };
    p->nr_rows++;
    return PV_LINES_READ;
}

static void reset_state(line_state *s, const line_header *h)
{
    memset(s, 0, sizeof *s);
    s->file = 1;
    s->line = 1;
    s->is_stmt = h->default_is_stmt;
}

static void advance_pc(line_state *s, const line_header *h, uint32_t op_advance)
{
    uint32_t ops = s->op_index + op_advance;
    s->addr += (uint32_t)(h->min_len * (ops / h->max_ops));
    s->op_index = ops % h->max_ops;
}

/* A standard opcode's argument count must be what the opcode takes. */
#define EXPECT_LENGTH(op, n)                                  \
    do {                                                      \
        if (opcode_length(line, h, (op)) != (n))              \
            return PV_LINES_BAD;                              \
    } while (0)
#define NEED_BYTE()                                           \
    do {                                                      \
        if (pv_bytes_left(&r) == 0)                           \
            return PV_LINES_BAD;                              \
    } while (0)

static pv_lines_status define_file(pv_line_program *p, pv_byte_reader *r)
{
    const char *name = take_string(r);
    if (!name || pv_bytes_left(r) == 0)
        return PV_LINES_BAD;
    uint32_t dir = (uint32_t)pv_dwarf_uleb(r);
    for (int i = 0; i < 2; i++) {   /* mtime, length */
        if (pv_bytes_left(r) == 0)
            return PV_LINES_BAD;
        pv_dwarf_uleb(r);
    }
    if (dir >= p->nr_dirs)
        return PV_LINES_BAD;
    return name_file(p, NO_NAME, p->dirs[dir], name) ? PV_LINES_READ : PV_LINES_NO_MEMORY;
}

static pv_lines_status extended_op(pv_line_program *p, pv_byte_reader *rp, line_state *s,
                                   const pv_section_bytes *line, const line_header *h,
                                   uint8_t address_size)
{
    pv_byte_reader r = *rp;
    pv_lines_status st = PV_LINES_READ;
    if (pv_bytes_left(&r) < 2)
        return PV_LINES_BAD;
    uint8_t len = pv_bytes_u8(&r);
    if (pv_bytes_left(&r) < len)
        return PV_LINES_BAD;
    uint8_t op = pv_bytes_u8(&r);
    switch (op) {
    case DW_LNE_end_sequence:
        st = new_row(p, s, true);
        reset_state(s, h);
        break;
    case DW_LNE_set_address:
        s->op_index = 0;
        if (pv_bytes_left(&r) < address_size)
            return PV_LINES_BAD;
        s->addr = address_size == 4 ? pv_bytes_u32(&r) : pv_bytes_u64(&r);
        if (r.failed)
            return PV_LINES_BAD;
        break;
    case DW_LNE_define_file:
        st = define_file(p, &r);
        break;
    case DW_LNE_set_discriminator:
        EXPECT_LENGTH(op, 1);
        NEED_BYTE();
        s->discriminator = (uint32_t)pv_dwarf_uleb(&r);
        break;
    case DW_LNE_NVIDIA_inlined_call:
        NEED_BYTE();
        pv_dwarf_uleb(&r);
        __attribute__((fallthrough));   /* then the function name */
    case DW_LNE_NVIDIA_set_function_name:
        NEED_BYTE();
        pv_dwarf_uleb(&r);
        break;
    default:
        /* unknown: skipped by its length, which counts the opcode */
        if (pv_bytes_left(&r) + 1 < len)
            return PV_LINES_BAD;
        r.pos = r.pos - 1 + len;
        break;
    }
    *rp = r;
    return st;
}

static pv_lines_status run_program(pv_line_program *p, const pv_section_bytes *line, bool swap,
                                   const line_header *h, uint8_t address_size)
{
    line_state s;
    reset_state(&s, h);
    if (h->header_end >= h->unit_end)
        return PV_LINES_READ;
    pv_byte_reader r = window(line, swap, h->header_end, h->unit_end);
    pv_lines_status st = PV_LINES_READ;
    while (st == PV_LINES_READ && pv_bytes_left(&r) > 0) {
        uint8_t op = pv_bytes_u8(&r);
        if (op >= h->opcode_base) {
            if (h->line_range == 0)
                return PV_LINES_BAD;
            uint32_t special = (uint32_t)(op - h->opcode_base);
            s.line += (int)(h->line_base + (int)(special % h->line_range));
            advance_pc(&s, h, special / h->line_range);
            st = new_row(p, &s, false);
            s.discriminator = 0;
        } else if (op == 0) {
            st = extended_op(p, &r, &s, line, h, address_size);
        } else if (op <= DW_LNS_set_isa) {
            bool takes_one = op == DW_LNS_advance_pc || op == DW_LNS_advance_line ||
                             op == DW_LNS_set_file || op == DW_LNS_set_column ||
                             op == DW_LNS_fixed_advance_pc || op == DW_LNS_set_isa;
            EXPECT_LENGTH(op, takes_one ? 1 : 0);
            if (takes_one && op != DW_LNS_fixed_advance_pc)
                NEED_BYTE();
            switch (op) {
            case DW_LNS_copy:
                st = new_row(p, &s, false);
                s.discriminator = 0;
                break;
            case DW_LNS_advance_pc:
                advance_pc(&s, h, (uint32_t)pv_dwarf_uleb(&r));
                break;
            case DW_LNS_advance_line:
                s.line += (int32_t)pv_dwarf_sleb(&r);
                break;
            case DW_LNS_set_file:
                s.file = (uint32_t)pv_dwarf_uleb(&r);
                break;
            case DW_LNS_set_column:
                s.column = (uint32_t)pv_dwarf_uleb(&r);
                break;
            case DW_LNS_negate_stmt:
                s.is_stmt = (uint8_t)(1 - s.is_stmt);
                break;
            case DW_LNS_const_add_pc:
                if (h->line_range == 0)
                    return PV_LINES_BAD;
                advance_pc(&s, h, (255u - h->opcode_base) / h->line_range);
                break;
            case DW_LNS_fixed_advance_pc:
                if (pv_bytes_left(&r) < 2)
                    return PV_LINES_BAD;
                s.addr += pv_bytes_u16(&r);
                s.op_index = 0;
                break;
            case DW_LNS_set_isa:
                s.isa = (uint32_t)pv_dwarf_uleb(&r);
                break;
            default:    /* set_basic_block, prologue_end, epilogue_begin */
                break;
            }
        } else {
            /* a standard opcode newer than this reader: its arguments skipped */
            int n = opcode_length(line, h, op);
            if (n < 0)
                return PV_LINES_BAD;
            for (; n > 0; n--) {
                NEED_BYTE();
                pv_dwarf_uleb(&r);
            }
        }
    }
    return st;
}

static int by_address(const void *a, const void *b)
{
    const pv_line_row *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->end != y->end)
        return x->end ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The header and file table of the program at offset, into h and p. */
static pv_lines_status read_start(pv_line_program *p, const pv_section_bytes *line, bool swap,
                                  uint64_t offset, uint8_t address_size, const char *comp_dir,
                                  const pv_dwarf_context *strings, line_header *h)
{
    p->nr_rows = p->nr_files = p->names_len = p->nr_dirs = 0;
    if (!line->data || offset >= line->size)
        return PV_LINES_BAD;
    pv_lines_status s = read_header(line, swap, offset, address_size, h);
    if (s != PV_LINES_READ)
        return s;
    pv_dwarf_context c = *strings;
    c.offset_size = h->offset_size;
    c.address_size = address_size;
    c.version = 5;
    s = read_files(p, line, swap, h, comp_dir, &c);
    if (s != PV_LINES_READ)
        p->nr_files = 0;
    return s;
}

pv_lines_status pv_line_program_files(pv_line_program *p, const pv_section_bytes *line, bool swap,
                                      uint64_t offset, uint8_t address_size, const char *comp_dir,
                                      const pv_dwarf_context *strings)
{
    line_header h;
    return read_start(p, line, swap, offset, address_size, comp_dir, strings, &h);
}

pv_lines_status pv_line_program_run(pv_line_program *p, const pv_section_bytes *line, bool swap,
                                    uint64_t offset, uint8_t address_size, const char *comp_dir,
                                    const pv_dwarf_context *strings)
{
    line_header h;
    pv_lines_status s = read_start(p, line, swap, offset, address_size, comp_dir, strings, &h);
    if (s == PV_LINES_READ)
        s = run_program(p, line, swap, &h, address_size);
    if (s != PV_LINES_READ) {
        p->nr_rows = p->nr_files = 0;
        return s;
    }
    if (p->nr_rows > 1)
        qsort(p->rows, p->nr_rows, sizeof *p->rows, by_address);
    if (p->nr_rows > 0)
        p->rows[p->nr_rows - 1].end = true;
    return PV_LINES_READ;
}
