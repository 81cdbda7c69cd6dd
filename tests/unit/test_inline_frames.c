/*
 * Unit tests of the inline expansion of a frame (src/unwind/inline_frames.c) on
 * this test's own code: functions forced inline into others record the
 * address of a call made from inside them; the names at that address,
 * read from this executable's debug info through libdwfl, must be the
 * inlined functions innermost first, then the function holding them (what
 * `addr2line -f -i` prints and perf's default callchains show), each
 * inlined one marked so, the holder not.  One call sits in a lexical block
 * (a loop body with a local of its own), where the inlined subroutine is
 * a child of the block, not of the function: the names must be found
 * there too.  Clones (spin.constprop.0) need gcc -O2 whatever the build's
 * flags: tests/t_frame_names.sh checks them on a program compiled there.
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "unwind/inline_frames.h"
#include "unit_check.h"


/* The address of the call to mark() (its return address minus one, as an
 * unwound caller's frame holds it). */
static uint64_t call_site;

__attribute__((noinline)) static void mark(void)
{
    call_site = (uint64_t)(uintptr_t)__builtin_return_address(0) - 1;
    __asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) void innermost_inlined(void)
{
    mark();
    __asm__ volatile("" ::: "memory");  /* no tail call */
}

static inline __attribute__((always_inline)) void middle_inlined(void)
{
    innermost_inlined();
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void holder(void)
{
    middle_inlined();
    __asm__ volatile("" ::: "memory");
}

/* the call inside a lexical block: the loop body, which has a local; the
 * count from memory, so that gcc makes no constprop clone of block_holder */
static volatile int one_round = 1;

static inline __attribute__((always_inline)) void block_inlined(void)
{
    mark();
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void block_holder(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        volatile int in_block = i;
        block_inlined();
        in_block += 1;
        (void)in_block;     /* read: clang's -Wunused-but-set-variable */
    }
}

__attribute__((noinline)) static void plain_caller(void)
{
    mark();
    __asm__ volatile("" ::: "memory");
}

/* The names at pc, joined by ", ", an inlined one followed by " (inlined)"
 * as perf prints it. */
static size_t names_at(Dwfl *dwfl, uint64_t pc, char *bytes, size_t size, char *joined,
                       size_t joined_size)
{
    pv_name_buf buf = { bytes, size, 0 };
    pv_inline_name names[16];
    size_t n = pv_inline_names(dwfl_addrmodule(dwfl, pc), pc, NULL, &buf, names, 16);
    joined[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(joined);
        snprintf(joined + len, joined_size - len, "%s%s%s", i ? ", " : "", bytes + names[i].at,
                 names[i].inlined ? " (inlined)" : "");
    }
    return n;
}

/* The tags of the DIEs below scope whose ranges hold pc, outermost first,
 * into tags[0 .. returned count): a plain walk of every child, apart from
 * the code under test (libdw's dwarf_getscopes gives up on the concrete
 * out-of-line instances gcc -O2 makes of static functions). */
static size_t tags_at(Dwarf_Die *scope, Dwarf_Addr pc, int *tags, size_t max)
{
    Dwarf_Die child;
    if (max == 0 || dwarf_child(scope, &child) != 0)
        return 0;
    do {
        if (dwarf_haspc(&child, pc) > 0) {
            tags[0] = dwarf_tag(&child);
            return 1 + tags_at(&child, pc, tags + 1, max - 1);
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* Whether the compiler put the inlined subroutine holding pc inside a
 * lexical block of the function, as the block check needs: a
 * DW_TAG_lexical_block between the subprogram and the first
 * DW_TAG_inlined_subroutine holding pc. */
static bool inlined_inside_block(Dwfl *dwfl, uint64_t pc)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(dwfl_addrmodule(dwfl, pc), pc, &bias);
    int tags[64];
    size_t n = cu ? tags_at(cu, pc - bias, tags, 64) : 0;
    bool block = false;
    for (size_t i = 0; i < n && tags[i] != DW_TAG_inlined_subroutine; i++)
        block = block || tags[i] == DW_TAG_lexical_block;
    return block && n > 0 && tags[n - 1] == DW_TAG_inlined_subroutine;
}

int main(void)
{
    static char *debuginfo_path;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .debuginfo_path = &debuginfo_path,
    };
    Dwfl *dwfl = dwfl_begin(&callbacks);
    if (!dwfl || dwfl_linux_proc_report(dwfl, getpid()) != 0 ||
        dwfl_report_end(dwfl, NULL, NULL) != 0) {
        printf("not ok - inline frames: cannot report this process to libdwfl\n");
        return 1;
    }
    char bytes[4096], joined[512];

    holder();
    size_t n = names_at(dwfl, call_site, bytes, sizeof bytes, joined, sizeof joined);
    const char *two_levels = "innermost_inlined (inlined), middle_inlined (inlined), holder";
    check(n == 3 && !strcmp(joined, two_levels),
          "two inlined levels: innermost first, each inlined, then the holder, not inlined",
          "%zu names: %s", n, joined);

    block_holder(one_round);
    bool in_block = inlined_inside_block(dwfl, call_site);
    check(in_block, "the compiler put block_inlined inside a lexical block of block_holder",
          "no DW_TAG_lexical_block holds the call's DW_TAG_inlined_subroutine");
    n = names_at(dwfl, call_site, bytes, sizeof bytes, joined, sizeof joined);
    check(n == 2 && !strcmp(joined, "block_inlined (inlined), block_holder"),
          "an inline inside a lexical block: found below the block", "%zu names: %s", n, joined);

    plain_caller();
    n = names_at(dwfl, call_site, bytes, sizeof bytes, joined, sizeof joined);
    check(n == 1 && !strcmp(joined, "plain_caller"), "no inlining: the function itself, not inlined",
          "%zu names: %s", n, joined);

    /* no room for every name: the ones that fit, innermost first */
    holder();
    n = names_at(dwfl, call_site, bytes, sizeof "innermost_inlined" + 3, joined, sizeof joined);
    check(n == 1 && !strcmp(joined, "innermost_inlined (inlined)"),
          "a buffer for one name: one name", "%zu names: %s", n, joined);
    n = names_at(dwfl, call_site, bytes, 4, joined, sizeof joined);
    check(n == 0, "a buffer for no name: none", "%zu names: %s", n, joined);

    pv_name_buf buf = { bytes, sizeof bytes, 0 };
    pv_inline_name names[4];
    check(pv_inline_names(NULL, call_site, NULL, &buf, names, 4) == 0 && buf.len == 0,
          "no module: no names", "%zu bytes used", buf.len);
    /* an address of the module outside any function's debug info */
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, call_site);
    Dwarf_Addr low = 0;
    if (mod)
        dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
    check(mod && pv_inline_names(mod, low, NULL, &buf, names, 4) == 0,
          "the ELF header's address: no names", "module %p", (void *)mod);

    pv_inline_release(dwfl);
    dwfl_end(dwfl);
    return failures ? 1 : 0;
}
