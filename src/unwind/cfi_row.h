/*
 * What a module's CFI says of one frame: the row of its .eh_frame (else
 * .debug_frame) at a pc, and the questions the unwind asks of it.
 */
#ifndef PV_UNWIND_CFI_ROW_H
#define PV_UNWIND_CFI_ROW_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

/* The row at lookup_pc of the module holding it, or NULL (no module, or
 * no CFI covers the pc).  The caller frees it (free()). */
Dwarf_Frame *pv_cfi_row(Dwfl *dwfl, uint64_t lookup_pc);

/* Whether the row's CIE marks a signal trampoline ('S'). */
bool pv_cfi_row_signal_frame(Dwarf_Frame *row);

/* Whether the row leaves the caller's return address undefined: the
 * outermost frame (glibc's _start). */
bool pv_cfi_row_return_address_undefined(Dwarf_Frame *row);

/* Of the DWARF registers in regs (a mask, registers below 64), those
 * whose value in the caller the row leaves undefined: no rule (libdw
 * then applies its ABI defaults) or DW_CFA_undefined, which libdw does
 * not tell apart. */
uint64_t pv_cfi_row_undefined(Dwarf_Frame *row, uint64_t regs);

/* The DWARF registers (below 64) the row's CFA and its rules for
 * registers 0..nr_regs-1 read: what the step to the caller needs. */
uint64_t pv_cfi_row_reads(Dwarf_Frame *row, unsigned nr_regs);

#endif
