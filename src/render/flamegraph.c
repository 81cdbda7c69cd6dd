#include "render/flamegraph.h"
#include "base/byte_hash.h"
#include "base/pv_array.h"
#include "base/pv_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The tree: nodes[0] is the root "all"; every other node is one distinct
 * stack prefix.  A child is always created after its parent, so a child's
 * index is larger than its parent's (the layout relies on it to sum subtree
 * sizes in one backward pass). */
typedef struct fg_node {
    uint64_t name_off;      /* into names */
    uint32_t name_len;
    uint32_t parent;
    uint32_t first_child;   /* 0: none (the root is nobody's child) */
    uint32_t next_sibling;  /* 0: none */
    uint64_t key_hash;      /* of (parent, name): the child lookup's key */
    int64_t weight;         /* inclusive */
    int64_t base_weight;    /* inclusive, a differential graph's other profile */
} fg_node;

struct pv_flamegraph {
    fg_node *nodes;
    size_t count, cap;
    char *names;            /* every node's name, back to back, no NULs */
    size_t names_len, names_cap;
    /* (parent, name) -> node: open addressing, linear probing, 0 = empty
     * slot (node 0, the root, is never looked up), at most half full. */
    uint32_t *slots;
    size_t slot_count;      /* a power of two */
    /* The nodes of the stack being added, reused from row to row. */
    uint32_t *path;
    size_t path_cap;
    bool differential;
};

#define PAD_SIDE 10.0
#define PAD_TOP 56.0        /* title and subtitle; the script's controls */
#define PAD_BOTTOM 10.0
/* A character's width as a share of the font size: 0.65 rather than
 * flamegraph.pl's 0.59 because Verdana's and DejaVu Sans's digits (hex
 * addresses) are 0.64 wide, and a name must not run into its neighbour. */
#define CHAR_WIDTH 0.65

static const char root_name[] = "all";

/* ---- the tree ---- */

/* FNV-1a alone leaves names that differ in their last byte with many equal
 * bits; this finalizer (MurmurHash3's) makes every output bit depend on all. */
static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return h;
}

static uint64_t child_key(uint32_t parent, const char *name, size_t len)
{
    return mix(pv_fnv1a(PV_FNV1A_START, name, len) ^ ((uint64_t)parent * 0x9e3779b97f4a7c15u));
}

static bool rehash(pv_flamegraph *fg, size_t slot_count)
{
    uint32_t *slots = pv_calloc(slot_count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 1; i < fg->count; i++) {
        size_t s = fg->nodes[i].key_hash & (slot_count - 1);
        while (slots[s])
            s = (s + 1) & (slot_count - 1);
        slots[s] = (uint32_t)i;
    }
    free(fg->slots);
    fg->slots = slots;
    fg->slot_count = slot_count;
    return true;
}

pv_flamegraph *pv_flamegraph_new(void)
{
    pv_flamegraph *fg = pv_calloc(1, sizeof *fg);
    if (!fg)
        return NULL;
    if (!pv_array_grow((void **)&fg->nodes, &fg->cap, 1, sizeof *fg->nodes) || !rehash(fg, 64)) {
        pv_flamegraph_free(fg);
        return NULL;
    }
    fg->nodes[0] = (fg_node){.name_off = 0, .name_len = 0};
    fg->count = 1;
    return fg;
}

pv_flamegraph *pv_flamegraph_new_differential(void)
{
    pv_flamegraph *fg = pv_flamegraph_new();
    if (fg)
        fg->differential = true;
    return fg;
}

bool pv_flamegraph_is_differential(const pv_flamegraph *fg)
{
    return fg->differential;
}

void pv_flamegraph_free(pv_flamegraph *fg)
{
    if (!fg)
        return;
    free(fg->nodes);
    free(fg->names);
    free(fg->slots);
    free(fg->path);
    free(fg);
}

