/*
 * decode/frame_walk: a sample's frames as perf 6.1's
 * thread__resolve_callchain_sample gives them, for frame-pointer callchains
 * and --call-graph lbr samples, the samples built byte by byte and decoded
 * by the sample decoder, in both byte orders.
 */
#include <stdio.h>
#include <string.h>

#include "unit_check.h"
#include "byte_builder.h"
#include "sample_checks.h"
#include "decode/callchain.h"
#include "decode/frame_walk.h"

#define K ((uint64_t)-128)     /* PERF_CONTEXT_KERNEL */
#define U ((uint64_t)-512)     /* PERF_CONTEXT_USER */
#define BAD ((uint64_t)-1)     /* no marker perf knows */

typedef struct branch { uint64_t from, to; } branch;

typedef struct lbr_case {
    const char *what;
    bool lbr;                   /* CALL_STACK in branch_sample_type */
    bool hw_idx;
    unsigned misc;              /* the record's cpumode */
    const uint64_t *chain;
    size_t nr_chain;
    const branch *branches;
    size_t nr_branches;
    const char *want;           /* "ip/cpumode/origin ..." */
    bool want_unwind;
} lbr_case;

static char got[8192];
/* a CALLCHAIN_DEFERRED record's entries, stitched when the walk waits */
static const uint64_t *stitch_entries;
static size_t stitch_nr;
static uint64_t waited_cookie;

/* The frames of the sample the case describes, as "ip/mode/origin ...". */
static const char *walk(const lbr_case *c, bool swap, bool *unwind)
{
    fake k;
    byte_builder b;
    pv_sample s;
    pv_error err;
    fake_init(&k, swap);
    k.attrs[0].sample_type = PV_SAMPLE_IP | PV_SAMPLE_CALLCHAIN | PV_SAMPLE_BRANCH_STACK;
    k.attrs[0].branch_sample_type = (c->lbr ? PV_BRANCH_CALL_STACK | 1 : 1) |
                                    (c->hw_idx ? PV_BRANCH_HW_INDEX : 0);
    fake_locate_ids(&k);
    bb_record_begin(&b, PV_RECORD_SAMPLE, (uint16_t)c->misc, swap);
    bb_u64(&b, c->nr_chain ? c->chain[0] : 0);
    bb_u64(&b, c->nr_chain);
    for (size_t i = 0; i < c->nr_chain; i++)
        bb_u64(&b, c->chain[i]);
    bb_u64(&b, c->nr_branches);
    if (c->hw_idx)
        bb_u64(&b, 5);
    for (size_t i = 0; i < c->nr_branches; i++) {
        bb_u64(&b, c->branches[i].from);
        bb_u64(&b, c->branches[i].to);
        bb_u64(&b, 0);
    }
    /* what follows the sample: perf 6.1 reads an empty stack's entry 0 here */
    bb_u64(&b, 0xdead);
    bb_u64(&b, 0xbeef);
    if (decode(&k, &b, &s, &err)) {
        snprintf(got, sizeof got, "decode error: %s", err.msg);
        return got;
    }
    pv_frame_walk w;
    pv_frame f;
    pv_frame_walk_start(&w, &s);
    waited_cookie = w.deferred ? w.cookie : 0;
    if (stitch_entries)
        pv_frame_walk_stitch(&w, stitch_entries, stitch_nr);
    size_t n = 0;
    got[0] = 0;
    while (pv_frame_walk_next(&w, &f) && n < sizeof got - 64)
        n += (size_t)snprintf(got + n, sizeof got - n, "%s%llx/%u/%s", n ? " " : "",
                              (unsigned long long)f.ip, f.cpumode, pv_frame_origin_name(f.origin));
    *unwind = pv_frame_walk_allows_unwind(&w);
    return got;
}

static void run(const lbr_case *c)
{
    for (int swap = 0; swap < 2; swap++) {
        bool unwind = false;
        const char *frames = walk(c, swap, &unwind);
        check(strcmp(frames, c->want) == 0 && unwind == c->want_unwind,
              name("%s%s", c->what, swap ? " (big-endian)" : ""), "got '%s' (unwind %d), want '%s'",
              frames, unwind, c->want);
    }
}

