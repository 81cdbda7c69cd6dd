/*
 * The registers a callee preserves, followed from frame to frame of an
 * unwind where libdw loses them.
 *
 * A register the psABI has a callee preserve keeps its value in the
 * caller where the callee's CFI has no rule for it (same value).  libdw
 * applies that default from its own ABI table, and its x86_64 table
 * (elfutils 0.188, the one tested) names DWARF register 0, rax, where it
 * means rbx (3): each step leaves rbx undefined in the caller where the
 * callee neither saved it nor had a rule.  Where a caller's CFA is rbx
 * plus an offset (glibc's _dl_runtime_resolve_xsavec, which realigns its
 * stack) libdwfl then cannot step, where perf's unwinder can.  The
 * unwinder follows the values here and, at a frame whose CFI row reads
 * one libdw lost, restarts the walk at that frame with it given back.
 * DW_CFA_undefined on a preserved register, which libdw does not tell
 * from no rule, counts as no rule.
 */
#ifndef PV_UNWIND_PRESERVED_REGS_H
#define PV_UNWIND_PRESERVED_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#include "unwind/unwind_regs.h"

typedef struct pv_preserved_regs {
    uint64_t known;             /* preserved registers known in the current frame (mask) */
    uint64_t in_state;          /* of those, the ones libdwfl has */
    uint64_t unruled;           /* of those known, the ones its CFI row has no rule for */
    uint64_t value[32];         /* by DWARF number */
} pv_preserved_regs;

/* The current frame is state's: the first of a walk has the registers
 * the walk was given; a later one also keeps those its callee's row had
 * no rule for. */
void pv_preserved_follow(pv_preserved_regs *p, const pv_unwind_abi *abi, Dwfl_Frame *state,
                         bool first);

/* Notes the current frame's CFI row (NULL: none); true when the step
 * from it reads a preserved register libdw lost, and libdwfl's walk must
 * restart at this frame with it (pv_preserved_get). */
bool pv_preserved_row(pv_preserved_regs *p, const pv_unwind_abi *abi, Dwarf_Frame *row);

/* The followed value of DWARF register r, if known. */
bool pv_preserved_get(const pv_preserved_regs *p, unsigned r, uint64_t *value);

#endif
