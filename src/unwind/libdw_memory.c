#include "unwind/libdw_memory.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <libelf.h>
#include <locale.h>
#include <string.h>

void pv_libdw_memory_begin(void)
{
    errno = 0;
    (void)elf_errno();      /* each reads and clears its last error */
    (void)dwarf_errno();
    (void)dwfl_errno();
}

/* The messages as libelf, libdw and libdwfl write them untranslated. */
static bool says_out_of_memory(const char *message)
{
    return message && (strstr(message, "out of memory") || strstr(message, "Cannot allocate memory"));
}

bool pv_libdw_out_of_memory(void)
{
    if (errno == ENOMEM)
        return true;
    int elf = elf_errno(), dwarf = dwarf_errno(), dwfl = dwfl_errno();
    if (!elf && !dwarf && !dwfl)
        return false;
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t before = c ? uselocale(c) : (locale_t)0;
    bool memory = (elf && says_out_of_memory(elf_errmsg(elf))) ||
                  (dwarf && says_out_of_memory(dwarf_errmsg(dwarf))) ||
                  (dwfl && says_out_of_memory(dwfl_errmsg(dwfl)));
    if (c) {
        uselocale(before);
        freelocale(c);
    }
    return memory;
}
