/*
 * Unit tests of src/symbols/addr_space.c and src/symbols/symtab.c: address spaces replayed
 * from hand-made MMAP/COMM/FORK events (an exec's new maps replacing the old, fork copying
 * them, threads sharing them, kernel maps, overlaps, events out of order,
 * names inherited through forks), symbol tables with perf's rules for
 * sizes and aliases (also in the red-black tree that mirrors perf's), and
 * which callchains perf discards as corrupt.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/addr_space.h"
#include "decode/callchain.h"
#include "symbols/symtab.h"
#include "symbols/symtree.h"
#include "unit_check.h"


/* dso number of the map at (pid, addr, key), or -1 */
static long dso_at(pv_aspace *as, int32_t pid, uint64_t addr, uint64_t key)
{
    const pv_map *m = pv_aspace_find(as, pid, addr, key);
    return m ? (long)m->dso : -1;
}

static void comm(pv_aspace *as, uint64_t key, int32_t pid, int32_t tid, const char *name, bool exec)
{
    pv_aspace_add_comm(as, key, pid, tid, name, strlen(name), exec);
}

static void test_exec_fork_threads(void)
{
    pv_aspace as;
    pv_aspace_init(&as);
    /* given out of order on purpose: the build sorts by key */
    pv_aspace_add_mmap(&as, 50, 100, 0x1000, 0x1000, 0, 2);        /* after exec */
    pv_aspace_add_mmap(&as, 10, 100, 0x1000, 0x1000, 0, 1);        /* before exec */
    pv_aspace_add_mmap(&as, 10, 100, 0x8000, 0x1000, 0, 3);        /* not replaced by a new map */
    comm(&as, 5, 100, 100, "sh", false);
    comm(&as, 40, 100, 100, "prog", true);
    pv_aspace_add_fork(&as, 20, 200, 100, 200, 100);               /* process 200 from 100 */
    pv_aspace_add_mmap(&as, 30, 200, 0x1800, 0x100, 0x800, 4);     /* child maps over part of a copy */
    pv_aspace_add_fork(&as, 25, 100, 100, 101, 100);               /* thread 101 of 100 */
    pv_aspace_add_mmap(&as, 0, PV_KERNEL_PID, 0xffff0000, 0x10000, 0xffff0000, 9);
    check(pv_aspace_apply(&as, PV_KEY_NEVER), "build", "failed");

    check(dso_at(&as, 100, 0x1800, 20) == 1, "map before exec", "got %ld", dso_at(&as, 100, 0x1800, 20));
    check(dso_at(&as, 100, 0x1800, 60) == 2, "exec replaces the maps, new map after", "got %ld",
          dso_at(&as, 100, 0x1800, 60));
    check(dso_at(&as, 100, 0x8000, 45) == 3,
          "exec keeps old maps the new image does not cover (a sample during exec unwinds there)",
          "got %ld", dso_at(&as, 100, 0x8000, 45));
    check(dso_at(&as, 100, 0x8000, 39) == 3, "a map lives until the exec", "got %ld",
          dso_at(&as, 100, 0x8000, 39));
    check(dso_at(&as, 100, 0x1800, 5) == -1, "nothing before the first MMAP", "got %ld",
          dso_at(&as, 100, 0x1800, 5));
    check(dso_at(&as, 200, 0x8000, 60) == 3, "fork copies the parent's maps, kept after its exec",
          "got %ld", dso_at(&as, 200, 0x8000, 60));
    check(dso_at(&as, 200, 0x1200, 35) == 1, "child: the copied map outside its own new map",
          "got %ld", dso_at(&as, 200, 0x1200, 35));
    check(dso_at(&as, 200, 0x1850, 35) == 4, "child: a later overlapping map wins", "got %ld",
          dso_at(&as, 200, 0x1850, 35));
    check(dso_at(&as, 200, 0x1850, 25) == 1, "child: before its own map, the copy", "got %ld",
          dso_at(&as, 200, 0x1850, 25));
    check(dso_at(&as, 200, 0x1000, 15) == -1, "child: no maps before its fork", "got %ld",
          dso_at(&as, 200, 0x1000, 15));
    check(dso_at(&as, PV_KERNEL_PID, 0xffff1234, 99) == 9, "kernel maps under pid -1", "got %ld",
          dso_at(&as, PV_KERNEL_PID, 0xffff1234, 99));

    const char *c = pv_aspace_comm(&as, 100, 30);
    check(c && strcmp(c, "sh") == 0, "comm before exec", "got %s", c ? c : "NULL");
    c = pv_aspace_comm(&as, 100, 45);
    check(c && strcmp(c, "prog") == 0, "comm after exec", "got %s", c ? c : "NULL");
    c = pv_aspace_comm(&as, 101, 60);
    check(c && strcmp(c, "sh") == 0, "a thread inherits its creator's name at the fork", "got %s",
          c ? c : "NULL");
    c = pv_aspace_comm(&as, 200, 22);
    check(c && strcmp(c, "sh") == 0, "a forked process inherits the name", "got %s", c ? c : "NULL");
    check(pv_aspace_comm(&as, 100, 1) == NULL, "no name before the first COMM", "named");
    check(pv_aspace_comm(&as, 555, 1) == NULL, "unknown thread has no name", "named");
    pv_aspace_free(&as);
}

