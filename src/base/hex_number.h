/*
 * Hex numbers in text: the addresses of kallsyms files and JIT maps
 * (symbols/symtab.c) and the column sets of a query plan's idxStr
 * (ext/vtab_plan.c).
 */
#ifndef PV_HEX_NUMBER_H
#define PV_HEX_NUMBER_H

#include <stdint.h>

/* Each byte's value as a hex digit (either case) plus one, 0 for any other
 * byte. */
extern const uint8_t pv_hex_digit_plus_one[256];

/* The number spelled by the hex digits at s, at most max_digits of them
 * (16 or fewer: a uint64_t holds them), and where they end in *end (s when
 * there is none).  Inline: a join asks its plan's idxStr once per outer
 * row. */
static inline uint64_t pv_hex_read(const char *s, unsigned max_digits, const char **end)
{
    uint64_t v = 0;
    unsigned n = 0;
    for (unsigned d; n < max_digits && (d = pv_hex_digit_plus_one[(unsigned char)s[n]]) != 0; n++)
        v = v << 4 | (d - 1);
    *end = s + n;
    return v;
}

#endif
