#include "symbols/symtree.h"
#include "symbols/demangle.h"
#include "base/pv_alloc.h"
#include "base/pv_array.h"

#include <stdlib.h>
#include <string.h>

#define NIL (-1)

void pv_symtree_init(pv_symtree *t)
{
    memset(t, 0, sizeof *t);
    t->root = NIL;
}

void pv_symtree_free(pv_symtree *t)
{
    for (size_t i = 0; i < t->shown_cap; i++)
        free(t->shown[i]);
    free(t->shown);
    free(t->nodes);
    free(t->names);
    free(t->sorted);
    free(t->erased);
    free(t->steps);
    pv_symtree_init(t);
}

#define N(i) (t->nodes[i])

static bool is_red(const pv_symtree *t, int32_t i)
{
    return i != NIL && N(i).red;
}

/* Puts `to` where `from` hangs under parent (or at the root). */
static void replace_child(pv_symtree *t, int32_t from, int32_t to, int32_t parent)
{
    if (parent == NIL)
        t->root = to;
    else if (N(parent).left == from)
        N(parent).left = to;
    else
        N(parent).right = to;
}

static void rotate_left(pv_symtree *t, int32_t x)
{
    int32_t y = N(x).right;
    N(x).right = N(y).left;
    if (N(y).left != NIL)
        N(N(y).left).parent = x;
    N(y).parent = N(x).parent;
    replace_child(t, x, y, N(x).parent);
    N(y).left = x;
    N(x).parent = y;
}

static void rotate_right(pv_symtree *t, int32_t x)
{
    int32_t y = N(x).left;
    N(x).left = N(y).right;
    if (N(y).right != NIL)
        N(N(y).right).parent = x;
    N(y).parent = N(x).parent;
    replace_child(t, x, y, N(x).parent);
    N(y).right = x;
    N(x).parent = y;
}

static void insert_fixup(pv_symtree *t, int32_t z)
{
    while (is_red(t, N(z).parent)) {
        int32_t p = N(z).parent, g = N(p).parent;
        if (p == N(g).left) {
            int32_t uncle = N(g).right;
            if (is_red(t, uncle)) {
                N(p).red = N(uncle).red = false;
                N(g).red = true;
                z = g;
                continue;
            }
            if (z == N(p).right) {
                z = p;
                rotate_left(t, z);
                p = N(z).parent;
            }
            N(p).red = false;
            N(g).red = true;
            rotate_right(t, g);
        } else {
            int32_t uncle = N(g).left;
            if (is_red(t, uncle)) {
                N(p).red = N(uncle).red = false;
                N(g).red = true;
                z = g;
                continue;
            }
            if (z == N(p).left) {
                z = p;
                rotate_right(t, z);
                p = N(z).parent;
            }
            N(p).red = false;
            N(g).red = true;
            rotate_left(t, g);
        }
    }
    N(t->root).red = false;
}

/* Inserts node z, whose start is set, into the tree. */
static void link_node(pv_symtree *t, int32_t z)
{
    uint64_t start = N(z).start;
    N(z).red = true;
    N(z).left = N(z).right = NIL;
    /* equal starts go right: a later symbol follows an earlier one */
    int32_t parent = NIL, x = t->root;
    while (x != NIL) {
        parent = x;
        x = start < N(x).start ? N(x).left : N(x).right;
    }
    N(z).parent = parent;
    if (parent == NIL)
        t->root = z;
    else if (start < N(parent).start)
        N(parent).left = z;
    else
        N(parent).right = z;
    insert_fixup(t, z);
}

void pv_symtree_insert(pv_symtree *t, uint64_t start, uint64_t size, uint8_t binding,
                       const char *name, size_t name_len)
{
    if (t->failed)
        return;
    if (t->nr >= INT32_MAX || name_len > UINT32_MAX - t->names_len - 1 ||
        !pv_array_grow((void **)&t->names, &t->names_cap, t->names_len + name_len + 1, 1) ||
        !pv_array_grow((void **)&t->nodes, &t->cap, t->nr + 1, sizeof *t->nodes)) {
        t->failed = true;
        return;
    }
    int32_t z = (int32_t)t->nr++;
    pv_symtree_node *n = &N(z);
    n->start = start;
    n->end = size > UINT64_MAX - start ? UINT64_MAX : start + size;
    n->name = (uint32_t)t->names_len;
    n->binding = binding;
    n->mangled = false;
    memcpy(t->names + t->names_len, name, name_len);
    t->names[t->names_len + name_len] = 0;
    t->names_len += name_len + 1;
    if (t->eager_tree)
        link_node(t, z);
    else
        t->tree_built = t->reach_ready = false;
    t->live++;
}