static void test_pid_reuse_and_cover(void)
{
    pv_aspace as;
    pv_aspace_init(&as);
    pv_aspace_add_mmap(&as, 1, 1, 0x4000, 0x1000, 0, 1);
    pv_aspace_add_mmap(&as, 2, 300, 0x4000, 0x1000, 0, 5);
    pv_aspace_add_fork(&as, 10, 300, 1, 300, 1);                    /* pid 300 reused */
    pv_aspace_add_mmap(&as, 20, 1, 0x3000, 0x3000, 0, 6);          /* covers map 1 entirely */
    check(pv_aspace_apply(&as, PV_KEY_NEVER), "build (reuse)", "failed");
    check(dso_at(&as, 300, 0x4100, 5) == 5, "the old process's map before the reuse", "got %ld",
          dso_at(&as, 300, 0x4100, 5));
    check(dso_at(&as, 300, 0x4100, 15) == 1, "a reused pid gets its new parent's maps", "got %ld",
          dso_at(&as, 300, 0x4100, 15));
    check(dso_at(&as, 1, 0x4100, 25) == 6, "a covering map replaces the old", "got %ld",
          dso_at(&as, 1, 0x4100, 25));
    check(dso_at(&as, 1, 0x4100, 15) == 1, "and the old one held until then", "got %ld",
          dso_at(&as, 1, 0x4100, 15));
    pv_aspace_free(&as);
}

static void test_symtab(void)
{
    pv_symtab t;
    pv_symtab_init(&t);
    pv_symtab_add(&t, 0x100, 0x10, PV_BIND_GLOBAL, "sized", 5, false);
    pv_symtab_add(&t, 0x200, 0, PV_BIND_GLOBAL, "unsized", 7, false);
    pv_symtab_add(&t, 0x300, 0x20, PV_BIND_WEAK, "weak_alias", 10, false);
    pv_symtab_add(&t, 0x300, 0x20, PV_BIND_GLOBAL, "__strong", 8, false);
    pv_symtab_add(&t, 0x300, 0x20, PV_BIND_GLOBAL, "strong", 6, false);
    pv_symtab_add(&t, 0x400, 0, PV_BIND_LOCAL, "last", 4, false);
    check(pv_symtab_finish(&t, false), "symtab finish", "failed");
    const pv_symbol *s = pv_symtab_find(&t, 0x10f);
    check(s && strcmp(pv_symbol_name(&t, s), "sized") == 0, "inside a sized symbol", "miss");
    check(pv_symtab_find(&t, 0x110) == NULL, "past a sized symbol's end: none", "found");
    s = pv_symtab_find(&t, 0x2ff);
    check(s && strcmp(pv_symbol_name(&t, s), "unsized") == 0, "a size-0 symbol reaches the next",
          "miss");
    s = pv_symtab_find(&t, 0x310);
    check(s && strcmp(pv_symbol_name(&t, s), "strong") == 0,
          "aliases: global over weak, fewer underscores", "got %s", s ? pv_symbol_name(&t, s) : "NULL");
    s = pv_symtab_find(&t, 0x1fff);
    check(s && strcmp(pv_symbol_name(&t, s), "last") == 0, "the last size-0 symbol ends a page on",
          "miss");
    check(pv_symtab_find(&t, 0x2000) == NULL, "and not further", "found");
    check(pv_symtab_find(&t, 0x50) == NULL, "below the first symbol: none", "found");
    pv_symtab_free(&t);

    /* kallsyms: the last kernel symbol before a module's stops a page on */
    pv_symtab_init(&t);
    pv_symtab_add(&t, 0xffffffff81000000u, 0, PV_BIND_GLOBAL, "_text", 5, false);
    pv_symtab_add(&t, 0xffffffff81001000u, 0, PV_BIND_GLOBAL, "k_last", 6, false);
    pv_symtab_add(&t, 0xffffffffc0000000u, 0, PV_BIND_GLOBAL, "mod_fn", 6, true);
    check(pv_symtab_finish(&t, true), "kallsyms finish", "failed");
    check(pv_symtab_find(&t, 0xffffffff81003000u) == NULL, "no kernel symbol over the module gap",
          "found");
    s = pv_symtab_find(&t, 0xffffffff81001800u);
    check(s && strcmp(pv_symbol_name(&t, s), "k_last") == 0, "the last kernel symbol's page",
          "miss");
    pv_symtab_free(&t);
}