static const char *node_name(const pv_flamegraph *fg, uint32_t i, size_t *len)
{
    if (i == 0) {
        *len = sizeof root_name - 1;
        return root_name;
    }
    *len = fg->nodes[i].name_len;
    return fg->names + fg->nodes[i].name_off;
}

/* The child of parent named name, created when missing; 0 when out of
 * memory or out of node numbers. */
static uint32_t child(pv_flamegraph *fg, uint32_t parent, const char *name, size_t len,
                      pv_flamegraph_status *status)
{
    /* grown before the probe, so that a new node always finds a free slot */
    if ((fg->count + 1) * 2 > fg->slot_count && !rehash(fg, fg->slot_count * 2)) {
        *status = PV_FLAMEGRAPH_NOMEM;
        return 0;
    }
    uint64_t key = child_key(parent, name, len);
    size_t mask = fg->slot_count - 1;
    size_t s = key & mask;
    for (; fg->slots[s]; s = (s + 1) & mask) {
        const fg_node *n = &fg->nodes[fg->slots[s]];
        if (n->key_hash == key && n->parent == parent && n->name_len == len &&
            memcmp(fg->names + n->name_off, name, len) == 0)
            return fg->slots[s];
    }
    if (fg->count >= UINT32_MAX || len > UINT32_MAX) {
        *status = PV_FLAMEGRAPH_TOO_MANY_FRAMES;
        return 0;
    }
    if (!pv_array_grow((void **)&fg->nodes, &fg->cap, fg->count + 1, sizeof *fg->nodes) ||
        !pv_array_grow((void **)&fg->names, &fg->names_cap, fg->names_len + len + 1, 1)) {
        *status = PV_FLAMEGRAPH_NOMEM;
        return 0;
    }
    uint32_t i = (uint32_t)fg->count;
    memcpy(fg->names + fg->names_len, name, len);
    fg->nodes[i] = (fg_node){
        .name_off = fg->names_len,
        .name_len = (uint32_t)len,
        .parent = parent,
        .first_child = 0,
        .next_sibling = fg->nodes[parent].first_child,
        .key_hash = key,
        .weight = 0,
        .base_weight = 0,
    };
    fg->nodes[parent].first_child = i;
    fg->names_len += len;
    fg->count++;
    fg->slots[s] = i;
    return i;
}

pv_flamegraph_status pv_flamegraph_add(pv_flamegraph *fg, const char *stack, size_t len,
                                       int64_t weight)
{
    return pv_flamegraph_add_diff(fg, stack, len, weight, 0);
}

pv_flamegraph_status pv_flamegraph_add_diff(pv_flamegraph *fg, const char *stack, size_t len,
                                            int64_t weight, int64_t base_weight)
{
    if (weight < 0 || base_weight < 0)
        return PV_FLAMEGRAPH_NEGATIVE_WEIGHT;
    if (weight == 0 && base_weight == 0)
        return PV_FLAMEGRAPH_OK;
    if (fg->nodes[0].weight > INT64_MAX - weight)
        return PV_FLAMEGRAPH_TOTAL_OVERFLOW;
    if (fg->nodes[0].base_weight > INT64_MAX - base_weight)
        return PV_FLAMEGRAPH_BASE_OVERFLOW;
    /* First find or create every frame, then add the weight, so that an
     * error part way leaves no weight half added. */
    pv_flamegraph_status status = PV_FLAMEGRAPH_OK;
    size_t depth = 0;
    uint32_t at = 0;
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && stack[end] != ';')
            end++;
        if (end > i) {
            if (!pv_array_grow((void **)&fg->path, &fg->path_cap, depth + 1, sizeof *fg->path))
                return PV_FLAMEGRAPH_NOMEM;
            at = child(fg, at, stack + i, end - i, &status);
            if (!at)
                return status;
            fg->path[depth++] = at;
        }
        i = end + 1;
    }
    fg->nodes[0].weight += weight;
    fg->nodes[0].base_weight += base_weight;
    for (size_t d = 0; d < depth; d++) {
        fg->nodes[fg->path[d]].weight += weight;
        fg->nodes[fg->path[d]].base_weight += base_weight;
    }
    return PV_FLAMEGRAPH_OK;
}

