/*
 * Resolving the addresses of one recording: ip -> dso, offset, symbol.
 *
 * The file's MMAP/MMAP2, COMM, FORK and EXIT records build an address space
 * (addr_space.h) and a table of the mapped files ("dsos") as the scan
 * advances (pv_symbolizer_at), read by a walk of their own a little ahead
 * of it, so the first rows need not wait for the whole file.  A dso's
 * symbols are loaded the first time an address falls into it:
 *
 *   user ELF files: the file at its recorded path (under the sysroot when
 *     one is set) if its build-id matches the recording's, else the copy in
 *     a build-id directory (the symbol dir, perf's ~/.debug); its .symtab and .dynsym, or, when it has no
 *     .symtab, those of a debug file: /usr/lib/debug/.build-id/xx/yyy.debug,
 *     the build-id cache's debug copy, then its .gnu_debuglink next to it,
 *     in .debug/ beside it, or under /usr/lib/debug;
 *   [kernel.kallsyms] and modules: kallsyms from the recording's kcore_dir,
 *     else perf's build-id cache, else the sysroot's proc/kallsyms when a
 *     sysroot is set, else /proc/kallsyms when the running kernel has the
 *     recorded build-id (without one: the recorded hostname and osrelease);
 *   [vdso]: the build-id cache's copy, else this process's own vdso when
 *     its build-id is the recording's;
 *   anonymous memory: the JIT map /tmp/perf-PID.map (perf's convention);
 *   a runtime's jit-PID.dump, when the process maps one: its code loads
 *     become maps of their own, as perf inject --jit makes them
 *     (jit_symbols.c, jitdump.h).
 *
 * When no symbol can be had, the dso's status says why.
 */
#ifndef PV_SYMBOLIZER_H
#define PV_SYMBOLIZER_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "base/pv_error.h"

typedef struct pv_symbolizer pv_symbolizer;

typedef struct pv_symbol_paths {
    const char *sysroot;    /* prefix of every recorded path; NULL: none */
    const char *symdir;     /* a directory of .build-id/xx/yyy files; NULL: none */
} pv_symbol_paths;

typedef struct pv_location {
    const char *dso;        /* NULL: no map holds the address */
    uint64_t dso_offset;    /* the address as perf relates it to the dso */
    const char *sym;        /* NULL: unresolved; status says why */
    uint64_t sym_offset;
    const char *status;     /* "ok" or the reason sym is NULL */
} pv_location;

int pv_symbolizer_open(pv_file *f, const pv_symbol_paths *paths, pv_symbolizer **out,
                       pv_error *err);
void pv_symbolizer_free(pv_symbolizer *s);

/* Readies the lookups for the record at record_index (a sample, with its
 * time when it has one): reads the map records ahead of it that perf would
 * have applied before it (up to the second FINISHED_ROUND after it; all of
 * them in a file without rounds or in a directory), and gives the key that
 * orders it among them, its time when the file times every record, else
 * its ordinal.  Records are best taken in stream order, or in time order
 * in a file that times every record; an earlier one than the last in a
 * file keyed by ordinals starts the reading over.  -1 on error (a damaged map
 * record ahead, out of memory). */
int pv_symbolizer_at(pv_symbolizer *s, uint64_t record_index, bool has_time, uint64_t time,
                     uint64_t *key, pv_error *err);

/* Resolves ip of process pid at key; cpumode as in the record's misc
 * (kernel modes use the kernel's maps). */
void pv_symbolizer_resolve(pv_symbolizer *s, int32_t pid, uint64_t key, unsigned cpumode,
                           uint64_t ip, pv_location *out);
/* The map holding ip of process pid at key (as pv_symbolizer_resolve
 * takes them): where it starts and ends, the file offset of its start,
 * its dso's name (perf's) and build-id.  false when no map holds it. */
typedef struct pv_map_info {
    const char *dso;
    uint64_t start, end, pgoff;
    uint8_t build_id[PV_BUILD_ID_MAX];
    uint8_t build_id_len;       /* 0: the recording has none */
} pv_map_info;
bool pv_symbolizer_map(pv_symbolizer *s, int32_t pid, uint64_t key, unsigned cpumode,
                       uint64_t ip, pv_map_info *out);