static void test_callchain_markers(void)
{
    /* as the kernel wrote one for a task whose user stack walk read -1 */
    uint64_t chain[] = { (uint64_t)-128, 0xffffffff816f7c93u, (uint64_t)-512, 0x7f5ecb6d20ffu,
                         (uint64_t)-1 };
    pv_sample s;
    memset(&s, 0, sizeof s);
    s.callchain = (const uint8_t *)chain;
    s.callchain_nr = 5;
    check(pv_callchain_is_corrupt(&s), "an unknown context value makes the chain corrupt", "not");
    s.callchain_nr = 4;
    check(!pv_callchain_is_corrupt(&s), "kernel and user markers are fine", "corrupt");
    check(pv_callchain_marker_cpumode((uint64_t)-128) == 1 &&
          pv_callchain_marker_cpumode((uint64_t)-512) == 2 &&
          pv_callchain_marker_cpumode((uint64_t)-32) == 3 &&
          pv_callchain_marker_cpumode((uint64_t)-2176) == 0,
          "markers: kernel, user, hypervisor; guest ones are not perf's", "wrong");
}

/* black height of the subtree, or -1 when a red-black rule is broken */
static int black_height(const pv_symtree *t, int32_t x, int32_t parent, uint64_t lo, uint64_t hi)
{
    if (x < 0)
        return 1;
    const pv_symtree_node *n = &t->nodes[x];
    if (n->parent != parent || n->start < lo || n->start > hi)
        return -1;
    if (n->red && ((n->left >= 0 && t->nodes[n->left].red) || (n->right >= 0 && t->nodes[n->right].red)))
        return -1;
    int l = black_height(t, n->left, x, lo, n->start);
    int r = black_height(t, n->right, x, n->start, hi);
    if (l < 0 || r < 0 || l != r)
        return -1;
    return l + !n->red;
}