void pv_symtree_insert_mangled(pv_symtree *t, uint64_t start, uint64_t size, uint8_t binding,
                               const char *name)
{
    char *demangled = NULL;
    if (t->demangle_now && !pv_demangle_into(name, &demangled)) {
        t->failed = true;
        return;
    }
    const char *text = demangled ? demangled : name;
    size_t before = t->nr;
    pv_symtree_insert(t, start, size, binding, text, strlen(text));
    if (t->nr > before)
        N(before).mangled = !t->demangle_now && pv_demangle_may_change(name);
    free(demangled);
}

/* Makes the slots in shown up to node's (NULL till a name is asked for);
 * false when out of memory.  Fixups ask before all nodes are in. */
static bool grow_shown(pv_symtree *t, int32_t node)
{
    size_t had = t->shown_cap;
    if (!pv_array_grow((void **)&t->shown, &t->shown_cap, (size_t)node + 1, sizeof *t->shown))
        return false;
    memset(t->shown + had, 0, (t->shown_cap - had) * sizeof *t->shown);
    return true;
}

const char *pv_symtree_name(pv_symtree *t, int32_t node)
{
    const char *name = t->names + N(node).name;
    if (!N(node).mangled)
        return name;
    /* out of memory, the name is shown as it is but the failure counted:
     * the query fails rather than show it */
    if ((size_t)node >= t->shown_cap && !grow_shown(t, node)) {
        pv_alloc_count_failure();
        return name;
    }
    if (!t->shown[node]) {
        char *demangled;
        if (!pv_demangle_into(name, &demangled))
            return name;                    /* counted; asked again next time */
        if (!demangled) {
            N(node).mangled = false;        /* not a mangled name after all */
            return name;
        }
        t->shown[node] = demangled;
    }
    return t->shown[node];
}

static int32_t first(const pv_symtree *t)
{
    int32_t x = t->root;
    while (x != NIL && N(x).left != NIL)
        x = N(x).left;
    return x;
}

static int32_t next(const pv_symtree *t, int32_t x)
{
    if (N(x).right != NIL) {
        x = N(x).right;
        while (N(x).left != NIL)
            x = N(x).left;
        return x;
    }
    int32_t p = N(x).parent;
    while (p != NIL && x == N(p).right) {
        x = p;
        p = N(p).parent;
    }
    return p;
}

/* Rebalances after an erase left one black node too few on the paths
 * through `node` (NIL allowed) under `parent`. */
static void erase_fixup(pv_symtree *t, int32_t node, int32_t parent)
{
    while (node != t->root && !is_red(t, node)) {
        if (node == N(parent).left) {
            int32_t w = N(parent).right;
            if (is_red(t, w)) {
                N(w).red = false;
                N(parent).red = true;
                rotate_left(t, parent);
                w = N(parent).right;
            }
            if (!is_red(t, N(w).left) && !is_red(t, N(w).right)) {
                N(w).red = true;
                node = parent;
                parent = N(node).parent;
            } else {
                if (!is_red(t, N(w).right)) {
                    N(N(w).left).red = false;
                    N(w).red = true;
                    rotate_right(t, w);
                    w = N(parent).right;
                }
                N(w).red = N(parent).red;
                N(parent).red = false;
                if (N(w).right != NIL)
                    N(N(w).right).red = false;
                rotate_left(t, parent);
                node = t->root;
            }
        } else {
            int32_t w = N(parent).left;
            if (is_red(t, w)) {
                N(w).red = false;
                N(parent).red = true;
                rotate_right(t, parent);
                w = N(parent).left;
            }
            if (!is_red(t, N(w).left) && !is_red(t, N(w).right)) {
                N(w).red = true;
                node = parent;
                parent = N(node).parent;
            } else {
                if (!is_red(t, N(w).left)) {
                    N(N(w).right).red = false;
                    N(w).red = true;
                    rotate_left(t, w);
                    w = N(parent).left;
                }
                N(w).red = N(parent).red;
                N(parent).red = false;
                if (N(w).left != NIL)
                    N(N(w).left).red = false;
                rotate_right(t, parent);
                node = t->root;
            }
        }
    }
    if (node != NIL)
        N(node).red = false;
}

/* Unlinks z; a node with two children is replaced by its successor, which
 * takes its place and color. */
