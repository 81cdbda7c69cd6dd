/*
 * Unit tests of the flame graph (src/render/flamegraph.c): merging stacks into a
 * tree, the layout (widths, order, hiding narrow frames, root at the
 * bottom), XML escaping and cutting of names, colours, and the SVG text;
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

static void test_colors(void)
{
    uint8_t a[3], b[3];
    pv_flamegraph_color("main", 4, a);
    pv_flamegraph_color("main", 4, b);
    check(memcmp(a, b, 3) == 0, "a name always gets the same colour", "differs");
    bool warm = true;
    int distinct = 0;
    uint8_t prev[3] = {0, 0, 0};
    char name[32];
    for (int i = 0; i < 1000; i++) {
        int len = snprintf(name, sizeof name, "func_%d", i);
        pv_flamegraph_color(name, (size_t)len, a);
        warm = warm && a[0] >= 205 && a[1] <= 230 && a[2] <= 55;
        distinct += memcmp(a, prev, 3) != 0;
        memcpy(prev, a, 3);
    }
    check(warm, "colours are warm: red 205-255, green 0-230, blue 0-55", "one is not");
    check(distinct >= 990, "names that differ in one character get different colours",
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
    test_many_rows();
    return failures ? 1 : 0;
}
