#include "unwind/source_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <string.h>

#include "unwind/inline_frames.h"
#include "base/pv_alloc.h"

/* Appends text to file[*len ..], cut short at size - 1 bytes. */
static void append(char *file, size_t size, size_t *len, const char *text)
{
    size_t n = strlen(text);
    if (*len >= size - 1)
        return;
    if (n > size - 1 - *len)
        n = size - 1 - *len;
    memcpy(file + *len, text, n);
    *len += n;
    file[*len] = '\0';
}

/* path, after the unit's compilation directory when it is relative. */
static void name_file(Dwarf_Die *unit, const char *path, char *file, size_t size)
{
    size_t len = 0;
    file[0] = '\0';
    Dwarf_Attribute attr;
    const char *comp_dir = path[0] != '/' && unit
                               ? dwarf_formstring(dwarf_attr(unit, DW_AT_comp_dir, &attr))
                               : NULL;
    if (comp_dir && *comp_dir) {
        append(file, size, &len, comp_dir);
        append(file, size, &len, "/");
    }
    append(file, size, &len, path);
}

/* The line-table row covering pc: the code's own line. */
static bool code_line(struct Dwfl_Module *mod, uint64_t pc, char *file, size_t size,
                      uint64_t *line)
{
    Dwfl_Line *row = dwfl_module_getsrc(mod, pc);
    int lineno = 0;
    const char *path = row ? dwfl_lineinfo(row, NULL, &lineno, NULL, NULL, NULL) : NULL;
    /* line 0: code the compiler ties to no line, which addr2line shows as ?? */
    if (!path || lineno <= 0)
        return false;
    name_file(dwfl_linecu(row), path, file, size);
    *line = (uint64_t)lineno;
    return true;
}

/* Where the inlined subroutine die was called: its DW_AT_call_file (an
 * index into its unit's file table) and DW_AT_call_line. */
static bool call_site(Dwarf_Die *die, char *file, size_t size, uint64_t *line)
{
    Dwarf_Attribute attr;
    Dwarf_Word file_index, call_line;
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &file_index) != 0 ||
        dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &call_line) != 0 ||
        call_line == 0)
        return false;
    Dwarf_Die unit;
    Dwarf_Files *files;
    size_t nr_files;
    if (!dwarf_diecu(die, &unit, NULL, NULL) || dwarf_getsrcfiles(&unit, &files, &nr_files) != 0 ||
        file_index >= nr_files)
        return false;
    const char *path = dwarf_filesrc(files, file_index, NULL, NULL);
    if (!path)
        return false;
    name_file(&unit, path, file, size);
    *line = call_line;
    return true;
}

/* libdw reads line tables and DIEs on first use: a lookup that finds
 * nothing for want of memory is counted (base/pv_alloc.h), not taken for
 * an address without a line */
static bool counted(bool found)
{
    if (!found)
        pv_alloc_check_errno();
    return found;
}

bool pv_source_line_at(struct Dwfl_Module *mod, uint64_t pc, unsigned level, char *file,
                       size_t size, uint64_t *line)
{
    if (!mod || size == 0)
        return false;
    errno = 0;
    if (level == 0)
        return counted(code_line(mod, pc, file, size, line));
    Dwarf_Die path[PV_INLINE_MAX_DEPTH];
    size_t depth = pv_inline_functions(mod, pc, path, PV_INLINE_MAX_DEPTH);
    /* level k is path[depth - 1 - k]; its line is where path[depth - k],
     * the function inlined into it, was called */
    if (level >= depth)
        return counted(false);
    return counted(call_site(&path[depth - level], file, size, line));
}
