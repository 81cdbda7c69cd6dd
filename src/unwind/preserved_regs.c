#include "unwind/preserved_regs.h"

#include "unwind/cfi_row.h"

/* The preserved registers libdwfl has a value for in state. */
static uint64_t known_in(const pv_unwind_abi *abi, Dwfl_Frame *state, uint64_t *values)
{
    uint64_t known = 0;
    for (unsigned r = 0; r < abi->nr_dwarf && r < 32; r++) {
        Dwarf_Word value;
        if (((abi->preserved >> r) & 1) && dwfl_frame_reg(state, r, &value) == 0) {
            values[r] = value;
            known |= UINT64_C(1) << r;
        }
    }
    return known;
}

void pv_preserved_follow(pv_preserved_regs *p, const pv_unwind_abi *abi, Dwfl_Frame *state,
                         bool first)
{
    p->in_state = known_in(abi, state, p->value);
    p->known = first ? p->in_state : p->in_state | (p->known & p->unruled);
    p->unruled = 0;
}

bool pv_preserved_row(pv_preserved_regs *p, const pv_unwind_abi *abi, Dwarf_Frame *row)
{
    if (!row) {
        p->unruled = 0;
        return false;
    }
    p->unruled = pv_cfi_row_undefined(row, p->known);
    uint64_t lost = p->known & ~p->in_state;
    return lost && (pv_cfi_row_reads(row, abi->nr_dwarf) & lost);
}

bool pv_preserved_get(const pv_preserved_regs *p, unsigned r, uint64_t *value)
{
    if (r >= 32 || !((p->known >> r) & 1))
        return false;
    *value = p->value[r];
    return true;
}
