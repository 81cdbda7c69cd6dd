/*
 * Unit tests of src/analysis/frame_set.c (the functions seen on one sample's stack)
 * and src/symbols/symbol_cache.c (symbol lookups by dso and address).
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/frame_set.h"
#include "symbols/symbol_cache.h"
#include "unit_check.h"


static void frame_set_tests(void)
{
    static const char dso_a[] = "/lib/a.so", dso_b[] = "/lib/b.so";
    static const char sym_f[] = "f", sym_g[] = "g";
    char inline_1[] = "inl", inline_2[] = "inl";     /* one name, two copies */
    pv_frame_set set = {0};
    pv_frame_key f = { dso_a, sym_f, 0, false }, g = { dso_a, sym_g, 0, false };
    pv_frame_key f_in_b = { dso_b, sym_f, 0, false };
    pv_frame_key unresolved_1 = { dso_a, NULL, 0x10, false }, unresolved_2 = { dso_a, NULL, 0x20, false };
    int r1 = pv_frame_set_add(&set, &f), r2 = pv_frame_set_add(&set, &g),
        r3 = pv_frame_set_add(&set, &f), r4 = pv_frame_set_add(&set, &f_in_b);
    check(r1 == 1 && r2 == 1 && r3 == 0 && r4 == 1, "frame set: a function counts once, per dso",
          "%d %d %d %d", r1, r2, r3, r4);
    r1 = pv_frame_set_add(&set, &unresolved_1);
    r2 = pv_frame_set_add(&set, &unresolved_2);
    r3 = pv_frame_set_add(&set, &unresolved_1);
    check(r1 == 1 && r2 == 1 && r3 == 0, "frame set: unresolved frames differ by address",
          "%d %d %d", r1, r2, r3);
    pv_frame_key in1 = { dso_a, inline_1, 0, true }, in2 = { dso_a, inline_2, 0, true };
    pv_frame_key not_inlined = { dso_a, inline_1, 0, false };
    r1 = pv_frame_set_add(&set, &in1);
    r2 = pv_frame_set_add(&set, &in2);
    r3 = pv_frame_set_add(&set, &not_inlined);
    check(r1 == 1 && r2 == 0 && r3 == 1,
          "frame set: inlined names compare by text, and never equal a symbol", "%d %d %d", r1, r2, r3);
    pv_frame_set_clear(&set);
    r1 = pv_frame_set_add(&set, &f);
    check(r1 == 1 && set.nr == 1, "frame set: a cleared set forgets", "%d, %zu keys", r1, set.nr);
    /* a deep stack: the slots grow, every key still found once */
    static const char names[3000];
    int fresh = 0, again = 0;
    for (int i = 0; i < 3000; i++) {
        pv_frame_key k = { dso_b, names + i, 0, false };
        fresh += pv_frame_set_add(&set, &k) == 1;
    }
    for (int i = 0; i < 3000; i++) {
        pv_frame_key k = { dso_b, names + i, 0, false };
        again += pv_frame_set_add(&set, &k) == 0;
    }
    check(fresh == 3000 && again == 3000, "frame set: 3000 frames, each new once",
          "%d new, %d found", fresh, again);
    /* the generation counter wraps after 2^32 samples */
    set.generation = UINT32_MAX;
    pv_frame_set_clear(&set);
    r1 = pv_frame_set_add(&set, &f);
    r2 = pv_frame_set_add(&set, &g);
    r3 = pv_frame_set_add(&set, &f);
    check(r1 == 1 && r2 == 1 && r3 == 0, "frame set: empty and working after its counter wraps",
          "%d %d %d", r1, r2, r3);
    /* samples after a deep one: the slots it left are free again */
    for (int round = 0; round < 3; round++) {
        pv_frame_set_clear(&set);
        fresh = again = 0;
        for (int i = 0; i < 100; i++) {
            pv_frame_key k = { dso_b, names + (i * 7 + round) % 100, 0, false };
            fresh += pv_frame_set_add(&set, &k) == 1;
            again += pv_frame_set_add(&set, &k) == 0;
        }
        if (fresh != 100 || again != 100)
            break;
    }
    check(fresh == 100 && again == 100, "frame set: deep samples one after another start empty",
          "%d new, %d found", fresh, again);
    pv_frame_set_free(&set);
}

static void symbol_cache_tests(void)
{
    pv_symbol_cache cache = {0};
    pv_symbol_cache_entry *e = pv_symbol_cache_slot(&cache, 3, 0x1000);
    check(e && !pv_symbol_cache_holds(e, 3, 0x1000), "symbol cache: starts empty", "slot %p", (void *)e);
    if (!e)
        return;
    e->dso = 3;
    e->addr = 0x1000;
    e->sym = "main";
    pv_symbol_cache_entry *again = pv_symbol_cache_slot(&cache, 3, 0x1000);
    check(again == e && pv_symbol_cache_holds(again, 3, 0x1000) && strcmp(again->sym, "main") == 0,
          "symbol cache: an entry is found again", "%p vs %p", (void *)again, (void *)e);
    /* same address in another dso, another address in the same dso: not it */
    pv_symbol_cache_entry *other_dso = pv_symbol_cache_slot(&cache, 4, 0x1000);
    pv_symbol_cache_entry *other_addr = pv_symbol_cache_slot(&cache, 3, 0x1001);
    check(!pv_symbol_cache_holds(other_dso, 4, 0x1000) && !pv_symbol_cache_holds(other_addr, 3, 0x1001),
          "symbol cache: keyed by dso and address", "a stale entry answered");
    pv_symbol_cache_free(&cache);
}

int main(void)
{
    frame_set_tests();
    symbol_cache_tests();
    return failures ? 1 : 0;
}
