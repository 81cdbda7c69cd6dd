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
    n->red = true;
    n->mangled = false;
    n->left = n->right = NIL;
    memcpy(t->names + t->names_len, name, name_len);
    t->names[t->names_len + name_len] = 0;
    t->names_len += name_len + 1;
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
    t->live--;
}

/* perf compares the names it shows */
static bool prefer(pv_symtree *t, int32_t a, int32_t b)
{
    return pv_symbol_prefer_first(N(a).end > N(a).start, N(a).binding, pv_symtree_name(t, a),
                                  N(b).end > N(b).start, N(b).binding, pv_symtree_name(t, b));
}

void pv_symtree_fixup(pv_symtree *t)
{
    if (t->failed || t->root == NIL)
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
    }
}

int32_t pv_symtree_find(const pv_symtree *t, uint64_t addr)
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