/* The source line of ip of process pid at key (as pv_symbolizer_resolve
 * takes them), from the debug info of the ELF file mapped there
 * (source_lines.h): level 0 the code's own line, level k the line in the
 * k-th function out that the code was inlined into (pv_unwound_frame's
 * level).  The file's path, as the debug info has it, is copied into
 * file (file_size bytes, cut short if longer).  false when there is none:
 * no map or symbol file, no debug info, a kernel address (perfvtab reads
 * no vmlinux), no line-table row. */
bool pv_symbolizer_source_line(pv_symbolizer *s, int32_t pid, uint64_t key, unsigned cpumode,
                               uint64_t ip, unsigned level, char *file, size_t file_size,
                               uint64_t *line);

/* Thread tid's name at key, or NULL. */
const char *pv_symbolizer_comm(pv_symbolizer *s, int32_t tid, uint64_t key);

/* Has the symbolizer read debug info through cache, which the caller keeps
 * until the symbolizer is freed, instead of opening its own: the queries
 * of a connection share one, so each file's DWARF is read once.  Before
 * the first lookup. */
struct pv_debug_cache;
void pv_symbolizer_share_debug_cache(pv_symbolizer *s, struct pv_debug_cache *cache);

/* Has the symbolizer remember the stacks it unwinds in memo, and take
 * those already there (stack_memo.h), which the caller keeps for this
 * recording, until the symbolizer is freed.  Before the first lookup. */
struct pv_stack_memo;
void pv_symbolizer_share_stack_memo(pv_symbolizer *s, struct pv_stack_memo *memo);

/* Samples recorded with --call-graph dwarf carry the user registers and a
 * copy of the user stack instead of user callchain entries.  Whether the
 * sample has them (and a callchain, as perf requires to show a stack). */
struct pv_sample;
bool pv_symbolizer_has_dwarf_stack(const struct pv_sample *sample);

/* One row of an unwound user stack, as perf's default callchain lists it:
 * each frame (leaf first; a caller as its return address minus one) gives
 * the functions inlined at it, innermost first, named from the debug info
 * (see inline_frames.h), then the function holding them, all at the
 * frame's pc.  The function holding the code is named by its ELF symbol,
 * as in perf_samples, though its DIE may name another: a clone
 * (spin.constprop.0, msort.part.0, f.isra.0, f.cold) is a DW_TAG_subprogram
 * naming the function it was cloned from, and no inline of it (perf 6.1
 * names it so and prints it "(inlined)"; it is not).  A frame without a
 * symbol or debug info gives one row, its own function's. */
typedef struct pv_unwound_frame {
    uint64_t pc;
    int32_t name;       /* a function inlined there (a DW_TAG_inlined_subroutine):
                           its name's offset in the caller's buffer; -1: the
                           frame's own function, named by its symbol */
    uint32_t level;     /* which function at pc: 0 the innermost, each one it
                           was inlined into one more (pv_symbolizer_source_line) */
} pv_unwound_frame;

/* Whether a row of an unwound stack is a function inlined at its frame. */
static inline bool pv_unwound_inlined(const pv_unwound_frame *f)
{
    return f->name >= 0;
}

/* The most functions one frame expands into. */
#define PV_INLINE_DEPTH 64

/* The sample's user stack unwound as perf does (dwarf_unwind.h, at most
 * PV_UNWIND_DEFAULT_MAX_FRAMES frames) through the maps of its process at
 * key, expanded into at most max rows, their names into a buffer of
 * names_size bytes.  The rows follow the callchain's (kernel) entries.
 * The sample is the record last readied with pv_symbolizer_at, whose key
 * this is.  The tables read these rows through a sample's stack
 * (sample_stack.h), which names them. */
size_t pv_symbolizer_unwind(pv_symbolizer *s, const struct pv_sample *sample, uint64_t key,
                            pv_unwound_frame *frames, size_t max, char *names, size_t names_size);

#endif
