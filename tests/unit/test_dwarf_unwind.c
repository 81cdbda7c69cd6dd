/*
 * Unit tests of the DWARF unwinder (src/unwind/dwarf_unwind.c) on samples built by
 * hand.
 *
 * Hostile samples (no registers, an unknown ABI, a register mask that does
 * not match the values, a stack copy shorter than its used size, a pc or
 * stack pointer that no map holds, garbage stack bytes) must give their
 * stop reason and at most the leaf, never a crash.
 *
 * On x86_64 the test also unwinds its own stack: capture() records its
 * registers and a copy of the stack above them as perf's kernel side would,
 * then the unwinder, given this process's /proc/self/maps, must find the
 * return addresses of capture's callers (minus one, as perf reports them).
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "unwind/dwarf_unwind.h"
#include "format/perf_abi.h"
#include "decode/sample.h"
#include "unit_check.h"


/* ---- this process's maps, for the unwinder's callback ---- */

typedef struct self_map {
    uint64_t start, end, pgoff;
    char path[512];
} self_map;

static self_map self_maps[512];
static size_t nr_self_maps;

static void load_self_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return;
    char line[1024];
    while (nr_self_maps < sizeof self_maps / sizeof self_maps[0] && fgets(line, sizeof line, f)) {
        self_map *m = &self_maps[nr_self_maps];
        unsigned long long start, end, pgoff;
        char perms[8];
        int name_at = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &name_at) < 4)
            continue;
        m->start = start;
        m->end = end;
        m->pgoff = pgoff;
        snprintf(m->path, sizeof m->path, "%s", line + name_at);
        m->path[strcspn(m->path, "\n")] = 0;
        nr_self_maps++;
    }
    fclose(f);
}

/* When set, every file's maps say perf would place its unwind table 64 KiB
 * too low (as after an exec with the file mapped lower before). */
static bool misplace_perf_tables;

static bool self_find_map(void *ctx, uint64_t addr, pv_unwind_map *out)
{
    (void)ctx;
    for (size_t i = 0; i < nr_self_maps; i++) {
        const self_map *m = &self_maps[i];
        if (addr >= m->start && addr < m->end) {
            out->start = m->start;
            out->end = m->end;
            out->pgoff = m->pgoff;
            out->path = m->path[0] == '/' ? m->path : NULL;
            if (misplace_perf_tables && out->path)
                out->perf_lowest_start = m->start - m->pgoff - 0x10000;
            return true;
        }
    }
    return false;
}

static bool no_maps(void *ctx, uint64_t addr, pv_unwind_map *out)
{
    (void)ctx;
    (void)addr;
    (void)out;
    return false;
}

/* ---- samples ---- */

/* x86 perf register indices */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS, R_R8 = 16, R_R15 = 23 };
#define X86_64_MASK 0xff0fffull    /* what perf record --call-graph dwarf asks for */

typedef struct fake_sample {
    pv_sample s;
    uint64_t regs[64];          /* by perf index */
    uint8_t values[64 * 8];
    uint8_t stack[16384];
} fake_sample;

/* Packs the registers of mask into the sample's values, in bit order. */
static void pack(fake_sample *f, uint64_t abi, uint64_t mask, uint64_t stack_size,
                 uint64_t dyn_size)
{
    memset(&f->s, 0, sizeof f->s);
    f->s.sample_type = PV_SAMPLE_REGS_USER | PV_SAMPLE_STACK_USER;
    f->s.pid = 4242;
    f->s.tid = 4242;
    f->s.regs_user.abi = abi;
    f->s.regs_user.mask = mask;
    uint64_t n = 0;
    for (unsigned bit = 0; bit < 64; bit++) {
        if (!((mask >> bit) & 1))
            continue;
        memcpy(f->values + n * 8, &f->regs[bit], 8);
        n++;
    }
    f->s.regs_user.nr = n;
    f->s.regs_user.values = f->values;
    f->s.stack_user_size = stack_size;
    f->s.stack_user = stack_size ? f->stack : NULL;
    f->s.stack_user_dyn_size = dyn_size;
}

