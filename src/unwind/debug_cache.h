/*
 * The debug info of the ELF files a recording's stacks pass through, opened
 * once and shared: by every process of the recording (each has its own
 * unwinding session, see dwarf_unwind.h, but a library's DWARF is the same
 * in all of them), and by every query of a connection that hands the same
 * cache to its symbolizers.
 *
 * Opening a file's DWARF is the dear part of naming inline frames: libdw
 * inflates every compressed .debug_* section of the file (Debian's debug
 * files are zlib-compressed; libc's is tens of MB inflated) before the
 * first lookup.  Once per file here, instead of once per process and
 * query.
 *
 * Lazy: a file is opened the first time an address in it is asked for
 * (only the files samples hit), and within it each compile unit's
 * functions are indexed the first time an address in that unit is asked
 * for (inline_frames.c).
 *
 * Each file gets a libdwfl session of its own, with one module: the file at
 * its own addresses (bias 0), its debug info found the standard way
 * (inside it, else a separate file by build-id or .gnu_debuglink, and a
 * dwz alternate file), as the unwinding sessions would find it.
 *
 * Bounded: at most max_files files, the least recently used one closed to
 * make room.  A file whose identity on disk changed (device, inode, size,
 * mtime) is opened again; identity is checked the first time a file is
 * asked for after pv_debug_cache_recheck.  Not thread-safe: one user at a
 * time (a connection's statements are).
 *
 * What an open file holds: its line tables (line_table.h), compact and
 * copied out of libdw in a session of their own that is ended at once;
 * and, only when its module is asked for (inline names, unwinding), its
 * session.  A session holds, until dwfl_end, the inflated .debug_*
 * sections of a compressed debug file (dwarf_begin_elf inflates them all:
 * 13.5 MB for libc and ld.so), the touched pages of the snapshots, and
 * the line tables libdw parses (dwarf_getsrclines, about 50 bytes a row:
 * 37 MB on bench/data/procs.data, where the compact tables take 10.4 MB).
 * libdw frees none of it before dwfl_end, and the files a recording's
 * stacks pass through are asked for all along the stream, so fewer files
 * open only trades time for nothing: 4 files made perf_pprof 8x slower at
 * the same peak.
 */
#ifndef PV_DEBUG_CACHE_H
#define PV_DEBUG_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_debug_cache pv_debug_cache;

/* The default bound: files of debug info kept open. */
#define PV_DEBUG_CACHE_FILES 32

/* A cache of at most max_files files (0: PV_DEBUG_CACHE_FILES); NULL when
 * out of memory. */
pv_debug_cache *pv_debug_cache_new(size_t max_files);
void pv_debug_cache_free(pv_debug_cache *c);

/* Marks every file to be checked against the disk again when next asked
 * for: a new query may come after the files changed. */
void pv_debug_cache_recheck(pv_debug_cache *c);

/* The libdwfl module of the ELF file at path, at the file's own addresses
 * (an address in a process less the module's bias there), opened now if
 * the cache lacks it; NULL when path is no ELF file libdwfl can open.
 * Valid until the next call or pv_debug_cache_free. */
struct Dwfl_Module;
struct Dwfl_Module *pv_debug_cache_module(pv_debug_cache *c, const char *path);

/* The line tables of the ELF file at path (line_table.h), built now if
 * the cache lacks them, in a libdwfl session of their own that is ended
 * at once: the file's session (pv_debug_cache_module) is not opened for
 * them.  NULL when memory ran out (counted, base/pv_alloc.h; the next ask
 * builds them again).  Valid until the next call or pv_debug_cache_free. */
struct pv_line_table;
const struct pv_line_table *pv_debug_cache_lines(pv_debug_cache *c, const char *path);

/* The stop (base/pv_stop.h) of the work now asking, NULL after it: while
 * it says stop, no file is opened and no line table built, and the asks
 * above answer as for a file without them.  A stop, once said, stays said
 * for the work it was made for, so that work fails: no answer made without
 * the debug info is handed on. */
struct pv_stop;
void pv_debug_cache_set_stop(pv_debug_cache *c, const struct pv_stop *stop);

/* Drops the session of path (a lookup in it ran out of memory inside
 * libdw, which may have left its tables short): the next asks for the
 * file open it afresh. */
void pv_debug_cache_forget(pv_debug_cache *c, const char *path);

/* Whether the debug info of the ELF file at path (pv_debug_cache_module)
 * has CFI of its own, a .debug_frame; false when it has no debug info.
 * Reads the file's DWARF when not yet read. */
bool pv_debug_cache_has_debug_frame(pv_debug_cache *c, const char *path);

/* What the cache did, for diagnostics and tests. */
typedef struct pv_debug_cache_stats {
    uint64_t opened;        /* files opened (ELF or not) */
    uint64_t reused;        /* lookups answered by a file already open */
    uint64_t closed;        /* files closed to make room or because they changed */
    size_t files;           /* files open now */
    size_t max_files;
} pv_debug_cache_stats;

void pv_debug_cache_get_stats(const pv_debug_cache *c, pv_debug_cache_stats *out);

#endif
