#include "unwind/cfi_row.h"

#include <dwarf.h>
#include <stdlib.h>

Dwarf_Frame *pv_cfi_row(Dwfl *dwfl, uint64_t lookup_pc)
{
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, lookup_pc);
    if (!mod)
        return NULL;
    for (int which = 0; which < 2; which++) {
        Dwarf_Addr bias;
        Dwarf_CFI *cfi = which == 0 ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
        Dwarf_Frame *row;
        if (cfi && dwarf_cfi_addrframe(cfi, lookup_pc - bias, &row) == 0)
            return row;
    }
    return NULL;
}

bool pv_cfi_row_signal_frame(Dwarf_Frame *row)
{
    bool signalp = false;
    dwarf_frame_info(row, NULL, NULL, &signalp);
    return signalp;
}

/* libdw's answer for a register: no ops, and ops left pointing at the
 * caller's array, means undefined (NULL means same value). */
static bool rule_undefined(Dwarf_Frame *row, int regno)
{
    Dwarf_Op ops_mem[3], *ops;
    size_t nops;
    return dwarf_frame_register(row, regno, ops_mem, &ops, &nops) == 0 && nops == 0 &&
           ops == ops_mem;
}

bool pv_cfi_row_return_address_undefined(Dwarf_Frame *row)
{
    int ra = dwarf_frame_info(row, NULL, NULL, NULL);
    return ra >= 0 && rule_undefined(row, ra);
}

uint64_t pv_cfi_row_undefined(Dwarf_Frame *row, uint64_t regs)
{
    uint64_t undefined = 0;
    for (int r = 0; r < 64; r++)
        if (((regs >> r) & 1) && rule_undefined(row, r))
            undefined |= UINT64_C(1) << r;
    return undefined;
}

/* The registers an expression reads (DW_OP_reg*, DW_OP_breg*). */
static uint64_t ops_read(const Dwarf_Op *ops, size_t nops)
{
    uint64_t regs = 0;
    for (size_t i = 0; i < nops; i++) {
        uint64_t r = 64;
        uint8_t atom = ops[i].atom;
        if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
            r = atom - DW_OP_reg0;
        else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
            r = atom - DW_OP_breg0;
        else if (atom == DW_OP_regx || atom == DW_OP_bregx)
            r = ops[i].number;
        if (r < 64)
            regs |= UINT64_C(1) << r;
    }
    return regs;
}

uint64_t pv_cfi_row_reads(Dwarf_Frame *row, unsigned nr_regs)
{
    Dwarf_Op *ops;
    size_t nops;
    uint64_t regs = dwarf_frame_cfa(row, &ops, &nops) == 0 ? ops_read(ops, nops) : 0;
    for (unsigned r = 0; r < nr_regs; r++) {
        Dwarf_Op ops_mem[3];
        if (dwarf_frame_register(row, (int)r, ops_mem, &ops, &nops) == 0 && ops)
            regs |= ops_read(ops, nops);
    }
    return regs;
}