static fake_sample fake;

static size_t run(pv_unwinder *u, pv_unwind_find_map_fn find, uint64_t *ips, size_t max,
                  pv_unwind_result *res)
{
    memset(ips, 0xaa, max * sizeof *ips);
    return pv_unwind_sample(u, &fake.s, find, NULL, ips, max, res);
}

static void hostile_samples(void)
{
    pv_unwinder *u = pv_unwinder_new("x86_64");
    check(u != NULL, "unwinder for x86_64", "NULL");
    if (!u)
        return;
    uint64_t ips[16];
    pv_unwind_result res;
    memset(&fake, 0, sizeof fake);
    fake.regs[R_IP] = 0x401000;
    fake.regs[R_SP] = 0x7ffc0000;

    pack(&fake, 0, X86_64_MASK, 4096, 4096);
    fake.s.regs_user.values = NULL;
    fake.s.regs_user.nr = 0;
    size_t n = run(u, no_maps, ips, 16, &res);
    check(n == 0 && res.stop == PV_UNWIND_NO_USER_REGS, "no user registers (ABI 0): no frames",
          "%zu frames, %s", n, pv_unwind_stop_name(res.stop));

    pack(&fake, 7, X86_64_MASK, 4096, 4096);
    n = run(u, no_maps, ips, 16, &res);
    check(n == 0 && res.stop == PV_UNWIND_UNSUPPORTED, "unknown register ABI 7: unsupported",
          "%zu frames, %s", n, pv_unwind_stop_name(res.stop));

    pack(&fake, 2, X86_64_MASK, 4096, 4096);
    fake.s.regs_user.nr = 3;
    n = run(u, no_maps, ips, 16, &res);
    check(n == 0 && res.stop == PV_UNWIND_BAD_SAMPLE,
          "3 register values for a 20-register mask: bad sample", "%zu frames, %s (%s)", n,
          pv_unwind_stop_name(res.stop), res.detail);

    pack(&fake, 2, X86_64_MASK, 4096, 4097);
    n = run(u, no_maps, ips, 16, &res);
    check(n == 0 && res.stop == PV_UNWIND_BAD_SAMPLE,
          "stack dyn_size past the copy: bad sample", "%zu frames, %s", n,
          pv_unwind_stop_name(res.stop));

    pack(&fake, 2, X86_64_MASK, 0, 0);
    n = run(u, no_maps, ips, 16, &res);
    check(n == 0 && res.stop == PV_UNWIND_NO_USER_STACK, "empty stack copy: no frames",
          "%zu frames, %s", n, pv_unwind_stop_name(res.stop));

    pack(&fake, 2, X86_64_MASK & ~(1ull << R_IP), 4096, 4096);
    n = run(u, no_maps, ips, 16, &res);
    check(n == 0 && res.stop == PV_UNWIND_BAD_SAMPLE, "ip not sampled: no frames",
          "%zu frames, %s", n, pv_unwind_stop_name(res.stop));

    pack(&fake, 2, X86_64_MASK & ~(1ull << R_SP), 4096, 4096);
    n = run(u, no_maps, ips, 16, &res);
    check(n == 1 && ips[0] == 0x401000 && res.stop == PV_UNWIND_BAD_SAMPLE,
          "sp not sampled: the leaf only", "%zu frames, %s", n, pv_unwind_stop_name(res.stop));

    pack(&fake, 2, X86_64_MASK, 4096, 4096);
    n = run(u, no_maps, ips, 16, &res);
    check(n == 1 && ips[0] == 0x401000 && res.stop == PV_UNWIND_NO_ELF,
          "pc in no map: the leaf only", "%zu frames, %s", n, pv_unwind_stop_name(res.stop));

    ips[0] = 0xaaaaaaaaaaaaaaaaull;
    n = pv_unwind_sample(u, &fake.s, no_maps, NULL, ips, 0, &res);
    check(n == 0 && ips[0] == 0xaaaaaaaaaaaaaaaaull, "max_frames 0: nothing written",
          "%zu frames", n);

    /* aarch64: the pc is perf register 32, the stack pointer 31. */
    pv_unwinder *arm = pv_unwinder_new("aarch64");
    memset(fake.regs, 0, sizeof fake.regs);
    fake.regs[32] = 0x5500001234;
    fake.regs[31] = 0x7ff0000000;
    pack(&fake, 2, (1ull << 33) - 1, 4096, 4096);
    n = arm ? run(arm, no_maps, ips, 16, &res) : 0;
    check(n == 1 && ips[0] == 0x5500001234 && res.stop == PV_UNWIND_NO_ELF,
          "aarch64 sample: the pc from register 32", "%zu frames, %s", n,
          pv_unwind_stop_name(res.stop));
    pack(&fake, 1, (1ull << 33) - 1, 4096, 4096);
    n = arm ? run(arm, no_maps, ips, 16, &res) : 0;
    check(n == 0 && res.stop == PV_UNWIND_UNSUPPORTED, "aarch64 32-bit ABI: unsupported",
          "%zu frames, %s", n, pv_unwind_stop_name(res.stop));
    pv_unwinder_free(arm);

    pv_unwinder *other = pv_unwinder_new("riscv64");
    n = other ? run(other, no_maps, ips, 16, &res) : 0;
    check(n == 0 && res.stop == PV_UNWIND_UNSUPPORTED, "unknown architecture: unsupported",
          "%zu frames, %s", n, pv_unwind_stop_name(res.stop));
    pv_unwinder_free(other);
    pv_unwinder_free(u);
}

