/*
 * Unit tests of the flame graph (src/render/flamegraph.c): merging stacks into a
 * tree, the layout (widths, order, hiding narrow frames, root at the
 * bottom), XML escaping and cutting of names, colours (warm, off-CPU blue,
 * differential), ns shown in ms, and the SVG text;
 * and the joining of one call stack's frames (src/render/folded_stack.c).
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/flamegraph.h"
#include "render/folded_stack.h"
#include "base/pv_strbuf.h"
#include "unit_check.h"


static bool near(double a, double b)
{
    return a - b < 1e-6 && b - a < 1e-6;
}

static void add(pv_flamegraph *fg, const char *stack, int64_t weight)
{
    pv_flamegraph_status st = pv_flamegraph_add(fg, stack, strlen(stack), weight);
    if (st != PV_FLAMEGRAPH_OK) {
        failures++;
        printf("not ok - add '%s' %lld: %s\n", stack, (long long)weight,
               pv_flamegraph_status_text(st));
    }
}

/* The frame with this name at this depth, or NULL. */
static const pv_flamegraph_frame *find(const pv_flamegraph_layout *l, const char *name,
                                       uint32_t depth)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->frames[i].depth == depth && l->frames[i].name_len == strlen(name) &&
            memcmp(l->frames[i].name, name, l->frames[i].name_len) == 0)
            return &l->frames[i];
    return NULL;
}