int64_t pv_flamegraph_total(const pv_flamegraph *fg)
{
    return fg->nodes[0].weight;
}

int64_t pv_flamegraph_base_total(const pv_flamegraph *fg)
{
    return fg->nodes[0].base_weight;
}

size_t pv_flamegraph_node_count(const pv_flamegraph *fg)
{
    return fg->count - 1;
}

const char *pv_flamegraph_status_text(pv_flamegraph_status status)
{
    switch (status) {
    case PV_FLAMEGRAPH_OK: return "ok";
    case PV_FLAMEGRAPH_NOMEM: return "out of memory";
    case PV_FLAMEGRAPH_NEGATIVE_WEIGHT: return "a weight is negative";
    case PV_FLAMEGRAPH_TOTAL_OVERFLOW: return "the sum of the weights overflows a 64-bit integer";
    case PV_FLAMEGRAPH_TOO_MANY_FRAMES: return "more than 4294967294 distinct stack prefixes";
    case PV_FLAMEGRAPH_BASE_OVERFLOW:
        return "the sum of the base weights overflows a 64-bit integer";
    }
    return "unknown error";
}

/* ---- layout ---- */

void pv_flamegraph_style_default(pv_flamegraph_style *style)
{
    *style = (pv_flamegraph_style){
        .title = "Flame Graph",
        .unit = "samples",
        .width = 1200,
        .frame_height = 16,
        .font_size = 12,
        .max_height = 1200,
        .min_frame_height = 12,
        .min_frame_width = 0.1,
    };
}

typedef struct sort_key {
    const char *name;
    size_t len;
    uint32_t node;
} sort_key;

static int by_name(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
    if (c)
        return c;
    return (x->len > y->len) - (x->len < y->len);
}

/* A frame waiting to be visited: its node and where it starts, in weight
 * units from the left edge (integers, so that siblings abut exactly). */
typedef struct pending {
    uint32_t node;
    uint32_t depth;
    int64_t start;
} pending;

