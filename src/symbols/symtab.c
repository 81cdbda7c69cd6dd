#include "symbols/symtab.h"
#include "base/sorted_search.h"
#include "base/pv_array.h"
#include "base/pv_alloc.h"
#include "base/hex_number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

void pv_symtab_init(pv_symtab *t)
{
    memset(t, 0, sizeof *t);
}

void pv_symtab_free(pv_symtab *t)
{
    free(t->index);
    free(t->syms);
    free(t->names);
    memset(t, 0, sizeof *t);
}

void pv_symtab_add(pv_symtab *t, uint64_t start, uint64_t size, uint8_t binding,
                   const char *name, size_t name_len, bool module)
{
    if (t->failed)
        return;
    free(t->index);             /* made again when finished */
    t->index = NULL;
    t->nr_index = 0;
    if (name_len > UINT32_MAX - t->names_len - 1 ||
        !pv_array_grow((void **)&t->names, &t->names_cap, t->names_len + name_len + 1, 1) ||
        !pv_array_grow((void **)&t->syms, &t->cap, t->nr + 1, sizeof *t->syms)) {
        t->failed = true;
        return;
    }
    pv_symbol *s = &t->syms[t->nr++];
    s->start = start;
    s->end = size > UINT64_MAX - start ? UINT64_MAX : start + size;
    s->name = (uint32_t)t->names_len;
    s->binding = binding;
    s->module = module;
    memcpy(t->names + t->names_len, name, name_len);
    t->names[t->names_len + name_len] = 0;
    t->names_len += name_len + 1;
}

