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
} pv_flamegraph_status;

/* How the picture looks.  pv_flamegraph_style_default fills in the defaults
 * noted on each field; a caller changes what it wants afterwards. */
typedef struct pv_flamegraph_style {
    const char *title;          /* "Flame Graph"; any bytes, escaped */
    const char *unit;           /* "samples": what a weight counts */
    double width;               /* 1200 px, the whole image */
    double frame_height;        /* 16 px per stack level */
    double font_size;           /* 12 px */
    double min_frame_width;     /* 0.1 px: narrower frames are not drawn */
} pv_flamegraph_style;

/* One drawn frame, as laid out by pv_flamegraph_layout. */
typedef struct pv_flamegraph_frame {
    const char *name;           /* not NUL-terminated: name_len bytes */
    size_t name_len;
    uint32_t depth;             /* 0 = the root "all" */
    int64_t weight;             /* inclusive: this frame and everything above it */
    double x;                   /* left edge, px */
    double y;                   /* top edge, px; depth 0 is the lowest */
    double width;               /* px, proportional to weight */
} pv_flamegraph_frame;

typedef struct pv_flamegraph_layout {
    pv_flamegraph_frame *frames;  /* depth-first, parents before children */
    size_t count;
    size_t hidden;                /* frames (distinct prefixes) not drawn: too narrow */
    double height;                /* of the whole image, px */
} pv_flamegraph_layout;

void pv_flamegraph_style_default(pv_flamegraph_style *style);

pv_flamegraph *pv_flamegraph_new(void);
void pv_flamegraph_free(pv_flamegraph *fg);

/* Adds weight to the stack (len bytes, not necessarily NUL-terminated).
 * Empty frames (";;", a leading or trailing ';') are skipped; a weight of
 * zero changes nothing.  On an error the graph is unchanged. */
pv_flamegraph_status pv_flamegraph_add(pv_flamegraph *fg, const char *stack, size_t len,
                                       int64_t weight);

/* The sum of all weights added: the root's weight. */
int64_t pv_flamegraph_total(const pv_flamegraph *fg);
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

/* The pieces of the SVG, public for the unit tests. */

/* A frame's fill: the same name always gets the same warm colour
 * (red 205-255, green 0-230, blue 0-55, as flamegraph.pl's "hot"). */
void pv_flamegraph_color(const char *name, size_t len, uint8_t rgb[3]);
/* Appends name as XML character data / attribute text: & < > " ' as
 * entities, bytes that are not valid UTF-8 and characters XML forbids
 * (controls, U+FFFE, U+FFFF) as U+FFFD.  At most max_chars characters: a
 * longer name is cut to max_chars - 2 and "..", or to nothing when
 * max_chars < 3.  Returns the characters written. */
size_t pv_flamegraph_xml_text(pv_strbuf *out, const char *name, size_t len, size_t max_chars);

#endif