#if defined(__x86_64__)

/* ---- this process's own stack ---- */

typedef struct snapshot {
    uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15;
    uint64_t return_address;            /* capture's, into level2 */
} snapshot;

static snapshot snap;
static uint64_t level2_return;          /* level2's, into level1 */
static uint64_t level1_return;          /* level1's, into its caller */
static uint8_t stack_copy[8192];
static uint64_t stack_copy_len;

/* Copies the live stack above rsp byte by byte: memcpy would be checked by
 * AddressSanitizer against the redzones of the frames it crosses. */
__attribute__((no_sanitize_address, noinline))
static void copy_stack(uint64_t from, uint64_t len)
{
    volatile const uint8_t *p = (volatile const uint8_t *)(uintptr_t)from;
    for (uint64_t i = 0; i < len; i++)
        stack_copy[i] = p[i];
    stack_copy_len = len;
}

/* The registers as the kernel would sample them here, and the stack above
 * them, as far as the stack mapping goes. */
__attribute__((noinline)) static void capture(void)
{
    uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15;
    __asm__ volatile("lea 0(%%rip), %0\n\t"
                     "mov %%rsp, %1\n\t"
                     "mov %%rbp, %2\n\t"
                     "mov %%rbx, %3\n\t"
                     : "=r"(rip), "=r"(rsp), "=r"(rbp), "=r"(rbx));
    __asm__ volatile("mov %%r12, %0\n\t"
                     "mov %%r13, %1\n\t"
                     "mov %%r14, %2\n\t"
                     "mov %%r15, %3\n\t"
                     : "=r"(r12), "=r"(r13), "=r"(r14), "=r"(r15));
    snap.rip = rip;
    snap.rsp = rsp;
    snap.rbp = rbp;
    snap.rbx = rbx;
    snap.r12 = r12;
    snap.r13 = r13;
    snap.r14 = r14;
    snap.r15 = r15;
    snap.return_address = (uint64_t)(uintptr_t)__builtin_return_address(0);
    uint64_t len = sizeof stack_copy;
    pv_unwind_map m;
    if (self_find_map(NULL, rsp, &m) && m.end - rsp < len)
        len = m.end - rsp;
    copy_stack(rsp, len);
}