bool pv_flamegraph_layout_make(const pv_flamegraph *fg, const pv_flamegraph_style *style,
                               pv_flamegraph_layout *layout)
{
    *layout = (pv_flamegraph_layout){0};
    int64_t total = fg->nodes[0].weight;
    /* per node, the frames of its subtree (itself included) and those of
     * them with weight 0 (only a base weight): the counts of frames not drawn */
    uint32_t *subtree = pv_calloc(fg->count, sizeof *subtree);
    uint32_t *base_only = pv_calloc(fg->count, sizeof *base_only);
    /* per node, whether it is off-CPU: the marker or above one */
    bool *off_cpu = pv_calloc(fg->count, sizeof *off_cpu);
    pending *todo = NULL;
    size_t todo_len = 0, todo_cap = 0;
    sort_key *keys = NULL;
    size_t keys_cap = 0;
    size_t frames_cap = 0;
    uint32_t max_depth = 0;
    bool ok = subtree != NULL && base_only != NULL && off_cpu != NULL;

    for (size_t i = fg->count; ok && i-- > 1;) {
        subtree[i] += 1;
        base_only[i] += fg->nodes[i].weight == 0;
        subtree[fg->nodes[i].parent] += subtree[i];
        base_only[fg->nodes[i].parent] += base_only[i];
    }
    /* parents come before their children */
    for (size_t i = 1; ok && i < fg->count; i++) {
        size_t len;
        const char *name = node_name(fg, (uint32_t)i, &len);
        bool mark = len == sizeof PV_FLAMEGRAPH_OFFCPU_MARK - 1 &&
                    memcmp(name, PV_FLAMEGRAPH_OFFCPU_MARK, len) == 0;
        bool under = off_cpu[fg->nodes[i].parent];
        off_cpu[i] = mark || under;
        if (mark && !under)
            layout->off_cpu_weight += fg->nodes[i].weight;  /* <= the root's: no overflow */
    }
    double plot_width = style->width - 2 * PAD_SIDE;
    double scale = total > 0 ? plot_width / (double)total : 0;
    if (ok && total > 0) {
        ok = pv_array_grow((void **)&todo, &todo_cap, 1, sizeof *todo);
        if (ok)
            todo[todo_len++] = (pending){.node = 0, .depth = 0, .start = 0};
    }
    while (ok && todo_len > 0) {
        pending p = todo[--todo_len];
        const fg_node *n = &fg->nodes[p.node];
        double width = (double)n->weight * scale;
        if (n->weight == 0 || width < style->min_frame_width) {
            layout->hidden += subtree[p.node] - base_only[p.node];
            layout->base_only += base_only[p.node];
            continue;
        }
        if (!pv_array_grow((void **)&layout->frames, &frames_cap, layout->count + 1,
                  sizeof *layout->frames)) {
            ok = false;
            break;
        }
        pv_flamegraph_frame *f = &layout->frames[layout->count++];
        f->name = node_name(fg, p.node, &f->name_len);
        f->depth = p.depth;
        f->weight = f->self_weight = n->weight;
        f->base_weight = f->self_base_weight = n->base_weight;
        f->off_cpu = off_cpu[p.node];
        f->x = PAD_SIDE + (double)p.start * scale;
        f->width = width;
        if (p.depth > max_depth)
            max_depth = p.depth;

        size_t children = 0;
        for (uint32_t c = n->first_child; c; c = fg->nodes[c].next_sibling) {
            if (!pv_array_grow((void **)&keys, &keys_cap, children + 1, sizeof *keys)) {
                ok = false;
                break;
            }
            keys[children].node = c;
            keys[children].name = node_name(fg, c, &keys[children].len);
            children++;
            f->self_weight -= fg->nodes[c].weight;
            f->self_base_weight -= fg->nodes[c].base_weight;
        }
        if (!ok || children == 0)
            continue;
        qsort(keys, children, sizeof *keys, by_name);
        if (!pv_array_grow((void **)&todo, &todo_cap, todo_len + children, sizeof *todo)) {
            ok = false;
            break;
        }
        /* pushed last child first, so that the first child is visited next */
        int64_t end = p.start;
        for (size_t k = 0; k < children; k++)
            end += fg->nodes[keys[k].node].weight;
        for (size_t k = children; k-- > 0;) {
            end -= fg->nodes[keys[k].node].weight;
            todo[todo_len++] = (pending){.node = keys[k].node, .depth = p.depth + 1, .start = end};
        }
    }
    free(subtree);
    free(base_only);
    free(off_cpu);
    free(todo);
    free(keys);
    if (!ok) {
        pv_flamegraph_layout_free(layout);
        return false;
    }
    size_t levels = layout->count ? (size_t)max_depth + 1 : 0;
    layout->frame_height = style->frame_height;
    layout->font_size = style->font_size;
    double room = style->max_height - PAD_TOP - PAD_BOTTOM;
    if (levels > 0 && (double)levels * style->frame_height > room) {
        double h = room / (double)levels;
        if (h < style->min_frame_height)
            h = style->min_frame_height;
        if (h < style->frame_height) {
            /* whole pixels keep the levels on the pixel grid */
            layout->frame_height = (double)(long long)h;
            layout->font_size = style->font_size * layout->frame_height / style->frame_height;
        }
    }
    layout->height = PAD_TOP + (double)levels * layout->frame_height + PAD_BOTTOM;
    int64_t base_total = fg->nodes[0].base_weight;
    for (size_t i = 0; i < layout->count; i++) {
        pv_flamegraph_frame *f = &layout->frames[i];
        f->y = layout->height - PAD_BOTTOM - (double)(f->depth + 1) * layout->frame_height;
        double delta = fabs(pv_flamegraph_share_delta(f->self_weight, total, f->self_base_weight,
                                                      base_total));
        if (delta > layout->max_self_delta)
            layout->max_self_delta = delta;
    }
    return true;
}

