/*
 * inline_names FILE ADDR...
 *
 * The functions at each ADDR (hex, an address of FILE's own, as its DWARF
 * has them) as the reader names a DWARF-unwound frame there
 * (src/unwind/inline_frames.c, through the debug cache the symbolizer
 * uses), one line per address:
 *
 *     ADDR: innermost (inlined), ..., holder
 *
 * innermost first, " (inlined)" after each function the reader marks
 * inlined (a DW_TAG_inlined_subroutine), none after the one holding the
 * code; "ADDR: -" when it finds none.  tests/t_frame_names.sh compares
 * these with the DIE tags llvm-dwarfdump reads at the same addresses.
 * Exit status 2 when FILE cannot be opened.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "unwind/debug_cache.h"
#include "unwind/inline_frames.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: inline_names FILE ADDR...\n");
        return 2;
    }
    pv_debug_cache *cache = pv_debug_cache_new(1);
    struct Dwfl_Module *mod = cache ? pv_debug_cache_module(cache, argv[1]) : NULL;
    if (!mod) {
        fprintf(stderr, "inline_names: %s: no ELF file libdwfl can open\n", argv[1]);
        pv_debug_cache_free(cache);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        uint64_t pc = strtoull(argv[i], NULL, 16);
        char bytes[16384];
        pv_name_buf buf = { bytes, sizeof bytes, 0 };
        pv_inline_name names[PV_INLINE_MAX_DEPTH];
        size_t n = pv_inline_names(mod, pc, NULL, &buf, names, PV_INLINE_MAX_DEPTH);
        printf("%" PRIx64 ":", pc);
        for (size_t j = 0; j < n; j++)
            printf("%s %s%s", j ? "," : "", bytes + names[j].at,
                   names[j].inlined ? " (inlined)" : "");
        printf("%s\n", n ? "" : " -");
    }
    pv_debug_cache_free(cache);
    return 0;
}