__attribute__((noinline)) static void level2(void)
{
    level2_return = (uint64_t)(uintptr_t)__builtin_return_address(0);
    capture();
    __asm__ volatile("" ::: "memory");  /* no tail call */
}

__attribute__((noinline)) static void level1(void)
{
    level1_return = (uint64_t)(uintptr_t)__builtin_return_address(0);
    level2();
    __asm__ volatile("" ::: "memory");
}

static void fill_from_snapshot(uint64_t dyn_size)
{
    memset(fake.regs, 0, sizeof fake.regs);
    fake.regs[R_IP] = snap.rip;
    fake.regs[R_SP] = snap.rsp;
    fake.regs[R_BP] = snap.rbp;
    fake.regs[R_BX] = snap.rbx;
    fake.regs[R_R8 + 4] = snap.r12;
    fake.regs[R_R8 + 5] = snap.r13;
    fake.regs[R_R8 + 6] = snap.r14;
    fake.regs[R_R15] = snap.r15;
    memcpy(fake.stack, stack_copy, stack_copy_len);
    pack(&fake, 2, X86_64_MASK, stack_copy_len, dyn_size);
    fake.s.pid = 1;
}

static void own_stack(void)
{
    load_self_maps();
    level1();
    pv_unwinder *u = pv_unwinder_new("x86_64");
    uint64_t ips[128];
    pv_unwind_result res;

    fill_from_snapshot(stack_copy_len);
    size_t n = run(u, self_find_map, ips, 128, &res);
    check(n >= 4 && ips[0] == snap.rip && ips[1] == snap.return_address - 1 &&
          ips[2] == level2_return - 1 && ips[3] == level1_return - 1,
          "own stack: capture, level2, level1 and their caller",
          "%zu frames (%s: %s): %llx %llx %llx %llx; want %llx %llx %llx %llx", n,
          pv_unwind_stop_name(res.stop), res.detail, (unsigned long long)ips[0],
          (unsigned long long)(n > 1 ? ips[1] : 0), (unsigned long long)(n > 2 ? ips[2] : 0),
          (unsigned long long)(n > 3 ? ips[3] : 0), (unsigned long long)snap.rip,
          (unsigned long long)snap.return_address - 1, (unsigned long long)level2_return - 1,
          (unsigned long long)level1_return - 1);
    check(res.stop == PV_UNWIND_END_OF_STACK, "own stack: unwound to the end",
          "%s: %s", pv_unwind_stop_name(res.stop), res.detail);

    /* The session's module of a frame, with this file's debug info. */
    Dwfl_Module *mod = pv_unwinder_module(u, ips[1]);
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = mod ? dwfl_module_addrdie(mod, ips[1], &bias) : NULL;
    Dwarf_Die *scopes = NULL;
    int nscopes = cu ? dwarf_getscopes(cu, ips[1] - bias, &scopes) : 0;
    const char *caller = nscopes > 0 ? dwarf_diename(&scopes[0]) : NULL;
    check(caller && !strcmp(caller, "level2"), "the module of a frame names its function",
          "%s", caller ? caller : "(none)");
    free(scopes);

    /* Again from the cached session: the same frames. */
    uint64_t again[128];
    memcpy(again, ips, sizeof again);
    size_t m = run(u, self_find_map, ips, 128, &res);
    check(m == n && !memcmp(again, ips, n * sizeof *ips), "own stack again, cached session",
          "%zu frames, first time %zu", m, n);

    m = run(u, self_find_map, ips, 3, &res);
    check(m == 3 && res.stop == PV_UNWIND_MAX_FRAMES && ips[2] == level2_return - 1,
          "max_frames 3: three frames, stop says so", "%zu frames, %s", m,
          pv_unwind_stop_name(res.stop));

    /* A copy cut short: the unwind stops where the copy ends (the rest of
     * the stack reads as zeros, as in perf), and keeps the frames before. */
    fill_from_snapshot(16);
    m = run(u, self_find_map, ips, 128, &res);
    check(m >= 1 && m < n && ips[0] == snap.rip, "stack copy of 16 bytes: fewer frames",
          "%zu frames of %zu (%s)", m, n, pv_unwind_stop_name(res.stop));

    /* The copy sits at the stack pointer.  A copy of 8 bytes has no word
     * perf's reader takes from it (the last word never is); at a stack
     * pointer no map holds (a frame pointer too), the caller's return
     * address is read from nowhere: the step fails. */
    fill_from_snapshot(8);
    fake.regs[R_SP] = 0x1000;
    fake.regs[R_BP] = 0x2000;
    pack(&fake, 2, X86_64_MASK, stack_copy_len, 8);
    fake.s.pid = 1;
    m = run(u, self_find_map, ips, 128, &res);
    check(m == 1 && ips[0] == snap.rip && res.stop == PV_UNWIND_STEP_FAILED,
          "short copy at an unmapped sp: the leaf only, the step fails",
          "%zu frames (%s: %s)", m, pv_unwind_stop_name(res.stop), res.detail);

    /* perf's unwinder missing a file's CFI guesses from the frame pointer;
     * a frame pointer of 0 ends the stack at the leaf. */
    misplace_perf_tables = true;
    fill_from_snapshot(stack_copy_len);
    fake.regs[R_BP] = 0;
    pack(&fake, 2, X86_64_MASK, stack_copy_len, stack_copy_len);
    fake.s.pid = 2;
    m = run(u, self_find_map, ips, 128, &res);
    check(m == 1 && res.stop == PV_UNWIND_END_OF_STACK && strstr(res.detail, "no CFI for perf"),
          "perf misses the CFI, frame pointer 0: the leaf only", "%zu frames (%s: %s)", m,
          pv_unwind_stop_name(res.stop), res.detail);
    /* a frame pointer below the stack pointer is no frame either */
    fake.regs[R_BP] = snap.rsp - 64;
    pack(&fake, 2, X86_64_MASK, stack_copy_len, stack_copy_len);
    fake.s.pid = 2;
    m = run(u, self_find_map, ips, 128, &res);
    check(m == 1 && res.stop == PV_UNWIND_END_OF_STACK && strstr(res.detail, "no CFI for perf"),
          "perf misses the CFI, frame pointer below the stack: the leaf only",
          "%zu frames (%s: %s)", m, pv_unwind_stop_name(res.stop), res.detail);
    misplace_perf_tables = false;

    /* Garbage on the stack: whatever comes out is bounded. */
    srand(7);
    for (int round = 0; round < 50; round++) {
        fill_from_snapshot(stack_copy_len);
        for (uint64_t i = 0; i < stack_copy_len; i++)
            fake.stack[i] = (uint8_t)rand();
        fake.s.pid = 100 + round % 20;     /* many sessions: eviction */
        m = run(u, self_find_map, ips, 40, &res);
        if (m > 40 || m == 0)
            break;
    }
    check(m >= 1 && m <= 40, "random stack bytes: bounded frames, no crash", "%zu frames", m);

    /* A path that is not an ELF file where a frame lands. */
    for (size_t i = 0; i < nr_self_maps; i++)
        if (snap.rip >= self_maps[i].start && snap.rip < self_maps[i].end)
            snprintf(self_maps[i].path, sizeof self_maps[i].path, "/proc/self/status");
    fill_from_snapshot(stack_copy_len);
    fake.s.pid = 999;
    m = run(u, self_find_map, ips, 128, &res);
    check(m == 1 && res.stop == PV_UNWIND_NO_ELF, "leaf in a file that is not ELF: the leaf only",
          "%zu frames (%s: %s)", m, pv_unwind_stop_name(res.stop), res.detail);
    pv_unwinder_free(u);
}
#endif

int main(void)
{
    hostile_samples();
#if defined(__x86_64__)
    own_stack();
#endif
    return failures ? 1 : 0;
}
