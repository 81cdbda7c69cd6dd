#include "unwind/unwind_regs.h"

#include <elf.h>
#include <string.h>

/* x86 perf indices: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS, then
 * R8..R15 at 16..23.  x86_64 DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15,
 * then 16 = the return address column, which holds rip. */
static const int8_t x86_64_perf_of_dwarf[17] = {
    0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8,
};
/* i386 DWARF: eax ecx edx ebx esp ebp esi edi eip. */
static const int8_t i386_perf_of_dwarf[9] = { 0, 2, 3, 1, 7, 6, 4, 5, 8 };
/* arm64 perf indices: X0..X30 (x29 = fp, x30 = lr), SP = 31, PC = 32;
 * DWARF: x0..x30, sp = 31; the pc has no DWARF register. */
static const int8_t aarch64_perf_of_dwarf[32] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

#define REG(n) (UINT64_C(1) << (n))
/* Callee-saved: x86_64 rbx rbp r12..r15; i386 ebx ebp esi edi; arm64
 * x19..x29 (AAPCS64). */
const pv_unwind_abi pv_unwind_abi_x86_64 = {
    "x86_64", EM_X86_64, REGS_ABI_64, 8, 8, 7, 17, x86_64_perf_of_dwarf,
    REG(3) | REG(6) | REG(12) | REG(13) | REG(14) | REG(15),
};
static const pv_unwind_abi abi_i386 = {
    "i386", EM_386, REGS_ABI_32, 4, 8, 7, 9, i386_perf_of_dwarf,
    REG(3) | REG(5) | REG(6) | REG(7),
};
static const pv_unwind_abi abi_aarch64 = {
    "aarch64", EM_AARCH64, REGS_ABI_64, 8, 32, 31, 32, aarch64_perf_of_dwarf,
    (REG(30) - 1) & ~(REG(19) - 1),
};

pv_arch_family pv_unwind_arch_family(const char *arch)
{
    if (!arch)
        return ARCH_UNKNOWN;
    if (!strcmp(arch, "x86_64") || !strcmp(arch, "amd64") || !strcmp(arch, "x86") ||
        (arch[0] == 'i' && arch[1] >= '3' && arch[1] <= '6' && !strcmp(arch + 2, "86")))
        return ARCH_X86;
    if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
        return ARCH_ARM64;
    return ARCH_UNKNOWN;
}

const pv_unwind_abi *pv_unwind_abi_for(pv_arch_family family, uint64_t regs_abi)
{
    if (family == ARCH_X86)
        return regs_abi == REGS_ABI_64 ? &pv_unwind_abi_x86_64
               : regs_abi == REGS_ABI_32 ? &abi_i386 : NULL;
    if (family == ARCH_ARM64)
        return regs_abi == REGS_ABI_64 ? &abi_aarch64 : NULL;
    return NULL;
}

bool pv_unwind_perf_reg(const pv_sample *s, unsigned index, uint64_t *value)
{
    if (index >= 64 || !((s->regs_user.mask >> index) & 1))
        return false;
    uint64_t below = s->regs_user.mask & ((UINT64_C(1) << index) - 1);
    uint64_t at = (uint64_t)__builtin_popcountll(below);
    if (at >= s->regs_user.nr)
        return false;
    *value = pv_sample_u64_at(s, s->regs_user.values, at);
    return true;
}