double pv_flamegraph_share_delta(int64_t weight, int64_t total, int64_t base_weight,
                                 int64_t base_total)
{
    /* Division is correctly rounded, so equal shares (1/4 and 2/8) give
     * equal doubles and a delta of exactly 0. */
    double now = total > 0 ? (double)weight / (double)total : 0;
    double before = base_total > 0 ? (double)base_weight / (double)base_total : 0;
    return now - before;
}

void pv_flamegraph_layout_free(pv_flamegraph_layout *layout)
{
    free(layout->frames);
    *layout = (pv_flamegraph_layout){0};
}

/* ---- SVG ---- */

/* Three independent-looking fractions in [0, 1) of a name, from three
 * slices of its hash: the same name always gets the same colour. */
static void name_fractions(const char *name, size_t len, double v[3])
{
    uint64_t h = mix(pv_fnv1a(PV_FNV1A_START, name, len));
    for (int k = 0; k < 3; k++)
        v[k] = (double)((h >> (8 + 16 * k)) & 0xffff) / 65536.0;
}

void pv_flamegraph_color(const char *name, size_t len, uint8_t rgb[3])
{
    double v[3];
    name_fractions(name, len, v);
    rgb[0] = (uint8_t)(205 + (int)(50 * v[2]));
    rgb[1] = (uint8_t)(230 * v[0]);
    rgb[2] = (uint8_t)(55 * v[1]);
}

void pv_flamegraph_cold_color(const char *name, size_t len, uint8_t rgb[3])
{
    double v[3];
    name_fractions(name, len, v);
    rgb[0] = (uint8_t)(40 + (int)(70 * v[0]));
    rgb[1] = (uint8_t)(90 + (int)(80 * v[1]));
    rgb[2] = (uint8_t)(205 + (int)(50 * v[2]));
}

/* The code point at s[*i], advancing *i past it; U+FFFD for a byte that
 * does not start a valid UTF-8 sequence (overlong forms, surrogates and
 * values past U+10FFFF are invalid), which then advances one byte. */
static uint32_t next_char(const char *s, size_t n, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t left = n - *i;
    uint32_t c = p[0];
    size_t need;
    uint32_t min;
    if (c < 0x80) {
        *i += 1;
        return c;
    } else if (c >= 0xc2 && c <= 0xdf) {
        need = 1, min = 0x80, c &= 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2, min = 0x800, c &= 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3, min = 0x10000, c &= 0x07;
    } else {
        *i += 1;
        return 0xfffd;
    }
    if (left <= need) {
        *i += 1;
        return 0xfffd;
    }
    for (size_t k = 1; k <= need; k++) {
        if ((p[k] & 0xc0) != 0x80) {
            *i += 1;
            return 0xfffd;
        }
        c = (c << 6) | (p[k] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
        *i += 1;
        return 0xfffd;
    }
    *i += need + 1;
    return c;
}

static bool xml_allowed(uint32_t c)
{
    if (c < 0x20)
        return c == '\t' || c == '\n' || c == '\r';
    return !(c >= 0x7f && c <= 0x9f) && c != 0xfffe && c != 0xffff;
}

static void put_char(pv_strbuf *out, uint32_t c)
{
    char u[4];
    size_t n;
    switch (c) {
    case '&': pv_strbuf_puts(out, "&amp;"); return;
    case '<': pv_strbuf_puts(out, "&lt;"); return;
    case '>': pv_strbuf_puts(out, "&gt;"); return;
    case '"': pv_strbuf_puts(out, "&quot;"); return;
    case '\'': pv_strbuf_puts(out, "&apos;"); return;
    }
    if (!xml_allowed(c) || c == '\t' || c == '\n' || c == '\r')
        c = 0xfffd;  /* whitespace controls too: a frame name is one line */
    if (c < 0x80) {
        u[0] = (char)c, n = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xc0 | (c >> 6)), u[1] = (char)(0x80 | (c & 0x3f)), n = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xe0 | (c >> 12)), u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        u[2] = (char)(0x80 | (c & 0x3f)), n = 3;
    } else {
        u[0] = (char)(0xf0 | (c >> 18)), u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((c >> 6) & 0x3f)), u[3] = (char)(0x80 | (c & 0x3f)), n = 4;
    }
    pv_strbuf_append(out, u, n);
}