static void test_symtree(void)
{
    pv_symtree t;
    pv_symtree_init(&t);
    /* many symbols, with aliases (same start) every few */
    uint64_t seed = 12345;
    for (int i = 0; i < 3000; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t start = 0x1000 + ((seed >> 33) % 2000) * 16;
        char name[32];
        int n = snprintf(name, sizeof name, "f%d", i);
        pv_symtree_insert(&t, start, (seed >> 20) % 3 ? 16 : 0, (uint8_t)(seed % 3), name, (size_t)n);
    }
    check(black_height(&t, t.root, -1, 0, UINT64_MAX) > 0, "symtree: a red-black tree after inserts",
          "broken");
    pv_symtree_fixup(&t);
    check(black_height(&t, t.root, -1, 0, UINT64_MAX) > 0,
          "symtree: still red-black after erasing aliases", "broken");
    /* in order, starts strictly increase: one symbol per address */
    bool increasing = true;
    size_t seen = 0;
    uint64_t last = 0;
    for (uint64_t a = 0x1000; a < 0x1000 + 2000 * 16; a += 16) {
        int32_t x = pv_symtree_find(&t, a);
        if (x >= 0 && t.nodes[x].start == a) {
            seen++;
            if (a < last)
                increasing = false;
            last = a;
        }
    }
    check(increasing && seen == t.live, "symtree: every live symbol is found at its start",
          "%zu found, %zu live", seen, t.live);
    pv_symtree_free(&t);

    /* perf's overlap: _init sized to the next symbol before the .plt
     * entries arrive; a lookup returns the holder it meets first from the
     * root, so the tree's shape decides */
    pv_symtree_init(&t);
    pv_symtree_insert(&t, 0x1000, 0, PV_BIND_GLOBAL, "_init", 5);
    pv_symtree_insert(&t, 0x1100, 0x20, PV_BIND_GLOBAL, "main", 4);
    pv_symtree_fixup(&t);
    check(t.nodes[0].end == 0x1100, "symtree: a size-0 symbol reaches the next", "end %llx",
          (unsigned long long)t.nodes[0].end);
    pv_symtree_insert(&t, 0x1030, 0x10, PV_BIND_GLOBAL, "puts@plt", 8);
    /* the insert rotated puts@plt to the root */
    int32_t x = pv_symtree_find(&t, 0x1034);
    check(x >= 0 && strcmp(pv_symtree_name(&t, x), "puts@plt") == 0 && x == t.root,
          "symtree: puts@plt, now the root, holds its entry", "got %s",
          x >= 0 ? pv_symtree_name(&t, x) : "none");
    x = pv_symtree_find(&t, 0x1010);
    check(x >= 0 && strcmp(pv_symtree_name(&t, x), "_init") == 0, "symtree: _init elsewhere",
          "got %s", x >= 0 ? pv_symtree_name(&t, x) : "none");
    pv_symtree_free(&t);

    pv_symtree_init(&t);
    pv_symtree_insert(&t, 0x1100, 0x20, PV_BIND_GLOBAL, "main", 4);
    pv_symtree_insert(&t, 0x1000, 0, PV_BIND_GLOBAL, "_init", 5);
    pv_symtree_insert(&t, 0x1200, 0x20, PV_BIND_GLOBAL, "other", 5);
    pv_symtree_fixup(&t);
    pv_symtree_insert(&t, 0x1030, 0x10, PV_BIND_GLOBAL, "puts@plt", 8);
    /* main at the root, _init below it, puts@plt a leaf under _init */
    x = pv_symtree_find(&t, 0x1034);
    check(x >= 0 && strcmp(pv_symtree_name(&t, x), "_init") == 0,
          "symtree: _init, met before the leaf puts@plt, wins as in perf", "got %s",
          x >= 0 ? pv_symtree_name(&t, x) : "none");
    pv_symtree_free(&t);
}

static void test_jit_map(void)
{
    char path[] = "/tmp/pv_jit_map_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        check(0, "jit map: temp file", "cannot create");
        return;
    }
    fputs("7f0000001000 40 LazyCompile:~foo bar.js:1\n0x7f0000002000 0x10 stub with 0x\nnot a line\n", f);
    fclose(f);
    pv_symtab t;
    pv_symtab_init(&t);
    bool ok = pv_symtab_load_jit_map(&t, path);
    remove(path);
    const pv_symbol *s1 = pv_symtab_find(&t, 0x7f000000103f);
    const pv_symbol *s2 = pv_symtab_find(&t, 0x7f0000002008);
    check(ok && s1 && strcmp(pv_symbol_name(&t, s1), "LazyCompile:~foo bar.js:1") == 0,
          "jit map: a name with spaces, hex without 0x", "miss");
    check(s2 && strcmp(pv_symbol_name(&t, s2), "stub with 0x") == 0, "jit map: hex with 0x", "miss");
    check(pv_symtab_find(&t, 0x7f0000001040) == NULL, "jit map: sizes are kept", "found");
    pv_symtab_free(&t);
}

