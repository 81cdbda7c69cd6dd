/*
 * Flame graphs: folded stacks in, an SVG picture out.
 *
 * A folded stack is text like "main;parse;read_line", root first, frames
 * separated by ';' (Brendan Gregg's format, as stackcollapse-perf writes it
 * before its count).  Stacks are merged into a tree with one node per
 * distinct prefix, each node holding its inclusive weight, so memory grows
 * with the number of distinct prefixes, not with the number of stacks added.
 *
 * The picture (pv_flamegraph_svg) has the root "all" at the bottom, each
 * frame's children above it sorted by name, widths proportional to weight;
 * frames narrower than a threshold are not drawn (nor, being narrower still,
 * their children).  Each drawn frame is a <g class="frame"> holding
 * <title>name (N samples, P%)</title>, a <rect> and, when it fits, the name
 * cut to the frame's width.  ext/flamegraph.c is the SQL side.
 *
 * The SVG carries a small script (render/flamegraph_script.c) that makes it
 * explorable in a browser: click a frame to zoom into it, reset the zoom,
 * search frames by regular expression.  Without scripts it is the same
 * picture, titles on hover included.
 *
 * A differential graph (pv_flamegraph_new_differential) holds two weights
 * per stack, new and base.  Widths follow the new weights; each frame's
 * colour shows how its self share (its own weight less its children's, over
 * the total) changed from base to new: red grew, blue shrank, grey equal, the
 * strongest change on the picture at full intensity -- the colouring of
 * Brendan Gregg's red/blue differential flame graphs (difffolded.pl -n).
 *
 * Off-CPU frames: in a graph that is not differential, a frame named exactly
 * "[off-cpu]" (PV_FLAMEGRAPH_OFFCPU_MARK) and every frame above it are
 * off-CPU time and drawn in blue tones, all other frames in the warm ones --
 * Brendan Gregg's hot/cold flame graphs.  A query puts the marker right above
 * the comm of its off-CPU stacks ("comm;[off-cpu];main;..."), so a function
 * both on and off CPU has a frame in each tower, each of one colour.  The
 * subtitle gives the off-CPU frames' total.  (A differential graph's colour
 * is its change; the marker changes nothing there.)
 *
 * Weights in ns (unit "ns") are also shown in ms or s from 1 ms on:
 * "name (220122678 ns = 220.12 ms, 98.99%)".
 */
#ifndef PV_FLAMEGRAPH_H
#define PV_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pv_strbuf.h"

typedef struct pv_flamegraph pv_flamegraph;

typedef enum pv_flamegraph_status {
    PV_FLAMEGRAPH_OK = 0,
    PV_FLAMEGRAPH_NOMEM,
    PV_FLAMEGRAPH_NEGATIVE_WEIGHT,
    PV_FLAMEGRAPH_TOTAL_OVERFLOW,    /* the sum of weights passed INT64_MAX */
    PV_FLAMEGRAPH_TOO_MANY_FRAMES,   /* more distinct prefixes than a uint32 counts */
    PV_FLAMEGRAPH_BASE_OVERFLOW,     /* the sum of base weights passed INT64_MAX */
} pv_flamegraph_status;

/* How the picture looks.  pv_flamegraph_style_default fills in the defaults
 * noted on each field; a caller changes what it wants afterwards. */
typedef struct pv_flamegraph_style {
    const char *title;          /* "Flame Graph"; any bytes, escaped */
    const char *unit;           /* "samples": what a weight counts */
    double width;               /* 1200 px, the whole image */
    double frame_height;        /* 16 px per stack level */
    double font_size;           /* 12 px */
    /* A graph taller than this (1200 px) gets lower levels, down to
     * min_frame_height (12 px), the font shrinking with them: a deep stack
     * (a python3 interpreter's 120 levels) stays readable with less scrolling. */
    double max_height;
    double min_frame_height;
    double min_frame_width;     /* 0.1 px: narrower frames are not drawn */
} pv_flamegraph_style;

/* One drawn frame, as laid out by pv_flamegraph_layout. */
typedef struct pv_flamegraph_frame {
    const char *name;           /* not NUL-terminated: name_len bytes */
    size_t name_len;
    uint32_t depth;             /* 0 = the root "all" */
    int64_t weight;             /* inclusive: this frame and everything above it */
    int64_t self_weight;        /* weight less the children's */
    int64_t base_weight;        /* a differential graph's base weight, inclusive */
    int64_t self_base_weight;
    bool off_cpu;               /* "[off-cpu]" or above it: drawn in blue tones */
    double x;                   /* left edge, px */
    double y;                   /* top edge, px; depth 0 is the lowest */
    double width;               /* px, proportional to weight */
} pv_flamegraph_frame;