static void erase(pv_symtree *t, int32_t z)
{
    int32_t child, parent;
    bool removed_black;
    if (N(z).left == NIL || N(z).right == NIL) {
        child = N(z).left != NIL ? N(z).left : N(z).right;
        parent = N(z).parent;
        removed_black = !N(z).red;
        if (child != NIL)
            N(child).parent = parent;
        replace_child(t, z, child, parent);
    } else {
        int32_t y = N(z).right;
        while (N(y).left != NIL)
            y = N(y).left;
        removed_black = !N(y).red;
        child = N(y).right;
        if (N(y).parent == z) {
            parent = y;
        } else {
            parent = N(y).parent;
            N(parent).left = child;
            if (child != NIL)
                N(child).parent = parent;
            N(y).right = N(z).right;
            N(N(y).right).parent = y;
        }
        N(y).left = N(z).left;
        N(N(y).left).parent = y;
        N(y).parent = N(z).parent;
        replace_child(t, z, y, N(z).parent);
        N(y).red = N(z).red;
    }
    if (removed_black)
        erase_fixup(t, child, parent);
}

/* perf compares the names it shows; they are made (demangled) only when
 * sizes and bindings, which decide first, leave it open */
static bool prefer(pv_symtree *t, int32_t a, int32_t b)
{
    bool a_sized = N(a).end > N(a).start, b_sized = N(b).end > N(b).start;
    bool names = a_sized == b_sized && N(a).binding == N(b).binding;
    return pv_symbol_prefer_first(a_sized, N(a).binding, names ? pv_symtree_name(t, a) : "",
                                  b_sized, N(b).binding, names ? pv_symtree_name(t, b) : "");
}

static void fixup_tree(pv_symtree *t)
{
    if (t->root == NIL)
        return;
    /* sizes: a size-0 symbol reaches the next one, the last a page on */
    int32_t prev = first(t);
    for (int32_t cur = next(t, prev); cur != NIL; prev = cur, cur = next(t, cur))
        if (N(prev).end == N(prev).start)
            N(prev).end = N(cur).start;
    if (N(prev).end == N(prev).start)
        N(prev).end = pv_symbol_page_after(N(prev).start);
    /* aliases: of two symbols at one address, one stays */
    int32_t cur = first(t);
    while (cur != NIL) {
        int32_t nx = next(t, cur);
        if (nx == NIL)
            break;
        if (N(cur).start != N(nx).start) {
            cur = nx;
            continue;
        }
        if (prefer(t, cur, nx)) {
            erase(t, nx);
        } else {
            erase(t, cur);
            cur = nx;
        }
        t->live--;
    }
}

static int32_t find_in_tree(const pv_symtree *t, uint64_t addr)
{
    int32_t x = t->root;
    while (x != NIL) {
        const pv_symtree_node *n = &N(x);
        if (addr < n->start)
            x = n->left;
        else if (addr > n->end || (addr == n->end && addr != n->start))
            x = n->right;
        else
            return x;
    }
    return NIL;
}

/* ---- the sorted array ------------------------------------------------------ */

typedef struct pv_symtree_entry entry;

/* Sorts a[0 .. n) by start, equal starts kept in their order (a
 * least-significant-byte-first radix sort over the bytes in which the
 * starts differ).  tmp: room for n. */
static void sort_by_start(entry *a, entry *tmp, size_t n)
{
    uint64_t differ = 0;
    for (size_t i = 1; i < n; i++)
        differ |= a[i].start ^ a[0].start;
    entry *from = a, *to = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (!((differ >> shift) & 255))
            continue;
        size_t counts[256] = {0};
        for (size_t i = 0; i < n; i++)
            counts[(from[i].start >> shift) & 255]++;
        size_t at = 0;
        for (unsigned v = 0; v < 256; v++) {
            size_t c = counts[v];
            counts[v] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            to[counts[(from[i].start >> shift) & 255]++] = from[i];
        entry *swap = from;
        from = to;
        to = swap;
    }
    if (from != a)
        memcpy(a, from, n * sizeof *a);
}

/* The nodes inserted since the last merge, sorted, merged into the array
 * after those of equal start (inserted earlier); false when out of memory. */
