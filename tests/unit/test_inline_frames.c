/*
 * Unit tests of the inline expansion of a frame (src/unwind/inline_frames.c) on
 * this test's own code: functions forced inline into others record the
 * address of a call made from inside them; the names at that address,
 * read from this executable's debug info through libdwfl, must be the
 * inlined functions innermost first, then the function holding them (what
 * `addr2line -f -i` prints and perf's default callchains show).
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

__attribute__((noinline)) static void plain_caller(void)
{
    mark();
    __asm__ volatile("" ::: "memory");
}

/* The names at pc, joined by spaces. */
static size_t names_at(Dwfl *dwfl, uint64_t pc, char *bytes, size_t size, char *joined,
                       size_t joined_size)
{
    pv_name_buf buf = { bytes, size, 0 };
    int32_t at[16];
    size_t n = pv_inline_names(dwfl_addrmodule(dwfl, pc), pc, NULL, &buf, at, 16);
    joined[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(joined);
        snprintf(joined + len, joined_size - len, "%s%s", i ? " " : "", bytes + at[i]);
    }
    return n;
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
    check(n == 3 && !strcmp(joined, "innermost_inlined middle_inlined holder"),
          "two inlined levels: innermost first, then the holder", "%zu names: %s", n, joined);

    plain_caller();
    n = names_at(dwfl, call_site, bytes, sizeof bytes, joined, sizeof joined);
    check(n == 1 && !strcmp(joined, "plain_caller"), "no inlining: the function itself",
          "%zu names: %s", n, joined);

    /* no room for every name: the ones that fit, innermost first */
    holder();
    n = names_at(dwfl, call_site, bytes, sizeof "innermost_inlined" + 3, joined, sizeof joined);
    check(n == 1 && !strcmp(joined, "innermost_inlined"), "a buffer for one name: one name",
          "%zu names: %s", n, joined);
    n = names_at(dwfl, call_site, bytes, 4, joined, sizeof joined);
    check(n == 0, "a buffer for no name: none", "%zu names: %s", n, joined);

    pv_name_buf buf = { bytes, sizeof bytes, 0 };
    int32_t at[4];
    check(pv_inline_names(NULL, call_site, NULL, &buf, at, 4) == 0 && buf.len == 0,
          "no module: no names", "%zu bytes used", buf.len);
    /* an address of the module outside any function's debug info */
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, call_site);
    Dwarf_Addr low = 0;
    if (mod)
        dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
    check(mod && pv_inline_names(mod, low, NULL, &buf, at, 4) == 0,
          "the ELF header's address: no names", "module %p", (void *)mod);

    pv_inline_release(dwfl);
    dwfl_end(dwfl);
    return failures ? 1 : 0;
}