size_t pv_flamegraph_xml_text(pv_strbuf *out, const char *name, size_t len, size_t max_chars)
{
    size_t chars = 0;
    for (size_t i = 0; i < len; chars++)
        next_char(name, len, &i);
    size_t keep = chars;
    bool cut = chars > max_chars;
    if (cut)
        keep = max_chars >= 3 ? max_chars - 2 : 0;
    size_t i = 0;
    for (size_t k = 0; k < keep; k++)
        put_char(out, next_char(name, len, &i));
    if (cut && keep) {
        pv_strbuf_puts(out, "..");
        return keep + 2;
    }
    return keep;
}

/* A number with 2 or 4 decimals, without printf's %f: its decimal point
 * follows the locale, and an SVG's must be a '.'. */
static void put_fixed(pv_strbuf *out, double v, int places)
{
    long long one = places == 4 ? 10000 : 100;
    const char *sign = "";
    if (!isfinite(v) || v > 1e14 || v < -1e14)
        v = 0;
    if (v < 0) {
        sign = "-";
        v = -v;
    }
    long long units = (long long)(v * (double)one + 0.5);  /* rounded, without libm */
    pv_strbuf_printf(out, "%s%lld.%0*lld", sign, units / one, places, units % one);
}

static void put_fixed2(pv_strbuf *out, double v)
{
    put_fixed(out, v, 2);
}

static void put_attr(pv_strbuf *out, const char *name, double v)
{
    pv_strbuf_printf(out, " %s=\"", name);
    put_fixed2(out, v);
    pv_strbuf_puts(out, "\"");
}

/* x and width of a rect: 4 decimals, so that the script's zoom, which
 * scales them by up to the plot's width over min_frame_width, stays within a
 * pixel. */
static void put_attr4(pv_strbuf *out, const char *name, double v)
{
    pv_strbuf_printf(out, " %s=\"", name);
    put_fixed(out, v, 4);
    pv_strbuf_puts(out, "\"");
}

static void put_text(pv_strbuf *out, const char *s)
{
    pv_flamegraph_xml_text(out, s, strlen(s), SIZE_MAX);
}

void pv_flamegraph_diff_color(double delta, double max_abs_delta, uint8_t rgb[3])
{
    if (delta == 0 || !(max_abs_delta > 0)) {
        rgb[0] = rgb[1] = rgb[2] = 220;
        return;
    }
    double t = fabs(delta) / max_abs_delta;
    if (t > 1)
        t = 1;
    uint8_t c = (uint8_t)(220 - (int)(170 * t + 0.5));
    rgb[0] = delta > 0 ? 255 : c;
    rgb[1] = c;
    rgb[2] = delta > 0 ? c : 255;
}

/* A share's change in percentage points, signed: "+1.25", "-0.40", and
 * "+0.00" for a growth too small to show (the sign still tells which way). */
static void put_points(pv_strbuf *out, double delta)
{
    if (delta > 0)
        pv_strbuf_puts(out, "+");
    put_fixed2(out, 100 * delta);
}

/* "N unit", and for ns from 1 ms on the same in ms or s: "N ns = 12.35 ms". */
static void put_weight(pv_strbuf *out, int64_t weight, const char *unit)
{
    pv_strbuf_printf(out, "%lld ", (long long)weight);
    put_text(out, unit);
    if (strcmp(unit, "ns") != 0 || weight < 1000000)
        return;
    pv_strbuf_puts(out, " = ");
    bool seconds = weight >= 1000000000;
    put_fixed2(out, (double)weight / (seconds ? 1e9 : 1e6));
    pv_strbuf_puts(out, seconds ? " s" : " ms");
}