static void test_empty(void)
{
    pv_aspace as;
    pv_aspace_init(&as);
    check(pv_aspace_apply(&as, PV_KEY_NEVER), "an empty address space builds", "failed");
    check(pv_aspace_find(&as, 1, 0x1000, 5) == NULL && pv_aspace_comm(&as, 1, 5) == NULL,
          "and holds nothing", "found");
    pv_aspace_free(&as);
}

/* Replaying in steps, as a scan reads the file: lookups up to the key
 * applied see every map fed with a key up to it, in key order. */
static void test_apply_in_steps(void)
{
    pv_aspace as;
    pv_aspace_init(&as);
    pv_aspace_add_mmap(&as, 10, 7, 0x1000, 0x1000, 0, 1);
    pv_aspace_add_mmap(&as, 30, 7, 0x1000, 0x1000, 0, 2);   /* fed early, replaces at 30 */
    comm(&as, 5, 7, 7, "first", false);
    check(pv_aspace_apply(&as, 20), "apply up to 20", "failed");
    check(dso_at(&as, 7, 0x1800, 15) == 1, "step 1: the map of key 10", "got %ld",
          dso_at(&as, 7, 0x1800, 15));
    check(dso_at(&as, 7, 0x1800, 35) == 1, "step 1: the map of key 30 waits", "got %ld",
          dso_at(&as, 7, 0x1800, 35));
    /* fed after the first step, with a key between the two maps */
    pv_aspace_add_mmap(&as, 25, 7, 0x1000, 0x1000, 0, 3);
    comm(&as, 28, 7, 7, "second", true);
    check(pv_aspace_apply(&as, 40), "apply up to 40", "failed");
    check(dso_at(&as, 7, 0x1800, 27) == 3, "step 2: the map fed late, by its key", "got %ld",
          dso_at(&as, 7, 0x1800, 27));
    check(dso_at(&as, 7, 0x1800, 35) == 2, "step 2: the latest key wins, not the latest fed",
          "got %ld", dso_at(&as, 7, 0x1800, 35));
    check(dso_at(&as, 7, 0x1800, 15) == 1, "step 2: earlier keys still answer", "got %ld",
          dso_at(&as, 7, 0x1800, 15));
    const char *c = pv_aspace_comm(&as, 7, 29);
    check(c && strcmp(c, "second") == 0, "step 2: names too", "got %s", c ? c : "NULL");
    c = pv_aspace_comm(&as, 7, 27);
    check(c && strcmp(c, "first") == 0, "step 2: the older name before it", "got %s", c ? c : "NULL");
    /* an event whose key is below what was applied (a file out of perf's
     * order) is replayed late: it wins where it overlaps */
    pv_aspace_add_mmap(&as, 12, 7, 0x1000, 0x800, 0, 4);
    check(pv_aspace_apply(&as, 40), "apply a late event", "failed");
    check(dso_at(&as, 7, 0x1200, 35) == 4, "a late event is replayed last", "got %ld",
          dso_at(&as, 7, 0x1200, 35));
    pv_aspace_free(&as);
}

/* A file that repeats its events (same keys) holds them once: after the
 * second copy (whose forks copy the maps the first one left to pid 1,
 * live until each child's own maps replace them), more copies add
 * nothing, and the name is stored once. */
static void test_repeated_events_held_once(void)
{
    pv_aspace as;
    pv_aspace_init(&as);
    size_t second = 0;
    for (int copy = 0; copy < 50; copy++) {
        for (int pid = 1; pid <= 100; pid++) {
            pv_aspace_add_fork(&as, 100 + pid, pid, 1, pid, 1);
            comm(&as, 200 + pid, pid, pid, "worker", true);
            for (int m = 0; m < 20; m++)
                pv_aspace_add_mmap(&as, 300 + pid, pid, 0x10000u * (m + 1), 0x1000, 0, (uint32_t)m);
        }
        check(pv_aspace_apply(&as, PV_KEY_NEVER), "apply a copy", "failed");
        if (copy == 1)
            second = pv_aspace_held(&as);
    }
    check(pv_aspace_held(&as) == second, "50 copies of the events hold what 2 do",
          "held %zu, after 2 copies %zu", pv_aspace_held(&as), second);
    check(as.names_len == sizeof "worker", "one name stored once", "%zu bytes", as.names_len);
    check(dso_at(&as, 42, 0x50800, 400) == 4, "and still answer", "got %ld",
          dso_at(&as, 42, 0x50800, 400));
    const char *c = pv_aspace_comm(&as, 42, 400);
    check(c && strcmp(c, "worker") == 0, "names too", "got %s", c ? c : "NULL");
    pv_aspace_free(&as);
}