typedef struct pv_flamegraph_layout {
    pv_flamegraph_frame *frames;  /* depth-first, parents before children */
    size_t count;
    size_t hidden;                /* frames (distinct prefixes) not drawn: too narrow */
    size_t base_only;             /* frames not drawn: weight 0, only a base weight */
    double height;                /* of the whole image, px */
    double frame_height;          /* of one level: the style's, or less for a deep graph */
    double font_size;
    /* a differential graph's strongest change of a drawn frame's self share
     * (new self / new total - base self / base total), as a fraction */
    double max_self_delta;
    /* the weight of the off-CPU frames: the "[off-cpu]" frames not above
     * another, drawn or not */
    int64_t off_cpu_weight;
} pv_flamegraph_layout;

/* The name that starts an off-CPU subtree. */
#define PV_FLAMEGRAPH_OFFCPU_MARK "[off-cpu]"

void pv_flamegraph_style_default(pv_flamegraph_style *style);

pv_flamegraph *pv_flamegraph_new(void);
/* A graph whose stacks have a base weight too (pv_flamegraph_add_diff). */
pv_flamegraph *pv_flamegraph_new_differential(void);
bool pv_flamegraph_is_differential(const pv_flamegraph *fg);
void pv_flamegraph_free(pv_flamegraph *fg);

/* Adds weight to the stack (len bytes, not necessarily NUL-terminated).
 * Empty frames (";;", a leading or trailing ';') are skipped; a weight of
 * zero changes nothing.  On an error the graph is unchanged. */
pv_flamegraph_status pv_flamegraph_add(pv_flamegraph *fg, const char *stack, size_t len,
                                       int64_t weight);

/* Adds weight (new) and base_weight to the stack: both non-negative.  A
 * stack with only a base weight is kept (weight 0) but not drawn.  On a
 * graph that is not differential the base weight is kept and not shown. */
pv_flamegraph_status pv_flamegraph_add_diff(pv_flamegraph *fg, const char *stack, size_t len,
                                            int64_t weight, int64_t base_weight);

/* The sum of all weights added: the root's weight. */
int64_t pv_flamegraph_total(const pv_flamegraph *fg);
int64_t pv_flamegraph_base_total(const pv_flamegraph *fg);
/* Distinct stack prefixes, i.e. frames of the tree besides the root. */
size_t pv_flamegraph_node_count(const pv_flamegraph *fg);

/* Positions of the frames to draw; free with pv_flamegraph_layout_free.
 * The names point into fg, valid while fg is.  False when out of memory. */
bool pv_flamegraph_layout_make(const pv_flamegraph *fg, const pv_flamegraph_style *style,
                               pv_flamegraph_layout *layout);
void pv_flamegraph_layout_free(pv_flamegraph_layout *layout);

/* Appends the SVG document to out.  False when out of memory (out failed). */
bool pv_flamegraph_svg(const pv_flamegraph *fg, const pv_flamegraph_style *style,
                       pv_strbuf *out);

const char *pv_flamegraph_status_text(pv_flamegraph_status status);

/* The SVG's script (render/flamegraph_script.c), NUL-terminated. */
extern const char pv_flamegraph_script[];

/* The pieces of the SVG, public for the unit tests. */

/* A frame's fill: the same name always gets the same warm colour
 * (red 205-255, green 0-230, blue 0-55, as flamegraph.pl's "hot"). */
void pv_flamegraph_color(const char *name, size_t len, uint8_t rgb[3]);
/* An off-CPU frame's fill: the same name always gets the same blue tone
 * (red 40-109, green 90-169, blue 205-254: blue strongest, never warm). */
void pv_flamegraph_cold_color(const char *name, size_t len, uint8_t rgb[3]);
/* weight / total - base_weight / base_total: a share's change, as a
 * fraction (a total of 0 counts as a share of 0).  Exactly 0 when the shares
 * are equal (weights below 2^53). */
double pv_flamegraph_share_delta(int64_t weight, int64_t total, int64_t base_weight,
                                 int64_t base_total);
/* A differential frame's fill from the change of its self share (delta)
 * and the strongest change on the picture (max_abs_delta > 0): grey
 * rgb(220,220,220) for no change, else red rgb(255,c,c) for growth, blue
 * rgb(c,c,255) for shrinkage, c from 220 (faint) down to 50 (the strongest). */
void pv_flamegraph_diff_color(double delta, double max_abs_delta, uint8_t rgb[3]);
/* Appends name as XML character data / attribute text: & < > " ' as
 * entities, bytes that are not valid UTF-8 and characters XML forbids
 * (controls, U+FFFE, U+FFFF) as U+FFFD.  At most max_chars characters: a
 * longer name is cut to max_chars - 2 and "..", or to nothing when
 * max_chars < 3.  Returns the characters written. */
size_t pv_flamegraph_xml_text(pv_strbuf *out, const char *name, size_t len, size_t max_chars);

#endif
