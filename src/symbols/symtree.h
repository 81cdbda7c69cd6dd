/*
 * An ELF dso's symbols as perf keeps them: a red-black tree ordered by
 * start address, built in perf's order, and searched perf's way.
 *
 * Why a tree and not a sorted array: perf's lookup walks its tree from the
 * root and returns the first symbol on the way whose range holds the
 * address.  Where symbols overlap -- perf sizes size-0 symbols before it adds
 * the .plt entries, so `_init` can reach over the whole .plt -- which one
 * wins depends on the tree's shape.  Building the same tree (the textbook
 * red-black insert and erase, as the kernel's rbtree that perf uses does,
 * equal starts going right) in the same order gives the same answers:
 *
 *   1. .symtab's symbols, then sizes fixed and aliases removed;
 *   2. .dynsym's symbols, then the same fixes over all;
 *   3. the .plt entries, with no fixes.
 *
 * The sizing and alias rules are those of symtab.h.
 *
 * The tree itself is built only when a lookup needs its shape.  The
 * symbols are kept as an array sorted by (start, order of insertion) --
 * the tree's in-order, erasures included -- sorted once per step, and
 * the fixes run over it.  A lookup finds the last symbol starting at or
 * below the address: when no symbol before it reaches the address, the
 * tree's search (which passes that symbol on its way, and can stop at no
 * other) answers the same, it or none.  Only where symbols overlap there
 * is the tree built, by replaying the same inserts and erases.
 *
 * Names are shown demangled (symbols/demangle.h), as perf shows them, but
 * a file's symbols mostly go unasked: a name inserted as the file has it
 * is demangled the first time it is asked for (or compared, for aliases),
 * and kept.
 */
#ifndef PV_SYMTREE_H
#define PV_SYMTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symtab.h"

typedef struct pv_symtree_node {
    uint64_t start, end;
    uint32_t name;              /* offset in the tree's names */
    uint8_t binding;
    bool red;
    bool mangled;               /* the name may demangle: done when asked */
    int32_t left, right, parent;    /* node indices, -1 for none */
} pv_symtree_node;

typedef struct pv_symtree {
    pv_symtree_node *nodes;     /* erased nodes stay, unlinked */
    size_t nr, cap;
    int32_t root;
    char *names;
    size_t names_len, names_cap;
    size_t live;                /* nodes in the tree */
    bool failed;
    /* per node: its name demangled once asked (NULL: not yet, or the
     * same as the name); shown_cap entries */
    char **shown;
    size_t shown_cap;
    bool demangle_now;          /* tests: names demangled as inserted, the
                                   twin of demangling when asked */
    bool eager_tree;            /* tests: the tree built as inserted and
                                   searched, the twin of the sorted array */
    /* the sorted array: live nodes in (start, node) order, each with the
     * furthest end of those before it (reach, once ready); nodes from
     * `sorted_to` on are not in it yet */
    struct pv_symtree_entry { uint64_t start, reach; int32_t node; } *sorted;
    size_t nr_sorted, sorted_to;
    bool reach_ready;
    /* what the tree's replay needs: each fixup's node count and erasures */
    int32_t *erased;
    size_t nr_erased, cap_erased;
    struct pv_symtree_step { size_t nodes, erased; } *steps;
    size_t nr_steps, cap_steps;
    bool tree_built;            /* root and the links hold the tree */
} pv_symtree;

void pv_symtree_init(pv_symtree *t);
void pv_symtree_free(pv_symtree *t);
void pv_symtree_insert(pv_symtree *t, uint64_t start, uint64_t size, uint8_t binding,
                       const char *name, size_t name_len);
/* The same for a name as the file has it (NUL-terminated): shown
 * demangled. */
void pv_symtree_insert_mangled(pv_symtree *t, uint64_t start, uint64_t size, uint8_t binding,
                               const char *name);
/* Sizes size-0 symbols and drops aliases (symtab.h's rules), over the whole tree. */
void pv_symtree_fixup(pv_symtree *t);
/* perf's search from the root; -1 when no symbol holds addr. */
int32_t pv_symtree_find(pv_symtree *t, uint64_t addr);

/* The node's name as perf shows it; the pointer holds for the tree's life. */
const char *pv_symtree_name(pv_symtree *t, int32_t node);

#endif