/* qsort is not stable: the name offset grows with the order of adding. */
static int compare_symbols(const void *a, const void *b)
{
    const pv_symbol *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static size_t leading_underscores(const char *s)
{
    size_t n = 0;
    while (s[n] == '_')
        n++;
    return n;
}

bool pv_symbol_prefer_first(bool a_sized, uint8_t a_binding, const char *a_name, bool b_sized,
                            uint8_t b_binding, const char *b_name)
{
    if (a_sized != b_sized)
        return a_sized;
    bool a_weak = a_binding == PV_BIND_WEAK, b_weak = b_binding == PV_BIND_WEAK;
    if (a_weak != b_weak)
        return !a_weak;
    bool a_global = a_binding == PV_BIND_GLOBAL, b_global = b_binding == PV_BIND_GLOBAL;
    if (a_global != b_global)
        return a_global;
    size_t au = leading_underscores(a_name), bu = leading_underscores(b_name);
    if (au != bu)
        return au < bu;
    return strlen(a_name) >= strlen(b_name);
}

static bool prefer_first(const pv_symtab *t, const pv_symbol *a, const pv_symbol *b)
{
    return pv_symbol_prefer_first(a->end > a->start, a->binding, t->names + a->name,
                                  b->end > b->start, b->binding, t->names + b->name);
}

uint64_t pv_symbol_page_after(uint64_t addr)
{
    uint64_t rounded = (addr + PAGE - 1) & ~(uint64_t)(PAGE - 1);
    return rounded < addr || rounded > UINT64_MAX - PAGE ? UINT64_MAX : rounded + PAGE;
}

/* Lookups bisect this index (a few KB) and then one stride of the table,
 * a few cache lines, where a bisection of the whole table (100,000
 * kallsyms of 24 bytes) misses the cache at most steps.  Without memory
 * for it they bisect the whole table. */
static void build_index(pv_symtab *t)
{
    free(t->index);
    t->index = NULL;
    t->nr_index = 0;
    if (t->nr < 2 * PV_SYMTAB_STRIDE)
        return;
    size_t n = (t->nr - 1) / PV_SYMTAB_STRIDE + 1;
    uint64_t *index = pv_malloc(n * sizeof *index);
    if (!index)
        return;
    for (size_t i = 0; i < n; i++)
        index[i] = t->syms[i * PV_SYMTAB_STRIDE].start;
    t->index = index;
    t->nr_index = n;
}

bool pv_symtab_finish(pv_symtab *t, bool kallsyms)
{
    if (t->failed)
        return false;
    if (t->nr == 0)
        return true;
    /* kallsyms files come sorted */
    size_t sorted = 1;
    while (sorted < t->nr && compare_symbols(&t->syms[sorted - 1], &t->syms[sorted]) <= 0)
        sorted++;
    if (sorted < t->nr)
        qsort(t->syms, t->nr, sizeof *t->syms, compare_symbols);
    for (size_t i = 0; i + 1 < t->nr; i++) {
        pv_symbol *prev = &t->syms[i];
        const pv_symbol *curr = &t->syms[i + 1];
        if (prev->end != prev->start)
            continue;
        if (kallsyms && prev->module != curr->module)
            prev->end = pv_symbol_page_after(prev->start);
        else
            prev->end = curr->start;
    }
    pv_symbol *last = &t->syms[t->nr - 1];
    if (last->end == last->start)
        last->end = pv_symbol_page_after(last->start);
    /* one symbol per address */
    size_t kept = 0;
    for (size_t i = 0; i < t->nr; i++) {
        if (kept > 0 && t->syms[kept - 1].start == t->syms[i].start) {
            if (!prefer_first(t, &t->syms[kept - 1], &t->syms[i]))
                t->syms[kept - 1] = t->syms[i];
            continue;
        }
        t->syms[kept++] = t->syms[i];
    }
    t->nr = kept;
    build_index(t);
    return true;
}

/* The symbol before the first that starts above addr (lo), if it holds addr. */
static const pv_symbol *holding(const pv_symtab *t, size_t lo, uint64_t addr)
{
    if (lo == 0)
        return NULL;
    const pv_symbol *s = &t->syms[lo - 1];
    if (addr < s->end || addr == s->start)
        return s;
    return NULL;
}

const pv_symbol *pv_symtab_find_bisecting(const pv_symtab *t, uint64_t addr)
{
    return holding(t, PV_UPPER_BOUND(t->syms, t->nr, start, addr), addr);
}

const pv_symbol *pv_symtab_find(const pv_symtab *t, uint64_t addr)
{
    if (!t->index)
        return pv_symtab_find_bisecting(t, addr);
    /* the strides whose first start is at or below addr; the first symbol
     * above addr is in the last of them, or starts the next */
    size_t strides = pv_sorted_bound(t->index, t->nr_index, sizeof *t->index, 0, addr, false);
    if (strides == 0)
        return NULL;
    size_t first = (strides - 1) * PV_SYMTAB_STRIDE;
    size_t n = t->nr - first < PV_SYMTAB_STRIDE ? t->nr - first : PV_SYMTAB_STRIDE;
    return holding(t, first + PV_UPPER_BOUND(t->syms + first, n, start, addr), addr);
}

/* 1 to 16 hex digits, after a 0x that some JITs write. */
static bool parse_hex(const char **p, uint64_t *out)
{
    const char *s = *p, *end;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    uint64_t v = pv_hex_read(s, 16, &end);
    if (end == s || pv_hex_digit_plus_one[(unsigned char)*end])
        return false;   /* none, or more than 16 */
    *p = end;
    *out = v;
    return true;
}

#define BYTES(x) (0x0101010101010101u * (x))

/* 8 hex digits (the bytes of w, first digit lowest) as a number; false
 * if any byte is not a hex digit. */
static bool eight_hex_digits(uint64_t w, uint64_t *out)
{
    /* per byte, all below 0x80: x >= lo sets bit 7 of x + 0x80 - lo, and
     * x <= hi clears it in x + 0x7f - hi, with no carry between bytes */
    uint64_t high = BYTES(0x80);
    uint64_t lower = w | BYTES(0x20);
    uint64_t digit = (w + BYTES(0x80 - '0')) & ~(w + BYTES(0x7f - '9'));
    uint64_t letter = (lower + BYTES(0x80 - 'a')) & ~(lower + BYTES(0x7f - 'f'));
    if ((w & high) || ((digit | letter) & high) != high)
        return false;
    /* '0'-'9' -> 0-9, 'a'-'f' and 'A'-'F' -> 10-15 */
    uint64_t v = (w & BYTES(0x0f)) + ((w >> 6) & BYTES(1)) * 9;
    v = ((v & 0x0f000f000f000f00u) >> 8) | ((v & 0x000f000f000f000fu) << 4);
    v = ((v & 0x00ff000000ff0000u) >> 16) | ((v & 0x000000ff000000ffu) << 8);
    v = ((v & 0x0000ffff00000000u) >> 32) | ((v & 0x000000000000ffffu) << 16);
    *out = v;
    return true;
}

/* The address of nearly every kallsyms line, 16 hex digits, read 8 at a
 * time; any other (fewer digits, 0x, too many) as parse_hex reads it.
 * eol: the line's end, so that the 17th byte is in it. */
static bool parse_address(const char **p, const char *eol, bool byte_by_byte, uint64_t *out)
{
    if (!byte_by_byte && eol - *p > 16) {
        uint64_t w[2], high, low;
        memcpy(w, *p, sizeof w);
        if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) {
            w[0] = __builtin_bswap64(w[0]);
            w[1] = __builtin_bswap64(w[1]);
        }
        if (eight_hex_digits(w[0], &high) && eight_hex_digits(w[1], &low) &&
            !pv_hex_digit_plus_one[(unsigned char)(*p)[16]]) {
            *p += 16;
            *out = high << 32 | low;
            return true;
        }
    }
    return parse_hex(p, out);
}