static void put_share(pv_strbuf *out, int64_t weight, int64_t total, const char *unit)
{
    put_weight(out, weight, unit);
    pv_strbuf_puts(out, ", ");
    put_fixed2(out, total > 0 ? 100.0 * (double)weight / (double)total : 0);
    pv_strbuf_puts(out, "%");
}

/* The frame's title: "name (N unit, P%)", and for a differential graph
 * "name (N unit, P%; base M unit, Q%; +D points, self +S points)": both
 * inclusive values, the change of the inclusive share, and that of the self
 * share the colour shows. */
static void put_frame(pv_strbuf *out, const pv_flamegraph_frame *f,
                      const pv_flamegraph_layout *layout, const pv_flamegraph_style *style,
                      int64_t total, int64_t base_total, bool differential)
{
    uint8_t rgb[3];
    double self_delta = pv_flamegraph_share_delta(f->self_weight, total, f->self_base_weight,
                                                  base_total);
    if (differential)
        pv_flamegraph_diff_color(self_delta, layout->max_self_delta, rgb);
    else if (f->off_cpu)
        pv_flamegraph_cold_color(f->name, f->name_len, rgb);
    else
        pv_flamegraph_color(f->name, f->name_len, rgb);
    pv_strbuf_puts(out, "<g class=\"frame\"><title>");
    pv_flamegraph_xml_text(out, f->name, f->name_len, SIZE_MAX);
    pv_strbuf_puts(out, " (");
    put_share(out, f->weight, total, style->unit);
    if (differential) {
        pv_strbuf_puts(out, "; base ");
        put_share(out, f->base_weight, base_total, style->unit);
        pv_strbuf_puts(out, "; ");
        put_points(out, pv_flamegraph_share_delta(f->weight, total, f->base_weight, base_total));
        pv_strbuf_puts(out, " points, self ");
        put_points(out, self_delta);
        pv_strbuf_puts(out, " points");
    }
    pv_strbuf_puts(out, ")</title><rect");
    put_attr4(out, "x", f->x);
    put_attr(out, "y", f->y);
    put_attr4(out, "width", f->width);
    put_attr(out, "height", layout->frame_height - 1);
    pv_strbuf_printf(out, " rx=\"2\" ry=\"2\" fill=\"rgb(%u,%u,%u)\"/>", rgb[0], rgb[1], rgb[2]);
    double room = (f->width - 6) / (layout->font_size * CHAR_WIDTH);
    size_t max_chars = room >= 3 ? (size_t)room : 0;
    if (max_chars) {
        pv_strbuf_puts(out, "<text");
        put_attr(out, "x", f->x + 3);
        put_attr(out, "y", f->y + layout->frame_height / 2 + layout->font_size * 0.35);
        pv_strbuf_puts(out, ">");
        pv_flamegraph_xml_text(out, f->name, f->name_len, max_chars);
        pv_strbuf_puts(out, "</text>");
    }
    pv_strbuf_puts(out, "</g>\n");
}

static void put_subtitle(pv_strbuf *out, const pv_flamegraph *fg,
                         const pv_flamegraph_layout *layout, const pv_flamegraph_style *style)
{
    int64_t total = fg->nodes[0].weight;
    pv_strbuf_puts(out, "total ");
    put_weight(out, total, style->unit);
    if (fg->differential) {
        pv_strbuf_puts(out, ", base ");
        put_weight(out, fg->nodes[0].base_weight, style->unit);
    }
    if (total == 0)
        pv_strbuf_puts(out, ": nothing to draw");
    if (!fg->differential && layout->off_cpu_weight > 0) {
        pv_strbuf_puts(out, "; off-CPU (blue) ");
        put_share(out, layout->off_cpu_weight, total, style->unit);
    }
    if (layout->hidden) {
        pv_strbuf_printf(out, "; %zu frames narrower than ", layout->hidden);
        put_fixed2(out, style->min_frame_width);
        pv_strbuf_puts(out, " px not drawn");
    }
    if (fg->differential && total > 0) {
        pv_strbuf_puts(out, "; self share grew red, shrank blue, up to ");
        put_fixed2(out, 100 * layout->max_self_delta);
        pv_strbuf_puts(out, " points");
    }
    if (layout->base_only)
        pv_strbuf_printf(out, "; %zu frames only in the base not drawn", layout->base_only);
}

