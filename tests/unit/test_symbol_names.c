/*
 * Unit tests of the names of ELF symbols (src/symbols/symtree.c,
 * demangle.c, elf_image.c): names demangled when first asked for, against
 * their twin demangled as inserted, at every symbol boundary of real
 * libraries (C, C++ and the compilers' big tables); the sorted array
 * searched (and the tree built only where symbols overlap) against its
 * twin, the red-black tree built as inserted, at the same boundaries and
 * over random tables with overlaps, aliases and size-0 symbols;
 * pv_demangle's shortcut (names neither demangler takes are not handed to
 * libiberty) against pv_demangle_every over every one of their names; and
 * a name asked for out of memory: the failure counted, the name demangled
 * when asked again.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pv_alloc.h"
#include "symbols/demangle.h"
#include "symbols/elf_image.h"
#include "symbols/symtree.h"
#include "unit_check.h"

static const char *const libraries[] = {
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/lib/x86_64-linux-gnu/libstdc++.so.6",
    "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
    "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus",
    "/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
    "/usr/bin/sqlite3",
};

static bool same_text(const char *a, const char *b)
{
    return (a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0);
}

/* pv_demangle and its twin on one name; false (and a message) on a difference */
static bool demangles_alike(const char *name, const char *where)
{
    char *fast = pv_demangle(name), *every = pv_demangle_every(name);
    bool same = same_text(fast, every);
    if (!same)
        printf("# %s: %s demangles to %s, its twin to %s\n", where, name, fast ? fast : "(none)",
               every ? every : "(none)");
    free(fast);
    free(every);
    return same;
}

static void test_shortcut_names(void)
{
    static const char *const names[] = {
        "_ZN3foo3barEv", "_ZN9hot_names4main17h088665bc2f64c49bE", "_RNvCs1234_9hot_names4main",
        "_GLOBAL__sub_I_main", "_GLOBAL__D_x", "_GLOBAL__I_x", "_GLOBAL_.I_x", "_GLOBAL_$D_x",
        "_Z", "_ZN", "_R", "_G", "_", "", "ZN3foo3barEv", "__ZN3foo3barEv", "_Z3foov",
        "main", "__libc_start_main", "_start", "_dl_start", "PyInit__struct", "_PyObject_New",
        "__RNvCs1234_9hot_names4main", "_ZSt4cout", "_ZTV3Foo", "_ZTHN3foo1xE",
    };
    bool all = true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        all &= demangles_alike(names[i], "hand-made");
    check(all, "demangle: the shortcut answers as libiberty on hand-made names", "see above");
}

/* The symbol at addr in t: its name, start and end, or "(none)". */
static void describe(pv_symtree *t, uint64_t addr, char *out, size_t size)
{
    int32_t x = pv_symtree_find(t, addr);
    if (x < 0)
        snprintf(out, size, "(none)");
    else
        snprintf(out, size, "%s [%llx, %llx)", pv_symtree_name(t, x),
                 (unsigned long long)t->nodes[x].start, (unsigned long long)t->nodes[x].end);
}

/* Compares the lookups of two tables read alike at every boundary of
 * a's symbols (and one address inside each); how many differ (the first
 * few shown). */
static size_t differences(pv_symtree *a, pv_symtree *b, const char *what, const char *a_name,
                          const char *b_name)
{
    size_t differ = 0;
    for (size_t i = 0; i < a->nr; i++) {
        const pv_symtree_node *n = &a->nodes[i];
        const uint64_t at[] = { n->start - 1, n->start, n->start + (n->end - n->start) / 2,
                                n->end - 1, n->end };
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            char x[1024], y[1024];
            describe(a, at[k], x, sizeof x);
            describe(b, at[k], y, sizeof y);
            if (strcmp(x, y) != 0 && differ++ < 5)
                printf("# %s at %llx: %s %s, %s %s\n", what, (unsigned long long)at[k], a_name, x,
                       b_name, y);
        }
    }
    return differ;
}

/* Tables of random symbols (dense starts, so that many share one;
 * sizes 0 or reaching over others; three fixed steps as the ELF reader
 * makes them), the sorted array against the tree built as inserted. */
static void test_random_tables(void)
{
    unsigned seed = 12345;
    size_t differ = 0, with_tree = 0;
    for (int round = 0; round < 300; round++) {
        pv_symtree flat, tree;
        pv_symtree_init(&flat);
        pv_symtree_init(&tree);
        tree.eager_tree = true;
        int n = 1 + (int)(rand_r(&seed) % 60);
        uint64_t span = 16 + rand_r(&seed) % 400;
        for (int step = 0; step < 3; step++) {
            for (int i = 0; i < n; i++) {
                uint64_t start = 0x1000 + rand_r(&seed) % span;
                unsigned kind = rand_r(&seed) % 4;
                uint64_t size = kind == 0 ? 0 : kind == 3 ? rand_r(&seed) % span : (uint64_t)(rand_r(&seed) % 8);
                uint8_t binding = (uint8_t)(rand_r(&seed) % 3);
                char name[32];
                snprintf(name, sizeof name, "%.*s%c%d", (int)(rand_r(&seed) % 3), "__",
                         'a' + (int)(rand_r(&seed) % 3), (int)(rand_r(&seed) % 4));
                pv_symtree_insert(&flat, start, size, binding, name, strlen(name));
                pv_symtree_insert(&tree, start, size, binding, name, strlen(name));
            }
            if (step < 2) {
                pv_symtree_fixup(&flat);
                pv_symtree_fixup(&tree);
            }
        }
        differ += flat.live != tree.live;
        for (uint64_t addr = 0xff0; addr < 0x1000 + 2 * span + 0x3000; addr++) {
            char x[256], y[256];
            describe(&flat, addr, x, sizeof x);
            describe(&tree, addr, y, sizeof y);
            if (strcmp(x, y) != 0 && differ++ < 5)
                printf("# random table %d at %llx: sorted array %s, tree %s\n", round,
                       (unsigned long long)addr, x, y);
        }
        with_tree += flat.tree_built;
        pv_symtree_free(&flat);
        pv_symtree_free(&tree);
    }
    check(differ == 0 && with_tree > 0 && with_tree < 300,
          "symbol tables: the sorted array answers as the tree built as inserted, on 300 random "
          "tables with overlaps and aliases",
          "%zu differ; %zu of 300 built the tree", differ, with_tree);
}