/* Feeds the same maps and forks to two address spaces: one looked up
 * after every event (each lookup sorts only the maps added since the last
 * and merges them in), one only at the end (one whole sort, the slow
 * twin); every lookup over a grid of addresses and keys must agree. */
static void feed_mixed(pv_aspace *as, bool lookup_each, unsigned seed)
{
    uint64_t key = 1;
    for (int i = 0; i < 600; i++, key++) {
        seed = seed * 1103515245u + 12345u;
        int32_t pid = 100 + (int32_t)((seed >> 16) % 6);
        if ((seed >> 8) % 9 == 0) {
            int32_t child = 200 + (int32_t)((seed >> 12) % 40);
            pv_aspace_add_fork(as, key, child, pid, child, pid);
        } else {
            uint64_t start = 0x400000 + ((seed >> 4) % 64) * 0x1000;
            uint64_t len = (1 + (seed >> 20) % 8) * 0x1000;
            pv_aspace_add_mmap(as, key, pid, start, len, 0, (uint32_t)i);
        }
        pv_aspace_apply(as, key);
        if (lookup_each)
            (void)dso_at(as, pid, 0x400000 + ((seed >> 3) % 80) * 0x1000, key);
    }
}

/* What two address spaces' lookups over a grid of pids (children of
 * forks from 200 on), keys and addresses found. */
typedef struct twin_counts {
    long mismatches, found, children;
} twin_counts;

/* Feeds a and b as feed_mixed does with seed (each looked up after every
 * event or only at the end: lookup_each_a, lookup_each_b), b's forks
 * renumbered or not, and counts their lookups over the grid into n. */
static void compare_twins(unsigned seed, bool lookup_each_a, bool lookup_each_b, bool renumber_b,
                          twin_counts *n)
{
    pv_aspace a, b;
    pv_aspace_init(&a);
    pv_aspace_init(&b);
    b.renumber_forks = renumber_b;
    feed_mixed(&a, lookup_each_a, seed);
    feed_mixed(&b, lookup_each_b, seed);
    for (int32_t pid = 100; pid < 240; pid++)
        for (uint64_t key = 0; key <= 601; key += 7)
            for (uint64_t addr = 0x3ff000; addr < 0x450000; addr += 0x800) {
                long x = dso_at(&a, pid, addr, key), y = dso_at(&b, pid, addr, key);
                n->mismatches += x != y;
                n->found += x >= 0;
                n->children += x >= 0 && pid >= 200;
            }
    pv_aspace_free(&a);
    pv_aspace_free(&b);
}

static void test_merge_twin(void)
{
    twin_counts n = { 0, 0, 0 };
    for (unsigned seed = 1; seed <= 5; seed++)
        compare_twins(seed, true, false, false, &n);
    check(n.mismatches == 0 && n.found > 1000,
          "maps merged into the sorted run as lookups come find what one whole sort finds",
          "%ld lookups differ, %ld found", n.mismatches, n.found);
}

/* A fork's copies keep the parent's seqs, taken sorted; the twin gives
 * them new ones in the parent's order of replay and sorts them: the same
 * feeds (overlapping maps, forks of forks, reused pids) must answer
 * every lookup alike. */
static void test_fork_copies_twin(void)
{
    twin_counts n = { 0, 0, 0 };
    for (unsigned seed = 11; seed <= 16; seed++)
        compare_twins(seed, seed & 1, seed & 1, true, &n);
    check(n.mismatches == 0 && n.found > 1000 && n.children > 100,
          "a fork's copies keeping their seqs find what renumbered copies find",
          "%ld lookups differ, %ld found, %ld in children", n.mismatches, n.found, n.children);
}

