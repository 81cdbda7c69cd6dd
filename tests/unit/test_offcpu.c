/*
 * Unit tests of src/analysis/offcpu.c: prev_state's words, and the
 * intervals of the committed off-CPU fixtures (tests/fixtures/offcpu/,
 * whose values t_offcpu.sh checks against perf; here the invariants).
 * Run from the repository root.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/offcpu.h"
#include "stream/file_open.h"
#include "unit_check.h"

static void state_word_tests(void)
{
    static const struct { const char *printed, *words; } cases[] = {
        {"S", "sleeping"}, {"D", "disk"}, {"R", "running"}, {"R+", "preempted"},
        {"T", "stopped"}, {"t", "traced"}, {"X", "dead"}, {"Z", "zombie"}, {"P", "parked"},
        {"I", "idle"}, {"D|K", "disk|wakekill"}, {"S|W", "sleeping|waking"}, {"Q", "Q"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        pv_offcpu_state_words(cases[i].printed, buf, sizeof buf);
        char what[96];
        snprintf(what, sizeof what, "state words: '%s' reads '%s'", cases[i].printed,
                 cases[i].words);
        check(strcmp(buf, cases[i].words) == 0, what, "got '%s'", buf);
    }
    char small[5];
    pv_offcpu_state_words("S", small, sizeof small);
    check(strcmp(small, "slee") == 0, "state words: cut short to the buffer", "got '%s'", small);
}

typedef struct counts {
    size_t rows, whole, no_start, no_end, exited, with_stack;
    bool ordered, consistent;
} counts;

static bool build(const char *path, bool with_stacks, counts *c)
{
    memset(c, 0, sizeof *c);
    pv_file *f;
    pv_error err;
    if (pv_file_open(path, &f, &err)) {
        check(false, path, "cannot open: %s", err.msg);
        return false;
    }
    pv_symbolizer *sym;
    pv_symbol_paths paths = {0};
    if (pv_symbolizer_open(f, &paths, &sym, &err)) {
        check(false, path, "symbolizer: %s", err.msg);
        pv_file_close(f);
        return false;
    }
    pv_offcpu o;
    bool ok = pv_offcpu_build(f, sym, with_stacks, &o, &err) == 0;
    if (!ok)
        check(false, path, "build: %s", err.msg);
    c->ordered = c->consistent = true;
    uint64_t last = 0;
    for (size_t i = 0; ok && i < o.nr_rows; i++) {
        const pv_offcpu_row *r = &o.rows[i];
        c->rows++;
        c->whole += r->cut == PV_OFFCPU_WHOLE;
        c->no_start += r->cut == PV_OFFCPU_NO_START;
        c->no_end += r->cut == PV_OFFCPU_NO_END;
        c->exited += r->cut == PV_OFFCPU_EXITED;
        c->with_stack += r->stack != NULL;
        uint64_t first = r->cut == PV_OFFCPU_NO_START ? r->end : r->start;
        if (first < last)
            c->ordered = false;
        last = first;
        if (r->tid == 0 || (r->cut == PV_OFFCPU_WHOLE && r->end < r->start) ||
            ((r->cut == PV_OFFCPU_NO_START) != (r->prev_state == NULL)))
            c->consistent = false;
    }
    if (ok)
        pv_offcpu_free(&o);
    pv_symbolizer_free(sym);
    pv_file_close(f);
    return ok;
}

static void fixture_tests(void)
{
    counts c;
    if (build("tests/fixtures/offcpu/sleeper.data", false, &c)) {
        /* the program slept 20 times (offcpu/README.md); the exact count of
         * intervals is perf script's, which tests/t_offcpu.sh compares */
        check(c.rows >= 20 && c.whole == c.rows, "sleeper.data: its 20 sleeps or more, all whole",
              "%zu rows, %zu whole", c.rows, c.whole);
        check(c.ordered && c.consistent && c.with_stack == 0,
              "sleeper.data: in start order, ends after starts, no stacks unasked", "%d %d %zu",
              c.ordered, c.consistent, c.with_stack);
    }
    if (build("tests/fixtures/offcpu/system.data", true, &c)) {
        check(c.no_start > 0 && c.no_end > 0 && c.exited > 0 && c.whole > 0,
              "system.data: whole intervals and each kind of cut one",
              "%zu whole, %zu no start, %zu no end, %zu exited", c.whole, c.no_start, c.no_end,
              c.exited);
        check(c.ordered && c.consistent, "system.data: in first-known-time order, consistent",
              "%d %d", c.ordered, c.consistent);
        check(c.with_stack == c.rows - c.no_start, "system.data: a stack for every switch-out",
              "%zu of %zu", c.with_stack, c.rows - c.no_start);
    }
    if (build("tests/fixtures/fp.data", true, &c))
        check(c.rows == 0, "fp.data (no tracing data): no intervals", "%zu rows", c.rows);
}

int main(void)
{
    state_word_tests();
    fixture_tests();
    return failures ? 1 : 0;
}