static bool merge_new(pv_symtree *t)
{
    size_t n = t->nr - t->sorted_to, old = t->nr_sorted;
    if (n == 0)
        return true;
    entry *sorted = pv_realloc(t->sorted, (old + n) * sizeof *sorted);
    if (!sorted)
        return false;
    t->sorted = sorted;
    entry *added = pv_malloc(2 * n * sizeof *added);
    if (!added)
        return false;
    for (size_t i = 0; i < n; i++) {
        int32_t node = (int32_t)(t->sorted_to + i);
        added[i] = (entry){ .start = N(node).start, .node = node };
    }
    sort_by_start(added, added + n, n);
    /* from the top down: the old run moves up only past what is placed */
    size_t i = old, j = n, k = old + n;
    while (j > 0) {
        if (i > 0 && sorted[i - 1].start > added[j - 1].start)
            sorted[--k] = sorted[--i];
        else
            sorted[--k] = added[--j];
    }
    free(added);
    t->nr_sorted = old + n;
    t->sorted_to = t->nr;
    return true;
}

static bool log_erase(pv_symtree *t, int32_t node)
{
    if (!pv_array_grow((void **)&t->erased, &t->cap_erased, t->nr_erased + 1, sizeof *t->erased))
        return false;
    t->erased[t->nr_erased++] = node;
    t->live--;
    return true;
}

/* fixup_tree's walk over the sorted array, its erasures logged for the
 * tree's replay. */
static bool fixup_array(pv_symtree *t)
{
    if (!merge_new(t) ||
        !pv_array_grow((void **)&t->steps, &t->cap_steps, t->nr_steps + 1, sizeof *t->steps))
        return false;
    t->steps[t->nr_steps].nodes = t->nr;
    size_t n = t->nr_sorted;
    entry *o = t->sorted;
    if (n > 0) {
        for (size_t i = 0; i + 1 < n; i++)
            if (N(o[i].node).end == o[i].start)
                N(o[i].node).end = o[i + 1].start;
        if (N(o[n - 1].node).end == o[n - 1].start)
            N(o[n - 1].node).end = pv_symbol_page_after(o[n - 1].start);
        size_t kept = 0;
        entry cur = o[0];
        for (size_t i = 1; i < n; i++) {
            entry nx = o[i];
            if (cur.start != nx.start) {
                o[kept++] = cur;
                cur = nx;
            } else if (prefer(t, cur.node, nx.node)) {
                if (!log_erase(t, nx.node))
                    return false;
            } else {
                if (!log_erase(t, cur.node))
                    return false;
                cur = nx;
            }
        }
        o[kept++] = cur;
        t->nr_sorted = kept;
    }
    t->steps[t->nr_steps++].erased = t->nr_erased;
    return true;
}

void pv_symtree_fixup(pv_symtree *t)
{
    if (t->failed)
        return;
    if (t->eager_tree) {
        fixup_tree(t);
        return;
    }
    t->tree_built = t->reach_ready = false;
    if (!fixup_array(t))
        t->failed = true;
}

/* The tree the same inserts and erasures in the same order build. */
static void build_tree(pv_symtree *t)
{
    t->root = NIL;
    size_t n = 0, e = 0;
    for (size_t k = 0; k <= t->nr_steps; k++) {
        size_t nodes = k < t->nr_steps ? t->steps[k].nodes : t->nr;
        size_t erased = k < t->nr_steps ? t->steps[k].erased : t->nr_erased;
        while (n < nodes)
            link_node(t, (int32_t)n++);
        while (e < erased)
            erase(t, t->erased[e++]);
    }
    t->tree_built = true;
}

/* The array merged and its reaches made; false when out of memory. */
static bool ready_array(pv_symtree *t)
{
    if (t->reach_ready)
        return true;
    if (!merge_new(t))
        return false;
    uint64_t furthest = 0;
    for (size_t i = 0; i < t->nr_sorted; i++) {
        t->sorted[i].reach = furthest;
        if (N(t->sorted[i].node).end > furthest)
            furthest = N(t->sorted[i].node).end;
    }
    t->reach_ready = true;
    return true;
}

int32_t pv_symtree_find(pv_symtree *t, uint64_t addr)
{
    if (t->eager_tree)
        return find_in_tree(t, addr);
    if (ready_array(t)) {
        /* the last node starting at or below addr (halving without
         * branches: a lookup per new ip of a dso) */
        const entry *e = t->sorted;
        size_t n = t->nr_sorted;
        if (n == 0 || e->start > addr)
            return NIL;
        while (n > 1) {
            size_t half = n / 2;
            e = e[half].start <= addr ? e + half : e;
            n -= half;
        }
        /* no node before it holds addr: the tree's search answers as it does */
        if (e->reach <= addr && !(e > t->sorted && e[-1].start == addr))
            return addr < N(e->node).end || addr == e->start ? e->node : NIL;
    }
    if (!t->tree_built)
        build_tree(t);
    return find_in_tree(t, addr);
}