/* Feeds maps and forks where keys repeat (several events at one key, some
 * events twice, stretches of keys again, pids reused), looking up as it
 * goes, pruning often. */
static void feed_repeating(pv_aspace *as, unsigned seed)
{
    as->prune_floor = as->prune_at = 8;
    uint64_t key = 1;
    for (int i = 0; i < 1500; i++) {
        seed = seed * 1103515245u + 12345u;
        key += (seed >> 7) % 3 == 0;            /* a third of the events move the key on */
        if (i % 250 == 249)
            key -= 60;                          /* events again, late: maps hide others */
        int32_t pid = 100 + (int32_t)((seed >> 16) % 5);
        int copies = (seed >> 24) % 4 == 0 ? 2 : 1;
        for (int c = 0; c < copies; c++) {
            if ((seed >> 9) % 7 == 0) {
                int32_t child = 200 + (int32_t)((seed >> 12) % 12);
                pv_aspace_add_fork(as, key, child, pid, child, pid);
            } else {
                int32_t owner = (seed >> 5) % 5 == 0 ? 200 + (int32_t)((seed >> 11) % 12) : pid;
                uint64_t start = 0x400000 + ((seed >> 4) % 24) * 0x1000;
                uint64_t len = (1 + (seed >> 20) % 4) * 0x1000;
                pv_aspace_add_mmap(as, key, owner, start, len, 0, (uint32_t)i);
            }
        }
        pv_aspace_apply(as, key);
        (void)dso_at(as, pid, 0x400000 + ((seed >> 3) % 30) * 0x1000, key);
    }
}

/* Pruning only the processes where a map may hide another (the rest have
 * nothing to drop) answers as pruning every changed process, the twin. */
static void test_prune_twin(void)
{
    long mismatches = 0, found = 0;
    size_t held_apart = 0;
    for (unsigned seed = 21; seed <= 26; seed++) {
        pv_aspace some, all;
        pv_aspace_init(&some);
        pv_aspace_init(&all);
        all.prune_all = true;
        feed_repeating(&some, seed);
        feed_repeating(&all, seed);
        held_apart += pv_aspace_held(&some) != pv_aspace_held(&all);
        for (int32_t pid = 100; pid < 212; pid++)
            for (uint64_t key = 0; key <= 1100; key += 3)
                for (uint64_t addr = 0x3ff000; addr < 0x41c000; addr += 0x800) {
                    long a = dso_at(&some, pid, addr, key), b = dso_at(&all, pid, addr, key);
                    mismatches += a != b;
                    found += a >= 0;
                }
        pv_aspace_free(&some);
        pv_aspace_free(&all);
    }
    check(mismatches == 0 && found > 10000,
          "pruning only where a map may hide another finds what pruning every process finds",
          "%ld lookups differ, %ld found", mismatches, found);
    check(held_apart == 0, "and holds as many maps", "%zu feeds held more", held_apart);
}

/* Moves the epoch on by n, dropping what is due. */
static void pass_epochs(pv_aspace *as, unsigned n)
{
    while (n--) {
        as->epoch++;
        pv_aspace_drop_exited(as);
    }
}

/* A process's maps go exit_grace epochs after its leader's EXIT (or its
 * last lookup); a lookup or a fork the dropped maps might have answered
 * sets missing (the symbolizer then replays keeping them all, the twin
 * t_exited_maps.sh compares with); a reused pid's new maps answer. */
