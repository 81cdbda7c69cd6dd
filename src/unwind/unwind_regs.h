/*
 * Sampled user registers, per architecture: which of perf's register
 * indices are DWARF's, and how to read one from a sample (dwarf_unwind.c
 * hands them to libdwfl as the initial frame).
 */
#ifndef PV_UNWIND_REGS_H
#define PV_UNWIND_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "decode/sample.h"

/* perf_event's PERF_SAMPLE_REGS_ABI_* */
#define REGS_ABI_32 1
#define REGS_ABI_64 2

/*
 * How one architecture's perf registers become DWARF registers.
 *
 * A sample's regs_user holds one u64 per bit set in the event's
 * sample_regs_user mask, in bit order; the bit numbers are the
 * architecture's perf register indices (arch/.../uapi/asm/perf_regs.h).
 * libdwfl wants its initial frame as DWARF register numbers
 * (the psABI's numbering), plus the pc.
 */
typedef struct pv_unwind_abi {
    const char *name;
    uint16_t elf_machine;       /* EM_* every module of the process must have */
    uint64_t regs_abi;          /* REGS_ABI_32 / REGS_ABI_64 */
    unsigned word_size;
    int perf_ip, perf_sp;       /* perf indices of the pc and stack pointer */
    unsigned nr_dwarf;
    const int8_t *perf_of_dwarf; /* [dwarf regno] = perf index */
    uint64_t preserved;         /* DWARF registers a callee preserves (psABI), as a mask */
} pv_unwind_abi;

typedef enum { ARCH_UNKNOWN, ARCH_X86, ARCH_ARM64 } pv_arch_family;

/* x86_64's, which some heuristics of the unwind are for. */
extern const pv_unwind_abi pv_unwind_abi_x86_64;

/* The family of a HEADER_ARCH name ("x86_64", "i686", "arm64"...). */
pv_arch_family pv_unwind_arch_family(const char *arch);
/* The ABI of a sample's PERF_SAMPLE_REGS_ABI_* on a family, or NULL. */
const pv_unwind_abi *pv_unwind_abi_for(pv_arch_family family, uint64_t regs_abi);
/* The sample's register value at perf index, if sampled. */
bool pv_unwind_perf_reg(const pv_sample *s, unsigned index, uint64_t *value);

#endif