static size_t count_of(const char *haystack, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_tree(void)
{
    pv_flamegraph *fg = pv_flamegraph_new();
    add(fg, "main;foo;bar", 3);
    add(fg, "main;foo", 1);
    add(fg, "main;baz", 4);
    add(fg, "x;y", 2);
    add(fg, "main;foo;bar", 5);     /* the same stack again: no new node */
    check(pv_flamegraph_node_count(fg) == 6, "one node per distinct prefix",
          "got %zu, want 6 (main, main;foo, main;foo;bar, main;baz, x, x;y)",
          pv_flamegraph_node_count(fg));
    check(pv_flamegraph_total(fg) == 15, "the root's weight is the sum of the weights",
          "got %lld", (long long)pv_flamegraph_total(fg));

    add(fg, ";main;;foo;", 2);      /* empty frames are skipped */
    check(pv_flamegraph_node_count(fg) == 6 && pv_flamegraph_total(fg) == 17,
          "empty frames (leading, doubled, trailing ';') are skipped",
          "nodes %zu total %lld", pv_flamegraph_node_count(fg),
          (long long)pv_flamegraph_total(fg));
    add(fg, "new;stack", 0);
    check(pv_flamegraph_node_count(fg) == 6 && pv_flamegraph_total(fg) == 17,
          "a zero weight adds nothing, not even nodes", "nodes %zu",
          pv_flamegraph_node_count(fg));
    pv_flamegraph_status st = pv_flamegraph_add(fg, "neg", 3, -1);
    check(st == PV_FLAMEGRAPH_NEGATIVE_WEIGHT && pv_flamegraph_node_count(fg) == 6,
          "a negative weight is an error and adds nothing", "status %d", (int)st);
    st = pv_flamegraph_add(fg, "big", 3, INT64_MAX);
    check(st == PV_FLAMEGRAPH_TOTAL_OVERFLOW && pv_flamegraph_total(fg) == 17,
          "a total past INT64_MAX is an error and adds nothing", "status %d", (int)st);
    add(fg, "", 3);                 /* the empty stack: the root's own weight */
    check(pv_flamegraph_total(fg) == 20 && pv_flamegraph_node_count(fg) == 6,
          "an empty stack adds to the root only", "total %lld",
          (long long)pv_flamegraph_total(fg));
    /* the length is honoured: no NUL needed, and NULs are plain bytes */
    pv_flamegraph_add(fg, "main;foo;barXXX", 12, 1);
    check(pv_flamegraph_node_count(fg) == 6, "the stack's length bounds it, not a NUL",
          "nodes %zu", pv_flamegraph_node_count(fg));
    pv_flamegraph_free(fg);
}

static void test_layout(void)
{
    pv_flamegraph *fg = pv_flamegraph_new();
    add(fg, "main;foo;bar", 3);
    add(fg, "main;foo", 1);
    add(fg, "main;baz", 4);
    add(fg, "x;y", 2);
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    pv_flamegraph_layout l;
    if (!pv_flamegraph_layout_make(fg, &style, &l)) {
        check(false, "layout", "out of memory");
        return;
    }
    check(l.count == 7 && l.hidden == 0, "every frame is drawn (7 with the root)",
          "count %zu hidden %zu", l.count, l.hidden);
    /* plot width = 1200 - 2 * 10 = 1180 px for 10 units: 118 px per unit */
    const pv_flamegraph_frame *all = find(&l, "all", 0), *main_ = find(&l, "main", 1),
                              *x = find(&l, "x", 1), *baz = find(&l, "baz", 2),
                              *foo = find(&l, "foo", 2), *bar = find(&l, "bar", 3),
                              *y = find(&l, "y", 2);
    if (!all || !main_ || !x || !baz || !foo || !bar || !y) {
        check(false, "layout has all, main, x, baz, foo, bar, y", "one is missing");
        pv_flamegraph_layout_free(&l);
        pv_flamegraph_free(fg);
        return;
    }
    check(near(all->x, 10) && near(all->width, 1180) && all->weight == 10,
          "the root spans the plot", "x %g width %g", all->x, all->width);
    check(near(main_->width, 8 * 118.0) && near(x->width, 2 * 118.0) &&
              near(baz->width, 4 * 118.0) && near(foo->width, 4 * 118.0) &&
              near(bar->width, 3 * 118.0) && near(y->width, 2 * 118.0),
          "widths are proportional to inclusive weight",
          "main %g x %g baz %g foo %g bar %g y %g", main_->width, x->width, baz->width,
          foo->width, bar->width, y->width);
    check(near(main_->x, 10) && near(x->x, 10 + 8 * 118.0),
          "siblings are sorted by name and abut: main then x", "main %g x %g", main_->x, x->x);
    check(near(baz->x, 10) && near(foo->x, 10 + 4 * 118.0) && near(bar->x, foo->x),
          "baz before foo; a child starts at its parent's left edge when first",
          "baz %g foo %g bar %g", baz->x, foo->x, bar->x);
    check(all->y > main_->y && main_->y > foo->y && foo->y > bar->y &&
              near(main_->y - foo->y, style.frame_height) &&
              near(l.height - all->y, 10 + style.frame_height),
          "the root is at the bottom, each level one frame height higher",
          "all %g main %g foo %g bar %g height %g", all->y, main_->y, foo->y, bar->y, l.height);
    /* depth first, parents first, children in name order */
    const char *order[] = {"all", "main", "baz", "foo", "bar", "x", "y"};
    bool in_order = l.count == 7;
    for (size_t i = 0; in_order && i < 7; i++)
        in_order = l.frames[i].name_len == strlen(order[i]) &&
                   memcmp(l.frames[i].name, order[i], l.frames[i].name_len) == 0;
    check(in_order, "frames come depth first, parents before children, by name",
          "first is %.*s", (int)l.frames[0].name_len, l.frames[0].name);
    pv_flamegraph_layout_free(&l);
    pv_flamegraph_free(fg);
}

static void test_sort_bytes(void)
{
    pv_flamegraph *fg = pv_flamegraph_new();
    add(fg, "b", 1);
    add(fg, "ab", 1);
    add(fg, "a", 1);
    add(fg, "B", 1);
    add(fg, "\xc3\xa9", 1);  /* é sorts after every ASCII name */
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    pv_flamegraph_layout l;
    pv_flamegraph_layout_make(fg, &style, &l);
    const char *order[] = {"all", "B", "a", "ab", "b", "\xc3\xa9"};
    bool ok = l.count == 6;
    for (size_t i = 0; ok && i < 6; i++)
        ok = l.frames[i].name_len == strlen(order[i]) &&
             memcmp(l.frames[i].name, order[i], l.frames[i].name_len) == 0 &&
             (i < 2 || near(l.frames[i].x, l.frames[i - 1].x + l.frames[i - 1].width));
    check(ok, "siblings sort by bytes (B < a < ab < b < \\u00e9) and abut", "count %zu",
          l.count);
    pv_flamegraph_layout_free(&l);
    pv_flamegraph_free(fg);
}

static void test_hidden(void)
{
    pv_flamegraph *fg = pv_flamegraph_new();
    add(fg, "main;big", 999999);
    add(fg, "main;tiny;a;b", 1);     /* 1180 / 1e6 px: narrower than 0.1 px */
    add(fg, "main;tiny;c", 1);
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    pv_flamegraph_layout l;
    pv_flamegraph_layout_make(fg, &style, &l);
    check(l.count == 3 && !find(&l, "tiny", 2) && l.hidden == 4,
          "a frame narrower than min_frame_width is not drawn, nor its subtree",
          "count %zu hidden %zu (want 3 drawn, 4 hidden: tiny, a, b, c)", l.count, l.hidden);
    pv_flamegraph_layout_free(&l);
    style.min_frame_width = 0;
    pv_flamegraph_layout_make(fg, &style, &l);
    check(l.count == 7 && l.hidden == 0, "with min_frame_width 0 every frame is drawn",
          "count %zu hidden %zu", l.count, l.hidden);
    pv_flamegraph_layout_free(&l);
    pv_flamegraph_free(fg);
}

static void test_xml_text(void)
{
    pv_strbuf b = {0};
    pv_flamegraph_xml_text(&b, "a<b>&\"'c", 8, SIZE_MAX);
    check(strcmp(pv_strbuf_text(&b), "a&lt;b&gt;&amp;&quot;&apos;c") == 0,
          "XML specials become entities", "got '%s'", pv_strbuf_text(&b));
    pv_strbuf_reset(&b);
    pv_flamegraph_xml_text(&b, "x\xffy\x01z\xc3\xa9\xe2\x82", 9, SIZE_MAX);
    check(strcmp(pv_strbuf_text(&b), "x\xef\xbf\xbdy\xef\xbf\xbdz\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd") == 0,
          "invalid UTF-8, controls and a cut sequence become U+FFFD; valid UTF-8 stays",
          "got '%s'", pv_strbuf_text(&b));
    pv_strbuf_reset(&b);
    pv_flamegraph_xml_text(&b, "\xc0\xaf\xed\xa0\x80\xef\xbf\xbe", 8, SIZE_MAX);
    check(count_of(pv_strbuf_text(&b), "\xef\xbf\xbd") == 8 - 2,
          "overlong forms, surrogates and U+FFFE are replaced",
          "got '%s'", pv_strbuf_text(&b));
    pv_strbuf_reset(&b);
    size_t n = pv_flamegraph_xml_text(&b, "abcdefgh", 8, 5);
    check(n == 5 && strcmp(pv_strbuf_text(&b), "abc..") == 0,
          "a long name is cut to max_chars with '..'", "got '%s' (%zu)", pv_strbuf_text(&b), n);
    pv_strbuf_reset(&b);
    n = pv_flamegraph_xml_text(&b, "abcdefgh", 8, 8);
    check(n == 8 && strcmp(pv_strbuf_text(&b), "abcdefgh") == 0,
          "a name that fits is whole", "got '%s'", pv_strbuf_text(&b));
    pv_strbuf_reset(&b);
    n = pv_flamegraph_xml_text(&b, "abcdefgh", 8, 2);
    check(n == 0 && b.len == 0, "no room for 3 characters: nothing", "got '%s'",
          pv_strbuf_text(&b));
    pv_strbuf_reset(&b);
    n = pv_flamegraph_xml_text(&b, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9&", 9, 4);
    check(n == 4 && strcmp(pv_strbuf_text(&b), "\xc3\xa9\xc3\xa9..") == 0,
          "cutting counts characters, not bytes, and never splits one",
          "got '%s'", pv_strbuf_text(&b));
    pv_strbuf_free(&b);
}

typedef void color_fn(const char *name, size_t len, uint8_t rgb[3]);

/* Over 1000 names: each within [lo, hi] per channel; how many differ from
 * the previous name's colour (*distinct). */
static bool palette_within(color_fn *color, const uint8_t lo[3], const uint8_t hi[3],
                           int *distinct)
{
    bool within = true;
    uint8_t c[3], prev[3] = {0, 0, 0};
    char name[32];
    *distinct = 0;
    for (int i = 0; i < 1000; i++) {
        int len = snprintf(name, sizeof name, "func_%d", i);
        color(name, (size_t)len, c);
        for (int k = 0; k < 3; k++)
            within = within && c[k] >= lo[k] && c[k] <= hi[k];
        *distinct += memcmp(c, prev, 3) != 0;
        memcpy(prev, c, 3);
    }
    return within;
}

static void test_colors(void)
{
    uint8_t a[3], b[3];
    pv_flamegraph_color("main", 4, a);
    pv_flamegraph_color("main", 4, b);
    check(memcmp(a, b, 3) == 0, "a name always gets the same colour", "differs");
    int distinct;
    bool warm = palette_within(pv_flamegraph_color, (const uint8_t[3]){205, 0, 0},
                               (const uint8_t[3]){255, 230, 55}, &distinct);
    check(warm, "colours are warm: red 205-255, green 0-230, blue 0-55", "one is not");
    check(distinct >= 990, "names that differ in one character get different colours",
          "%d of 1000 differ from the previous", distinct);
    pv_flamegraph_cold_color("main", 4, a);
    pv_flamegraph_cold_color("main", 4, b);
    check(memcmp(a, b, 3) == 0, "off-CPU: a name always gets the same blue", "differs");
    /* disjoint from the warm ranges in red (<= 109 < 205) and blue (>= 205 > 55) */
    bool blue = palette_within(pv_flamegraph_cold_color, (const uint8_t[3]){40, 90, 205},
                               (const uint8_t[3]){109, 169, 254}, &distinct);
    check(blue, "off-CPU colours are blue tones (red 40-109, green 90-169, blue 205-254), "
                "never warm", "one is not");
    check(distinct >= 990, "off-CPU: names that differ in one character get different blues",
          "%d of 1000 differ from the previous", distinct);
}

static char *svg_of(pv_flamegraph *fg, const pv_flamegraph_style *style)
{
    pv_strbuf b = {0};
    if (!pv_flamegraph_svg(fg, style, &b)) {
        pv_strbuf_free(&b);
        return NULL;
    }
    return b.text;
}

static void test_svg(void)
{
    const char *stacks[] = {"main;foo;bar", "main;foo", "main;baz", "x;y", "x;<&>"};
    const int64_t weights[] = {3, 1, 4, 2, 2};
    pv_flamegraph *one = pv_flamegraph_new(), *two = pv_flamegraph_new();
    for (int i = 0; i < 5; i++) {
        add(one, stacks[i], weights[i]);
        add(two, stacks[4 - i], weights[4 - i]);
    }
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    style.title = "cpu <clock> & co";
    char *svg1 = svg_of(one, &style), *svg2 = svg_of(two, &style);
    if (!svg1 || !svg2) {
        check(false, "svg", "out of memory");
        return;
    }
    check(strcmp(svg1, svg2) == 0, "the SVG does not depend on the order rows came in",
          "differs");
    check(strncmp(svg1, "<?xml ", 6) == 0 && strstr(svg1, "<svg xmlns=\"http://www.w3.org/2000/svg\"") &&
              strcmp(svg1 + strlen(svg1) - 7, "</svg>\n") == 0,
          "an XML document with one svg element", "starts '%.40s'", svg1);
    check(count_of(svg1, "<g class=\"frame\">") == 8,
          "one <g class=\"frame\"> per drawn frame (root and 7 prefixes)", "got %zu",
          count_of(svg1, "<g class=\"frame\">"));
    check(strstr(svg1, "<title>all (12 samples, 100.00%)</title>") &&
              strstr(svg1, "<title>main (8 samples, 66.67%)</title>") &&
              strstr(svg1, "<title>bar (3 samples, 25.00%)</title>"),
          "hover titles read 'name (N samples, P%)'", "not found");
    check(strstr(svg1, "<title>&lt;&amp;&gt; (2 samples, 16.67%)</title>") &&
              strstr(svg1, ">cpu &lt;clock&gt; &amp; co</text>") && !strstr(svg1, "<&>"),
          "frame names and the title are escaped", "not found");
    check(strstr(svg1, "total 12 samples") != NULL, "the subtitle gives the total", "missing");
    free(svg1);
    free(svg2);

    style.unit = "ns";
    pv_flamegraph_free(two);
    two = pv_flamegraph_new();
    add(two, "f", 1500);
    char *svg = svg_of(two, &style);
    check(svg && strstr(svg, "<title>f (1500 ns, 100.00%)</title>"),
          "the unit names what weights count", "not found");
    free(svg);

    /* a long name in a narrow frame is cut; no text when nothing fits */
    pv_flamegraph_free(two);
    two = pv_flamegraph_new();
    add(two, "a_very_long_function_name_indeed", 10);
    add(two, "narrow_but_visible_frame", 100);   /* wide enough for a few chars */
    add(two, "z", 100000);
    pv_flamegraph_style_default(&style);
    svg = svg_of(two, &style);
    /* 10/100110*1180 = 0.12 px: drawn, no text; 100/100110*1180 = 1.18 px: no text */
    check(svg && strstr(svg, "<title>a_very_long_function_name_indeed (10 samples, 0.01%)</title><rect") &&
              !strstr(svg, ">a_very_long_function_name_indeed</text>") &&
              !strstr(svg, ">narrow_but_visible_frame</text>"),
          "a frame too narrow for three characters has no text", "not as expected");
    free(svg);
    pv_flamegraph_free(two);
    two = pv_flamegraph_new();
    add(two, "a_very_long_function_name_indeed", 60);
    add(two, "z", 940);
    svg = svg_of(two, &style);
    /* 60/1000*1180 = 70.8 px: (70.8 - 6) / (12 * 0.65) = 8.3 -> 8 chars */
    check(svg && strstr(svg, ">a_very..</text>"), "a name is cut to the frame's width",
          "not found");
    free(svg);

    pv_flamegraph_free(two);
    two = pv_flamegraph_new();
    svg = svg_of(two, &style);
    check(svg && count_of(svg, "<g class=\"frame\">") == 0 &&
              strstr(svg, "total 0 samples: nothing to draw"),
          "an empty graph is a valid SVG saying there is nothing to draw", "not as expected");
    free(svg);
    pv_flamegraph_free(one);
    pv_flamegraph_free(two);
}

/* The frame whose title starts "name (" in svg: its fill, or "" when none. */
static const char *fill_of(const char *svg, const char *name, char *fill, size_t size)
{
    char key[128];
    snprintf(key, sizeof key, "<title>%s (", name);
    const char *at = strstr(svg, key);
    const char *f = at ? strstr(at, "fill=\"") : NULL;
    const char *end = f ? strchr(f + 6, '"') : NULL;
    fill[0] = 0;
    if (end && (size_t)(end - f - 6) < size) {
        memcpy(fill, f + 6, (size_t)(end - f - 6));
        fill[end - f - 6] = 0;
    }
    return fill;
}

static void test_differential(void)
{
    /* base: x 40, y 40, z 20 of 100; new: x 90, y 30, z 40, w 40 of 200.
     * Self shares: x 40% -> 45% (grew), y 40% -> 15% (shrank), z 20% -> 20%
     * (equal), w 0% -> 20% (new); main and all have no self weight. */
    pv_flamegraph *fg = pv_flamegraph_new_differential();
    pv_flamegraph_status st = pv_flamegraph_add_diff(fg, "main;x", 6, 90, 40);
    st = st ? st : pv_flamegraph_add_diff(fg, "main;y", 6, 30, 40);
    st = st ? st : pv_flamegraph_add_diff(fg, "main;z", 6, 40, 20);
    st = st ? st : pv_flamegraph_add_diff(fg, "main;w", 6, 40, 0);
    st = st ? st : pv_flamegraph_add_diff(fg, "main;gone", 9, 0, 5);
    check(st == PV_FLAMEGRAPH_OK && pv_flamegraph_total(fg) == 200 &&
              pv_flamegraph_base_total(fg) == 105 && pv_flamegraph_is_differential(fg),
          "a differential graph sums both weights", "status %d total %lld base %lld", (int)st,
          (long long)pv_flamegraph_total(fg), (long long)pv_flamegraph_base_total(fg));
    check(pv_flamegraph_add_diff(fg, "main;x", 6, 1, -1) == PV_FLAMEGRAPH_NEGATIVE_WEIGHT,
          "a negative base weight is an error", "accepted");
    pv_flamegraph_free(fg);

    fg = pv_flamegraph_new_differential();
    pv_flamegraph_add_diff(fg, "main;x", 6, 90, 40);
    pv_flamegraph_add_diff(fg, "main;y", 6, 30, 40);
    pv_flamegraph_add_diff(fg, "main;z", 6, 40, 20);
    pv_flamegraph_add_diff(fg, "main;w", 6, 40, 0);
    pv_flamegraph_add_diff(fg, "main;gone;deeper", 16, 0, 0);   /* nothing */
    pv_flamegraph_add_diff(fg, "main;gone;deeper", 16, 0, 7);   /* only in the base */
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    pv_flamegraph_layout l;
    pv_flamegraph_layout_make(fg, &style, &l);
    const pv_flamegraph_frame *x = find(&l, "x", 2), *y = find(&l, "y", 2);
    check(l.count == 6 && l.base_only == 2 && !find(&l, "gone", 2) && x && y &&
              near(x->width, 90 * 1180.0 / 200) && x->base_weight == 40 && y->base_weight == 40,
          "widths follow the new weights; frames only in the base are not drawn",
          "count %zu base_only %zu", l.count, l.base_only);
    /* base total 107 (7 only in the base): y's self share 37.38% -> 15% is
     * the strongest change */
    double strongest = pv_flamegraph_share_delta(30, 200, 40, 107);
    check(near(l.max_self_delta, -strongest), "the strongest self-share change is y's -22.38 points",
          "got %g", l.max_self_delta);
    pv_flamegraph_layout_free(&l);
    char *svg = svg_of(fg, &style);
    char fill[32];
    check(svg && strcmp(fill_of(svg, "y", fill, sizeof fill), "rgb(50,50,255)") == 0,
          "the frame whose self share shrank most is full blue", "fill '%s'", fill);
    uint8_t want[3];
    pv_flamegraph_diff_color(pv_flamegraph_share_delta(90, 200, 40, 107), -strongest, want);
    char want_fill[32];
    snprintf(want_fill, sizeof want_fill, "rgb(%u,%u,%u)", want[0], want[1], want[2]);
    check(svg && want[0] == 255 && want[1] < 220 && want[1] == want[2] &&
              strcmp(fill_of(svg, "x", fill, sizeof fill), want_fill) == 0,
          "a frame whose self share grew (37.38% -> 45%) is red", "fill '%s', want %s", fill,
          want_fill);
    check(svg && strncmp(fill_of(svg, "w", fill, sizeof fill), "rgb(255,", 8) == 0,
          "a frame only in the new profile is red", "fill '%s'", fill);
    check(svg && strcmp(fill_of(svg, "main", fill, sizeof fill), "rgb(220,220,220)") == 0 &&
              strcmp(fill_of(svg, "all", fill, sizeof fill), "rgb(220,220,220)") == 0,
          "frames without self weight on either side are grey", "main fill '%s'", fill);
    check(svg && strstr(svg, "<title>x (90 samples, 45.00%; base 40 samples, 37.38%; "
                             "+7.62 points, self +7.62 points)</title>") &&
              strstr(svg, "<title>main (200 samples, 100.00%; base 107 samples, 100.00%; "
                          "-0.00 points, self 0.00 points)</title>") == NULL,
          "titles give both weights and shares and the changes in points", "not found");
    check(svg && strstr(svg, "total 200 samples, base 107 samples") &&
              strstr(svg, "2 frames only in the base not drawn"),
          "the subtitle gives both totals and counts the frames only in the base", "not found");
    free(svg);
    pv_flamegraph_free(fg);

    /* equal shares, different totals: neutral */
    fg = pv_flamegraph_new_differential();
    pv_flamegraph_add_diff(fg, "a", 1, 30, 3);
    pv_flamegraph_add_diff(fg, "b", 1, 70, 7);
    pv_flamegraph_add_diff(fg, "c", 1, 0, 0);
    svg = svg_of(fg, &style);
    check(svg && strcmp(fill_of(svg, "a", fill, sizeof fill), "rgb(220,220,220)") == 0 &&
              strcmp(fill_of(svg, "b", fill, sizeof fill), "rgb(220,220,220)") == 0 &&
              strstr(svg, "<title>a (30 samples, 30.00%; base 3 samples, 30.00%; 0.00 points, "
                          "self 0.00 points)</title>"),
          "equal shares of different totals (30 of 100, 3 of 10) are grey, 0 points", "fill '%s'",
          fill);
    free(svg);
    pv_flamegraph_free(fg);

    pv_flamegraph_diff_color(0.1, 0.1, want);
    uint8_t half[3];
    pv_flamegraph_diff_color(-0.05, 0.1, half);
    check(want[0] == 255 && want[1] == 50 && want[2] == 50 && half[2] == 255 &&
              half[0] == half[1] && half[0] == 135,
          "intensity follows |delta| / the strongest: full red, half blue rgb(135,135,255)",
          "red %u,%u,%u blue %u,%u,%u", want[0], want[1], want[2], half[0], half[1], half[2]);
}

/* The fills of svg's frames, in document order, as "rgb(r,g,b)" strings
 * into fills[] (at most max); returns how many. */
static size_t fills_of(const char *svg, char fills[][32], size_t max)
{
    size_t n = 0;
    for (const char *at = svg; n < max && (at = strstr(at, "<g class=\"frame\">")); n++) {
        const char *f = strstr(at, "fill=\"");
        const char *end = f ? strchr(f + 6, '"') : NULL;
        if (!end || end - f - 6 >= 32)
            break;
        memcpy(fills[n], f + 6, (size_t)(end - f - 6));
        fills[n][end - f - 6] = 0;
        at = end;
    }
    return n;
}

static void test_off_cpu(void)
{
    /* "[off-cpu]" and all above it are off-CPU, wherever it is; only that
     * exact name; a marker above a marker counts once in the total */
    static const struct {
        const char *stack;
        int64_t weight;
    } rows[] = {
        {"p;main;work", 30},    {"p;[off-cpu];main;sleep", 50}, {"q;[off-cpu]", 10},
        {"q;x;[off-cpu];y", 5}, {"r;[off-cpu]x;z", 5},          {"r;[off-cpu];[off-cpu];z", 7},
    };
    pv_flamegraph *fg = pv_flamegraph_new();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        add(fg, rows[i].stack, rows[i].weight);
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    pv_flamegraph_layout l;
    if (!pv_flamegraph_layout_make(fg, &style, &l)) {
        check(false, "off-CPU layout", "out of memory");
        pv_flamegraph_free(fg);
        return;
    }
    const pv_flamegraph_frame *on_main = find(&l, "main", 2), *off_main = find(&l, "main", 3);
    const pv_flamegraph_frame *mark = find(&l, PV_FLAMEGRAPH_OFFCPU_MARK, 2);
    const pv_flamegraph_frame *sleep = find(&l, "sleep", 4), *work = find(&l, "work", 3);
    const pv_flamegraph_frame *x = find(&l, "x", 2), *y = find(&l, "y", 4);
    const pv_flamegraph_frame *near_miss = find(&l, "[off-cpu]x", 2);
    check(on_main && off_main && mark && sleep && work && x && y && near_miss &&
              !l.frames[0].off_cpu && !find(&l, "p", 1)->off_cpu && !on_main->off_cpu &&
              !work->off_cpu && mark->off_cpu && off_main->off_cpu && sleep->off_cpu &&
              !x->off_cpu && y->off_cpu && !near_miss->off_cpu && !find(&l, "z", 3)->off_cpu,
          "off-CPU frames: '[off-cpu]' and every frame above it, no other; main is in two "
          "towers, one of each", "flags not as expected");
    check(l.off_cpu_weight == 50 + 10 + 5 + 7,
          "the off-CPU total sums the outermost '[off-cpu]' frames (72)", "got %lld",
          (long long)l.off_cpu_weight);
    char *svg = svg_of(fg, &style);
    char fills[32][32];
    size_t n = svg ? fills_of(svg, fills, 32) : 0;
    size_t wrong = 0;
    for (size_t i = 0; i < l.count; i++) {
        uint8_t want[3];
        char want_fill[32];
        if (l.frames[i].off_cpu)
            pv_flamegraph_cold_color(l.frames[i].name, l.frames[i].name_len, want);
        else
            pv_flamegraph_color(l.frames[i].name, l.frames[i].name_len, want);
        snprintf(want_fill, sizeof want_fill, "rgb(%u,%u,%u)", want[0], want[1], want[2]);
        wrong += i >= n || strcmp(fills[i], want_fill) != 0;
    }
    check(n == l.count && wrong == 0,
          "the SVG fills off-CPU frames blue and the others warm, each by its name",
          "%zu frames, %zu fills, %zu wrong", l.count, n, wrong);
    check(svg && strstr(svg, "total 107 samples; off-CPU (blue) 72 samples, 67.29%"),
          "the subtitle gives the off-CPU total and share", "not found");
    free(svg);
    pv_flamegraph_layout_free(&l);
    pv_flamegraph_free(fg);

    /* no marker: no off-CPU words; a differential graph keeps its colours */
    fg = pv_flamegraph_new();
    add(fg, "a;b", 3);
    svg = svg_of(fg, &style);
    check(svg && !strstr(svg, "off-CPU"), "without a marker the subtitle says nothing of off-CPU",
          "it does");
    free(svg);
    pv_flamegraph_free(fg);
    fg = pv_flamegraph_new_differential();
    pv_flamegraph_add_diff(fg, "p;[off-cpu];s", 13, 5, 5);
    pv_flamegraph_add_diff(fg, "p;w", 3, 5, 5);
    svg = svg_of(fg, &style);
    char fill[32];
    check(svg && strcmp(fill_of(svg, "[off-cpu]", fill, sizeof fill), "rgb(220,220,220)") == 0 &&
              strcmp(fill_of(svg, "s", fill, sizeof fill), "rgb(220,220,220)") == 0 &&
              !strstr(svg, "off-CPU"),
          "a differential graph colours '[off-cpu]' frames by their change, as any other",
          "fill '%s'", fill);
    free(svg);
    pv_flamegraph_free(fg);
}

/* Weights in ns read in ms or s too, from 1 ms on; other units do not. */
static void test_ns_titles(void)
{
    pv_flamegraph *fg = pv_flamegraph_new();
    add(fg, "short", 999999);
    add(fg, "milli", 2500000);
    add(fg, "long", 3000000000);
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    style.unit = "ns";
    char *svg = svg_of(fg, &style);
    check(svg && strstr(svg, "<title>short (999999 ns, 0.03%)</title>") &&
              strstr(svg, "<title>milli (2500000 ns = 2.50 ms, 0.08%)</title>") &&
              strstr(svg, "<title>long (3000000000 ns = 3.00 s, 99.88%)</title>") &&
              strstr(svg, "total 3003499999 ns = 3.00 s"),
          "ns weights from 1 ms on also read in ms or s (titles and subtitle)", "not found");
    free(svg);
    style.unit = "samples";
    svg = svg_of(fg, &style);
    check(svg && strstr(svg, "<title>milli (2500000 samples, 0.08%)</title>"),
          "other units are shown as they are", "not found");
    free(svg);
    pv_flamegraph_free(fg);
}

static void test_script(void)
{
    check(strstr(pv_flamegraph_script, "]]>") == NULL,
          "the script has no ']]>' (it sits in a CDATA section)", "found");
    pv_flamegraph *fg = pv_flamegraph_new();
    add(fg, "a;b", 1);
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    char *svg = svg_of(fg, &style);
    const char *script = svg ? strstr(svg, "<script><![CDATA[\n") : NULL;
    check(script && strstr(script, pv_flamegraph_script) &&
              strstr(script, "]]></script>\n</svg>\n") && count_of(svg, "<script") == 1 &&
              !strstr(svg, "href="),
          "the SVG ends with the script, inline, and loads nothing", "not found");
    check(svg && strstr(svg, "<g id=\"frames\" data-pad=\"10.00\" data-plot-width=\"1180.00\"") &&
              strstr(svg, "<g id=\"header\""),
          "the frames carry the geometry the script needs; the header is a group",
          "not found");
    free(svg);
    pv_flamegraph_free(fg);
}

static void test_deep_levels(void)
{
    /* 130 levels (a python3 stack): 56 + 131 * 16 + 10 = 2162 px at 16 px a
     * level; at 12 px, 1638 px */
    pv_strbuf stack = {0};
    for (int i = 0; i < 130; i++)
        pv_strbuf_printf(&stack, "%sframe_%d", i ? ";" : "", i);
    pv_flamegraph *fg = pv_flamegraph_new();
    add(fg, pv_strbuf_text(&stack), 10);
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    pv_flamegraph_layout l;
    pv_flamegraph_layout_make(fg, &style, &l);
    check(near(l.frame_height, 12) && near(l.font_size, 9) && near(l.height, 56 + 131 * 12 + 10),
          "a 131-level graph gets 12-px levels and a 9-px font", "height %g level %g font %g",
          l.height, l.frame_height, l.font_size);
    pv_flamegraph_layout_free(&l);
    pv_flamegraph_free(fg);
    fg = pv_flamegraph_new();
    add(fg, "a;b;c", 1);
    pv_flamegraph_layout_make(fg, &style, &l);
    check(near(l.frame_height, 16) && near(l.font_size, 12),
          "a shallow graph keeps 16-px levels and a 12-px font", "level %g", l.frame_height);
    pv_flamegraph_layout_free(&l);
    pv_flamegraph_free(fg);
    pv_strbuf_free(&stack);
}

static void test_many_rows(void)
{
    /* two million rows over 1000 distinct stacks: nodes stay 1000 + 10 */
    pv_flamegraph *fg = pv_flamegraph_new();
    char stack[64];
    bool ok = true;
    for (int i = 0; i < 2000000 && ok; i++) {
        int len = snprintf(stack, sizeof stack, "main;f%d;g%d", i % 10, i % 1000);
        ok = pv_flamegraph_add(fg, stack, (size_t)len, 1) == PV_FLAMEGRAPH_OK;
    }
    check(ok && pv_flamegraph_node_count(fg) == 1 + 10 + 1000 &&
              pv_flamegraph_total(fg) == 2000000,
          "2,000,000 rows over 1000 stacks make 1011 nodes", "nodes %zu total %lld",
          pv_flamegraph_node_count(fg), (long long)pv_flamegraph_total(fg));
    pv_flamegraph_free(fg);

    /* many distinct stacks: the hash table grows and lookups stay right */
    fg = pv_flamegraph_new();
    for (int i = 0; i < 200000 && ok; i++) {
        int len = snprintf(stack, sizeof stack, "r;n%d", i);
        ok = pv_flamegraph_add(fg, stack, (size_t)len, 1) == PV_FLAMEGRAPH_OK;
    }
    for (int i = 0; i < 200000 && ok; i += 7) {
        int len = snprintf(stack, sizeof stack, "r;n%d", i);
        ok = pv_flamegraph_add(fg, stack, (size_t)len, 1) == PV_FLAMEGRAPH_OK;
    }
    check(ok && pv_flamegraph_node_count(fg) == 200001,
          "200,000 distinct stacks, then repeats: 200,001 nodes", "nodes %zu",
          pv_flamegraph_node_count(fg));
    pv_flamegraph_free(fg);

    /* a deep stack (no recursion in the layout) */
    size_t depth = 100000;
    char *deep = malloc(depth * 2);
    for (size_t i = 0; i < depth; i++) {
        deep[2 * i] = 'f';
        deep[2 * i + 1] = ';';
    }
    fg = pv_flamegraph_new();
    ok = pv_flamegraph_add(fg, deep, depth * 2 - 1, 5) == PV_FLAMEGRAPH_OK;
    pv_flamegraph_style style;
    pv_flamegraph_style_default(&style);
    pv_flamegraph_layout l;
    ok = ok && pv_flamegraph_layout_make(fg, &style, &l);
    check(ok && l.count == depth + 1 && l.frames[depth].depth == depth,
          "a 100,000-frame stack lays out without recursion", "count %zu",
          ok ? l.count : 0);
    if (ok)
        pv_flamegraph_layout_free(&l);
    pv_flamegraph_free(fg);
    free(deep);
}

static void test_folded_stack(void)
{
    pv_folded_stack s = {0};
    pv_strbuf out = {0};
    /* rows in any order; depth 0 is the leaf */
    pv_folded_stack_add(&s, 1, "middle", 6);
    pv_folded_stack_add(&s, 0, "leaf", 4);
    pv_folded_stack_add(&s, 3, "root", 4);
    pv_folded_stack_add(&s, 2, "a;b\nc", 5);
    pv_folded_stack_join(&s, &out);
    check(strcmp(pv_strbuf_text(&out), "root;a:b:c;middle;leaf") == 0,
          "frames join deepest first; ';' and line breaks in a name become ':'",
          "got '%s'", pv_strbuf_text(&out));
    pv_folded_stack_free(&s);
    pv_strbuf_reset(&out);
    pv_folded_stack_add(&s, 5, "x", 1);
    pv_folded_stack_add(&s, 5, "y", 1);
    pv_folded_stack_add(&s, 5, "", 0);
    pv_folded_stack_join(&s, &out);
    check(strcmp(pv_strbuf_text(&out), "x;y;") == 0,
          "frames of equal depth keep their order; an empty name stays a frame",
          "got '%s'", pv_strbuf_text(&out));
    pv_folded_stack_free(&s);
    pv_strbuf_free(&out);
}

int main(void)
{
    test_folded_stack();
    test_tree();
    test_layout();
    test_sort_bytes();
    test_hidden();
    test_xml_text();
    test_colors();
    test_svg();
    test_differential();
    test_off_cpu();
    test_ns_titles();
    test_script();
    test_deep_levels();
    test_many_rows();
    return failures ? 1 : 0;
}