static void test_exited_dropped(void)
{
    pv_aspace as;
    pv_aspace_init(&as);
    as.drop_exited = true;
    as.exit_grace = 2;
    pv_aspace_add_mmap(&as, 1, 10, 0x1000, 0x1000, 0, 1);
    pv_aspace_add_fork(&as, 2, 20, 10, 20, 10);
    pv_aspace_add_mmap(&as, 3, 20, 0x5000, 0x1000, 0, 2);
    pv_aspace_add_exit(&as, 4, 20, 21);             /* a thread's exit: kept */
    pv_aspace_add_exit(&as, 5, 20, 20);
    pv_aspace_apply(&as, 5);
    size_t held = pv_aspace_held(&as);
    pass_epochs(&as, 1);
    check(dso_at(&as, 20, 0x5800, 5) == 2 && !as.missing, "an exited process's maps stay within the grace",
          "got %ld", dso_at(&as, 20, 0x5800, 5));
    pass_epochs(&as, 1);
    check(pv_aspace_held(&as) == held, "a lookup during the grace moves it on", "held %zu of %zu",
          pv_aspace_held(&as), held);
    pass_epochs(&as, 2);
    check(pv_aspace_held(&as) == held - 2 && as.nr_dropped == 2, "then its maps go",
          "held %zu of %zu, %zu dropped", pv_aspace_held(&as), held, as.nr_dropped);
    check(dso_at(&as, 20, 0x5800, 6) == -1 && as.missing, "a lookup they might answer is missing",
          "missing %d", as.missing);
    as.missing = false;
    check(dso_at(&as, 10, 0x1800, 6) == 1 && !as.missing, "the parent's stay", "missing %d",
          as.missing);
    /* the pid reused: the old maps end at the fork, the new ones answer after it */
    pv_aspace_add_fork(&as, 8, 20, 10, 20, 10);
    pv_aspace_apply(&as, 8);
    check(dso_at(&as, 20, 0x1800, 9) == 1 && !as.missing, "a reused pid's copies answer",
          "missing %d", as.missing);
    check(dso_at(&as, 20, 0x5800, 7) == -1 && as.missing, "before its fork the dropped ones are missing",
          "missing %d", as.missing);
    as.missing = false;
    /* a fork from a process whose maps went */
    pv_aspace_add_mmap(&as, 10, 40, 0x9000, 0x1000, 0, 4);
    pv_aspace_add_exit(&as, 11, 40, 40);
    pv_aspace_apply(&as, 11);
    pass_epochs(&as, 2);
    pv_aspace_add_fork(&as, 12, 41, 40, 41, 40);
    pv_aspace_apply(&as, 12);
    check(as.missing, "a fork from a dropped process is missing its copies", "not missing");
    pv_aspace_free(&as);
}

/* Lookups through the stride index find what a bisection of the whole
 * table finds, at every symbol's edges and between them, in tables of
 * every size around the stride's multiples. */
static void test_symtab_index_twin(void)
{
    long mismatches = 0, found = 0, indexed = 0;
    unsigned seed = 7;
    for (size_t nr = 1; nr <= 5 * PV_SYMTAB_STRIDE + 3; nr += 3) {
        pv_symtab t;
        pv_symtab_init(&t);
        uint64_t at = 0x1000;
        for (size_t i = 0; i < nr; i++) {
            seed = seed * 1103515245u + 12345u;
            at += (seed >> 16) % 64;        /* some symbols share a start */
            uint64_t size = (seed >> 8) % 3 == 0 ? 0 : (seed >> 20) % 96;
            char name[16];
            snprintf(name, sizeof name, "f%zu", i);
            pv_symtab_add(&t, at, size, PV_BIND_GLOBAL, name, strlen(name), false);
        }
        check(pv_symtab_finish(&t, false), "finish a table", "failed");
        indexed += t.index != NULL;
        for (uint64_t addr = 0xf00; addr < at + 0x200; addr++) {
            const pv_symbol *a = pv_symtab_find(&t, addr), *b = pv_symtab_find_bisecting(&t, addr);
            mismatches += a != b;
            found += a != NULL;
        }
        pv_symtab_free(&t);
    }
    check(mismatches == 0 && found > 10000 && indexed > 10,
          "symbol lookups through the stride index find what bisecting the table finds",
          "%ld differ, %ld found, %ld tables indexed", mismatches, found, indexed);
}

int main(void)
{
    test_symtab_index_twin();
    test_merge_twin();
    test_fork_copies_twin();
    test_prune_twin();
    test_exited_dropped();
    test_apply_in_steps();
    test_repeated_events_held_once();
    test_empty();
    test_jit_map();
    test_symtree();
    test_callchain_markers();
    test_exec_fork_threads();
    test_pid_reuse_and_cover();
    test_symtab();
    return failures != 0;
}