bool pv_flamegraph_svg(const pv_flamegraph *fg, const pv_flamegraph_style *style,
                       pv_strbuf *out)
{
    pv_flamegraph_layout layout;
    if (!pv_flamegraph_layout_make(fg, style, &layout)) {
        out->failed = true;
        return false;
    }
    int64_t total = fg->nodes[0].weight;
    pv_strbuf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"");
    put_attr(out, "width", style->width);
    put_attr(out, "height", layout.height);
    pv_strbuf_puts(out, " viewBox=\"0 0 ");
    put_fixed2(out, style->width);
    pv_strbuf_puts(out, " ");
    put_fixed2(out, layout.height);
    pv_strbuf_puts(out, "\">\n<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" "
                        "y2=\"1\"><stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop "
                        "stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n"
                        "<style>text { font-family: Verdana, \"DejaVu Sans\", sans-serif; fill: #000; } "
                        ".frame text { pointer-events: none; font-size: ");
    put_fixed2(out, layout.font_size);
    pv_strbuf_puts(out, "px; } .frame:hover rect { stroke: #000; stroke-width: 0.5; } "
                        ".explorable .frame, .control { cursor: pointer; } "
                        ".control:hover { text-decoration: underline; } "
                        ".ancestor rect { fill-opacity: 0.6; }</style>\n");
    pv_strbuf_puts(out, "<rect x=\"0\" y=\"0\"");
    put_attr(out, "width", style->width);
    put_attr(out, "height", layout.height);
    /* the frames, then the header over them (the script keeps it in view) */
    pv_strbuf_puts(out, " fill=\"url(#background)\"/>\n<g id=\"frames\"");
    put_attr(out, "data-pad", PAD_SIDE);
    put_attr(out, "data-plot-width", style->width - 2 * PAD_SIDE);
    put_attr4(out, "data-char-width", layout.font_size * CHAR_WIDTH);
    put_attr(out, "data-frame-height", layout.frame_height);
    put_attr(out, "data-font-size", layout.font_size);
    put_attr(out, "data-header", PAD_TOP);
    pv_strbuf_puts(out, ">\n");
    for (size_t i = 0; i < layout.count; i++)
        put_frame(out, &layout.frames[i], &layout, style, total, fg->nodes[0].base_weight,
                  fg->differential);
    pv_strbuf_puts(out, "</g>\n<g id=\"header\" font-size=\"12\"><text id=\"title\" text-anchor=\"middle\"");
    put_attr(out, "x", style->width / 2);
    put_attr(out, "y", 24);
    put_attr(out, "font-size", style->font_size + 5);
    pv_strbuf_puts(out, ">");
    put_text(out, style->title);
    pv_strbuf_puts(out, "</text>\n<text id=\"subtitle\" text-anchor=\"middle\"");
    put_attr(out, "x", style->width / 2);
    put_attr(out, "y", 44);
    put_attr(out, "font-size", style->font_size);
    pv_strbuf_puts(out, ">");
    put_subtitle(out, fg, &layout, style);
    pv_strbuf_puts(out, "</text></g>\n<script><![CDATA[\n");
    pv_strbuf_puts(out, pv_flamegraph_script);
    pv_strbuf_puts(out, "]]></script>\n</svg>\n");
    pv_flamegraph_layout_free(&layout);
    return !out->failed;
}