int main(void)
{
    static const uint64_t kernel_then_user[] = { K, 0xffffffff81000010u, 0xffffffff81000020u, U,
                                                 0x401000, 0x402000 };
    static const uint64_t user_only[] = { U, 0x401000, 0x402000 };
    static const uint64_t kernel_only[] = { K, 0xffffffff81000010u, 0xffffffff81000020u };
    static const uint64_t corrupt_in_user[] = { K, 0xffffffff81000010u, U, 0x401000, BAD };
    static const uint64_t corrupt_in_kernel[] = { K, 0xffffffff81000010u, BAD, U, 0x401000 };
    static const branch three[] = { { 0x402005, 0x401000 }, { 0x403005, 0x402000 },
                                    { 0x404005, 0x403000 } };
    static const lbr_case cases[] = {
        { "frame-pointer callchain: every entry, the markers setting the cpumode",
          false, false, PV_CPUMODE_KERNEL, kernel_then_user, 6, three, 3,
          "ffffffff81000010/1/callchain ffffffff81000020/1/callchain 401000/2/callchain "
          "402000/2/callchain", true },
        { "lbr: kernel part, then entry 0's to and every from; user entries left out",
          true, true, PV_CPUMODE_KERNEL, kernel_then_user, 6, three, 3,
          "ffffffff81000010/1/callchain ffffffff81000020/1/callchain 401000/2/lbr 402005/2/lbr "
          "403005/2/lbr 404005/2/lbr", true },
        { "lbr without hw_idx: the same frames",
          true, false, PV_CPUMODE_KERNEL, kernel_then_user, 6, three, 3,
          "ffffffff81000010/1/callchain ffffffff81000020/1/callchain 401000/2/lbr 402005/2/lbr "
          "403005/2/lbr 404005/2/lbr", true },
        { "lbr, user sample: only the branch stack's frames",
          true, true, PV_CPUMODE_USER, user_only, 3, three, 2,
          "401000/2/lbr 402005/2/lbr 403005/2/lbr", true },
        { "lbr, no user context: the callchain as it is",
          true, true, PV_CPUMODE_KERNEL, kernel_only, 3, three, 3,
          "ffffffff81000010/1/callchain ffffffff81000020/1/callchain", true },
        { "lbr, empty branch stack: the callchain's first user entry, nothing read past the stack",
          true, true, PV_CPUMODE_KERNEL, kernel_then_user, 6, three, 0,
          "ffffffff81000010/1/callchain ffffffff81000020/1/callchain 401000/2/callchain", true },
        { "lbr, empty branch stack without hw_idx: the same",
          true, false, PV_CPUMODE_USER, user_only, 3, three, 0, "401000/2/callchain", true },
        { "lbr, a corrupt value after the USER marker is not read (perf reads up to it)",
          true, true, PV_CPUMODE_KERNEL, corrupt_in_user, 5, three, 1,
          "ffffffff81000010/1/callchain 401000/2/lbr 402005/2/lbr", true },
        { "frame-pointer callchain with a corrupt value: discarded, no unwinding",
          false, false, PV_CPUMODE_KERNEL, corrupt_in_user, 5, three, 1, "", false },
        { "lbr, a corrupt value before the USER marker: discarded",
          true, true, PV_CPUMODE_KERNEL, corrupt_in_kernel, 5, three, 1, "", false },
        { "no callchain entries: no frames",
          true, true, PV_CPUMODE_USER, user_only, 0, three, 0, "", true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run(&cases[i]);

    /* the depth perf looks for the USER marker in: its first 127 entries */
    static uint64_t long_kernel[140];
    long_kernel[0] = K;
    for (size_t i = 1; i < 130; i++)
        long_kernel[i] = 0xffffffff81000000u + i;
    long_kernel[130] = U;
    long_kernel[131] = 0x401000;
    lbr_case deep = { "lbr, USER marker past perf's 127 entries: the callchain as it is",
                      true, true, PV_CPUMODE_KERNEL, long_kernel, 132, three, 3, NULL, true };
    bool unwind;
    const char *frames = walk(&deep, false, &unwind);
    check(strstr(frames, "/lbr") == NULL && strstr(frames, "401000/2/callchain") != NULL,
          deep.what, "got '%.200s'", frames);
    long_kernel[126] = U;
    frames = walk(&deep, false, &unwind);
    check(strstr(frames, "401000/2/lbr") != NULL && strstr(frames, "ffffffff8100007e") == NULL,
          "lbr, USER marker at entry 126: the branch stack, the entries after it not read",
          "got '%.200s'", frames);

    /* --call-graph fp,defer (Linux 6.19): the chain ends in USER_DEFERRED
     * and a cookie; the record's entries follow, as perf 7 stitches them */
    static const uint64_t deferred[] = { K, 0xffffffff81000010u, PV_CONTEXT_USER_DEFERRED, 0x5001 };
    static const uint64_t user_part[] = { U, 0x401000, 0x402000 };
    static const uint64_t bad_user_part[] = { U, 0x401000, BAD };
    static const lbr_case deferred_cases[] = {
        { "deferred, its record never came: the kernel frames alone, no cookie",
          false, false, PV_CPUMODE_KERNEL, deferred, 4, three, 0,
          "ffffffff81000010/1/callchain", true },
        { "deferred, stitched: the kernel frames, then the record's as user frames",
          false, false, PV_CPUMODE_KERNEL, deferred, 4, three, 0,
          "ffffffff81000010/1/callchain 401000/2/deferred 402000/2/deferred", true },
        { "deferred, a corrupt value in the record: discarded, as perf does",
          false, false, PV_CPUMODE_KERNEL, deferred, 4, three, 0, "", false },
    };
    run(&deferred_cases[0]);
    check(waited_cookie == 0x5001, "deferred: the walk names the cookie it waits for",
          "got %llx", (unsigned long long)waited_cookie);
    stitch_entries = user_part;
    stitch_nr = 3;
    run(&deferred_cases[1]);
    stitch_entries = bad_user_part;
    run(&deferred_cases[2]);
    stitch_entries = user_part;
    run(&cases[0]);     /* a chain that waits for nothing takes no stitch */
    stitch_entries = NULL;

    check(strcmp(pv_frame_origin_name(PV_ORIGIN_DWARF), "dwarf") == 0 &&
          strcmp(pv_frame_origin_name(PV_ORIGIN_DEFERRED), "deferred") == 0, "origin names", "wrong");
    pv_strbuf_free(&json);
    return failures != 0;
}