/* Where a kallsyms name ends: a blank, a CR, or the line's end. */
static const bool ends_name[256] = { [0] = true, [' '] = true, ['\t'] = true, ['\r'] = true };

/* The length of the name at name, up to eol (which ends it): 8 bytes at a
 * time to the first below '!' (every end is), byte by byte from there
 * when that one does not end it. */
static size_t name_length(const char *name, const char *eol, bool byte_by_byte)
{
    size_t n = 0;
    while (!byte_by_byte && eol - (name + n) >= 8) {
        uint64_t w;
        memcpy(&w, name + n, sizeof w);
        if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
            w = __builtin_bswap64(w);
        /* the lowest byte below 0x21 sets the lowest bit (later ones may
         * be wrong, after the borrow) */
        uint64_t below = (w - BYTES(0x21)) & ~w & BYTES(0x80);
        if (below) {
            n += (size_t)__builtin_ctzll(below) / 8;
            break;
        }
        n += 8;
    }
    while (!ends_name[(unsigned char)name[n]])
        n++;
    return n;
}

/* The whole of a text file (procfs files have no size to ask for); NULL
 * when unreadable or over max bytes. */
static char *slurp_text(const char *path, size_t max, size_t *len)
{
    errno = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        pv_alloc_check_errno();
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = pv_malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        char *bigger = cap <= max / 2 ? pv_realloc(buf, cap * 2 + 1) : NULL;
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    bool failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A kallsyms file can list a machine's every symbol (perf's copies of
 * /proc/kallsyms are ~5 MB): read at once, names left in place as the
 * table's name store. */
#define KALLSYMS_MAX (1u << 30)

static bool load_kallsyms(pv_symtab *t, const char *path, bool byte_by_byte)
{
    size_t len;
    /* what was in t goes */
    char *text = slurp_text(path, KALLSYMS_MAX, &len);
    if (!text || len >= UINT32_MAX) {
        free(text);
        return false;
    }
    pv_symtab_free(t);
    t->names = text;
    t->names_len = t->names_cap = len + 1;
    bool any_address = false;
    char *line = text, *end = text + len;
    while (line < end && !t->failed) {
        char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        *eol = 0;
        const char *p = line;
        line = eol + 1;
        uint64_t addr;
        if (!parse_address(&p, eol, byte_by_byte, &addr) || !is_blank(*p))
            continue;
        while (is_blank(*p))
            p++;
        char raw_type = *p;
        bool lower = raw_type >= 'a' && raw_type <= 'z';
        char type = lower ? (char)(raw_type - 'a' + 'A') : raw_type;
        if (!raw_type)
            continue;
        /* perf keeps text, weak and data symbols (and the others' names
         * need no reading) */
        if (type != 'T' && type != 'W' && type != 'D' && type != 'B')
            continue;
        p++;
        while (is_blank(*p))
            p++;
        char *name = (char *)p;
        size_t n = name_length(name, eol, byte_by_byte);
        if (n == 0)
            continue;
        const char *rest = name + n;
        while (is_blank(*rest))
            rest++;
        bool module = *rest == '[';
        uint8_t binding = lower ? PV_BIND_LOCAL : PV_BIND_GLOBAL;
        if (type == 'W')
            binding = PV_BIND_WEAK;
        any_address |= addr != 0;
        name[n] = 0;
        if (!pv_array_grow((void **)&t->syms, &t->cap, t->nr + 1, sizeof *t->syms)) {
            t->failed = true;
            break;
        }
        pv_symbol *s = &t->syms[t->nr++];
        s->start = addr;
        s->end = addr;
        s->name = (uint32_t)(name - text);
        s->binding = binding;
        s->module = module;
    }
    if (!any_address || t->failed) {
        t->nr = 0;
        return false;
    }
    return pv_symtab_finish(t, true);
}

bool pv_symtab_load_kallsyms(pv_symtab *t, const char *path)
{
    return load_kallsyms(t, path, false);
}

bool pv_symtab_load_kallsyms_byte_by_byte(pv_symtab *t, const char *path)
{
    return load_kallsyms(t, path, true);
}

bool pv_symtab_load_jit_map(pv_symtab *t, const char *path)
{
    errno = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        pv_alloc_check_errno();
    if (!f)
        return false;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        uint64_t start, size;
        if (!parse_hex(&p, &start) || *p != ' ')
            continue;
        p++;
        if (!parse_hex(&p, &size) || *p != ' ')
            continue;
        p++;
        size_t n = strcspn(p, "\r\n");
        if (n == 0)
            continue;
        pv_symtab_add(t, start, size, PV_BIND_GLOBAL, p, n, false);
    }
    fclose(f);
    return pv_symtab_finish(t, false);
}