static void test_library(const char *path)
{
    if (access(path, R_OK) != 0) {
        printf("ok - symbol names of %s # SKIP input absent: %s\n", path, path);
        return;
    }
    pv_symtree lazy, eager;
    pv_symtree_init(&lazy);
    pv_symtree_init(&eager);
    eager.demangle_now = true;
    bool read = pv_elf_read_symbols(path, path, &lazy) && pv_elf_read_symbols(path, path, &eager);
    char what[512];
    snprintf(what, sizeof what, "symbol names of %s: both trees read", path);
    check(read && lazy.nr == eager.nr && lazy.live == eager.live, what, "%s: read %d, %zu and %zu nodes", path, read, lazy.nr,
          eager.nr);
    /* the raw names of every symbol, through the shortcut and without */
    bool alike = true;
    for (size_t i = 0; i < lazy.nr; i++)
        alike &= demangles_alike(lazy.names + lazy.nodes[i].name, path);
    snprintf(what, sizeof what, "demangle: the shortcut answers as libiberty on every symbol of %s",
             path);
    check(alike, what, "see above");
    /* every boundary of every symbol, erased ones included */
    size_t differ = 0;
    for (size_t i = 0; i < lazy.nr && read && lazy.nr == eager.nr; i++) {
        const uint64_t at[] = { lazy.nodes[i].start - 1, lazy.nodes[i].start,
                                lazy.nodes[i].end - 1, lazy.nodes[i].end };
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            char a[1024], b[1024];
            describe(&lazy, at[k], a, sizeof a);
            describe(&eager, at[k], b, sizeof b);
            if (strcmp(a, b) != 0 && differ++ < 5)
                printf("# %s at %llx: %s, demangled at once %s\n", path,
                       (unsigned long long)at[k], a, b);
        }
    }
    snprintf(what, sizeof what,
             "symbol names of %s: demangled when asked, as demangled at once, at every boundary",
             path);
    check(differ == 0, what, "%zu differ", differ);
    /* the sorted array against the tree built as inserted */
    pv_symtree tree;
    pv_symtree_init(&tree);
    tree.eager_tree = true;
    bool tree_read = pv_elf_read_symbols(path, path, &tree);
    differ = tree_read && tree.nr == lazy.nr && tree.live == lazy.live
                 ? differences(&tree, &lazy, path, "tree", "sorted array")
                 : 1;
    snprintf(what, sizeof what,
             "symbol tables of %s: the sorted array (%s) answers as the tree at every boundary",
             path, lazy.tree_built ? "its tree built where symbols overlap" : "no tree built");
    check(differ == 0, what, "%zu differ", differ);
    pv_symtree_free(&tree);
    pv_symtree_free(&lazy);
    pv_symtree_free(&eager);
}

static bool fail_every(void *arg)
{
    (void)arg;
    return true;
}

/* Node x's name asked with every allocation failing, then again; false
 * (and a message) unless the first counted a failure and the second is
 * want. */
static bool asked_out_of_memory(pv_symtree *t, int32_t x, const char *want)
{
    unsigned long before = pv_alloc_failures();
    pv_alloc_set_failure(fail_every, NULL);
    const char *starved = pv_symtree_name(t, x);
    pv_alloc_set_failure(NULL, NULL);
    bool counted = pv_alloc_failures() != before;
    const char *again = pv_symtree_name(t, x);
    if (!counted || strcmp(again, want) != 0)
        printf("# node %d: %s out of memory (failure %scounted), then %s\n", (int)x, starved,
               counted ? "" : "not ", again);
    return counted && strcmp(again, want) == 0;
}

static void test_out_of_memory(void)
{
    pv_symtree t;
    pv_symtree_init(&t);
    pv_symtree_insert_mangled(&t, 0x1000, 16, PV_BIND_GLOBAL, "_ZN3foo3barEv");
    pv_symtree_insert_mangled(&t, 0x2000, 16, PV_BIND_GLOBAL, "_ZN3baz3quxEv");
    /* the first name asked for has no slot yet; the second one has, and
     * its demangling runs out */
    check(asked_out_of_memory(&t, 0, "foo::bar"),
          "symbol names: no memory for the demangled names' slots fails the query, not the name",
          "see above");
    check(asked_out_of_memory(&t, 1, "baz::qux"),
          "symbol names: no memory to demangle a name fails the query, not the name", "see above");
    pv_symtree_free(&t);
}

int main(void)
{
    test_shortcut_names();
    test_random_tables();
    test_out_of_memory();
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++)
        test_library(libraries[i]);
    return failures != 0;
}
