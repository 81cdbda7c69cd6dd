/*
 * The source line of a code address, from the DWARF line tables of the
 * file holding it, as perf's srcline shows it (perf 6.1 asks binutils'
 * addr2line -i): for the code itself, the line-table row that covers the
 * address; for a function the code was inlined into, the line where the
 * function inside it was called (the inlined subroutine's DW_AT_call_file
 * and DW_AT_call_line), so that each of pv_inline_names' names has the
 * line it is at.
 *
 * The file is named as the line table names it: its directory entry
 * joined with its name, and, when that is relative, after the compile
 * unit's DW_AT_comp_dir, as addr2line names it (and perf's
 * --full-source-path shows it): ./csu/../csu/libc-start.c.
 *
 * The module is the file's in the debug cache (debug_cache.h): libdw reads
 * a compile unit's line table the first time an address in it is asked
 * for and keeps it with the module, so each table is read once per file,
 * for every process and query of a connection.  The symbolizer takes the
 * code's own line (level 0) from the cache's compact tables instead
 * (line_table.h), which keep none of libdw's memory; this level 0 is their
 * slow twin (tests/t_line_table.sh).
 */
#ifndef PV_SOURCE_LINES_H
#define PV_SOURCE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct Dwfl_Module;

/* The line at pc (an address of mod's, as pv_inline_names takes it) of
 * the function at level among those holding pc: 0 the innermost (the
 * code's own line), each level one function further out, in
 * pv_inline_names' order: its file's path into file (size bytes, cut
 * short if longer) and its line into *line.  false when mod is NULL or
 * has no line for it (no debug info, no line-table row, line 0, level
 * past the outermost). */
bool pv_source_line_at(struct Dwfl_Module *mod, uint64_t pc, unsigned level, char *file,
                       size_t size, uint64_t *line);

#endif
