/*
 * A table of symbols of one binary (or of the kernel), sorted by address,
 * with perf's rules for what a symbol covers:
 *
 *   - a symbol with a size covers [start, start + size);
 *   - a symbol of size 0 reaches to the next symbol's start (the last one
 *     to the end of its page, plus a page); in kallsyms, a kernel symbol
 *     followed by a module's, or the reverse, ends a page after its start
 *     instead, so the gap between kernel and modules stays unnamed;
 *   - of several symbols at one address one is kept: the one with a size,
 *     else not weak, else global, else with fewer leading underscores,
 *     else the longer name, else the first added.
 *
 * Text sources other than ELF live here too: kallsyms and JIT maps
 * (/tmp/perf-PID.map).
 */
#ifndef PV_SYMTAB_H
#define PV_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_BIND_LOCAL 0
#define PV_BIND_GLOBAL 1
#define PV_BIND_WEAK 2

typedef struct pv_symbol {
    uint64_t start, end;
    uint32_t name;          /* offset in the table's names */
    uint8_t binding;
    bool module;            /* kallsyms: the line names a [module] */
} pv_symbol;

typedef struct pv_symtab {
    pv_symbol *syms;
    size_t nr, cap;
    char *names;
    size_t names_len, names_cap;
    bool failed;            /* out of memory */
    /* after finishing: every PV_SYMTAB_STRIDE-th symbol's start (NULL: none,
     * lookups bisect the whole table) */
    uint64_t *index;
    size_t nr_index;
} pv_symtab;

#define PV_SYMTAB_STRIDE 16

void pv_symtab_init(pv_symtab *t);
void pv_symtab_free(pv_symtab *t);
void pv_symtab_add(pv_symtab *t, uint64_t start, uint64_t size, uint8_t binding,
                   const char *name, size_t name_len, bool module);
/* Sorts and applies the rules above; false when out of memory. */
bool pv_symtab_finish(pv_symtab *t, bool kallsyms);
const pv_symbol *pv_symtab_find(const pv_symtab *t, uint64_t addr);
/* The same found by bisecting the whole table, without the index: the
 * twin tests compare pv_symtab_find with. */
const pv_symbol *pv_symtab_find_bisecting(const pv_symtab *t, uint64_t addr);

static inline const char *pv_symbol_name(const pv_symtab *t, const pv_symbol *s)
{
    return t->names + s->name;
}

/* Of two symbols at one address, whether perf keeps the first. */
bool pv_symbol_prefer_first(bool a_sized, uint8_t a_binding, const char *a_name, bool b_sized,
                            uint8_t b_binding, const char *b_name);
/* Where a size-0 symbol with no successor ends: a page past its page. */
uint64_t pv_symbol_page_after(uint64_t addr);

/* Reads a kallsyms file ("addr type name [module]" lines): text, weak and
 * data symbols as perf keeps them.  False if it cannot be read or names
 * no symbol (all addresses 0: kptr_restrict hid them). */
bool pv_symtab_load_kallsyms(pv_symtab *t, const char *path);
/* The same read a byte at a time: the twin tests compare reading addresses
 * and names 8 bytes at once with. */
bool pv_symtab_load_kallsyms_byte_by_byte(pv_symtab *t, const char *path);
/* Reads a JIT map ("start size name" lines, hex). */
bool pv_symtab_load_jit_map(pv_symtab *t, const char *path);

#endif
