/*
 * User call stacks of samples recorded with `perf record --call-graph dwarf`.
 *
 * Such a sample carries no user callchain: it holds the user registers at
 * the moment of the sample (REGS_USER) and a copy of the top of the user
 * stack (STACK_USER).  The frames are found afterwards, the way perf report
 * and perf script do, by running the CFI of the mapped ELF files (.eh_frame,
 * .debug_frame) over that copy.  Here libdwfl (elfutils) does the unwinding:
 * one Dwfl per process, whose modules are the ELF files the caller says are
 * mapped at the addresses the unwind passes through, and whose memory is
 * the stack copy, or the mapped file for addresses outside it.
 *
 * The result is what perf's own unwinder produces: the sampled ip first
 * (the leaf), then each caller's return address minus one (the call
 * instruction, so that a symbol or line lookup lands in the call, as
 * dwfl_frame_pc documents), except for a frame interrupted by a signal,
 * whose address is where it stopped.  At most max_frames addresses.
 *
 * The unwind stops, keeping what it found, where perf's stops: at the end
 * of the stack (a caller with an undefined return address), at a frame
 * whose file is not a readable ELF (anonymous or JIT memory, a file that is
 * gone), when a read leaves the stack copy and every mapped file, or when a
 * frame's CFI cannot be evaluated.  The reason is reported.
 *
 * perf 6.1 unwinds with libunwind, whose results this reproduces where they
 * are not libdwfl's (checked sample by sample against perf script, see
 * tests/t_dwarf_unwind.sh): the last word of the stack copy is never read
 * from it; outside the copy a word in a map whose bytes cannot be read is 0
 * (a return address of 0 is a last frame at -1), while one in no map fails
 * the step; and a file whose unwind table perf misplaces (see
 * perf_lowest_start) gets perf's frame-pointer guess instead of its CFI, as
 * does a frame its file has no CFI for (x86_64).
 *
 * Nothing here trusts the sample: the register mask must match the values,
 * the stack copy's used size must fit the copy, every stack read is bounds
 * checked, and the number of frames is bounded.
 *
 * Architectures: x86_64 (and 32-bit processes on it: ABI_32 with i386 ELF
 * files), aarch64.
 */
#ifndef PV_DWARF_UNWIND_H
#define PV_DWARF_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/sample.h"

/* perf's default depth (kernel.perf_event_max_stack, PERF_MAX_STACK_DEPTH). */
#define PV_UNWIND_DEFAULT_MAX_FRAMES 127

/* One mapping of the sampled process at the sample's time. */
typedef struct pv_unwind_map {
    uint64_t start, end;    /* [start, end) */
    uint64_t pgoff;         /* file offset of start */
    /* The ELF file to read for this map (the recorded path, or where the
     * caller found the same build-id); NULL for memory that is not a file
     * (anonymous, JIT, [vdso] without a copy on disk). */
    const char *path;
    /* perf's own unwinder (libunwind) looks for a file's unwind table at
     * the lowest start of any map of the same file in the process, maps
     * left from before an exec or inherited at a fork included.  Where
     * that is not where this image begins, perf finds no CFI for its
     * frames and guesses their callers from the frame pointer; so does
     * this unwinder, on x86_64, when the caller gives that start here
     * (0: no such emulation). */
    uint64_t perf_lowest_start;
} pv_unwind_map;

/* The caller's address space: fills *out with the map holding addr in the
 * sampled process at the sample's time; false when none does.  *out's path
 * must stay valid until pv_unwind_sample returns. */
typedef bool (*pv_unwind_find_map_fn)(void *ctx, uint64_t addr, pv_unwind_map *out);

typedef enum {
    PV_UNWIND_END_OF_STACK,     /* the outermost frame was reached */
    PV_UNWIND_MAX_FRAMES,       /* max_frames found; there may be more */
    PV_UNWIND_NO_USER_REGS,     /* no REGS_USER (kernel thread, or not recorded) */
    PV_UNWIND_NO_USER_STACK,    /* no stack bytes were copied */
    PV_UNWIND_BAD_SAMPLE,       /* registers or stack inconsistent */
    PV_UNWIND_UNSUPPORTED,      /* an architecture or ABI this unwinder lacks */
    PV_UNWIND_NO_ELF,           /* a frame in memory with no readable ELF file */
    PV_UNWIND_STEP_FAILED,      /* libdwfl could not find the caller */
} pv_unwind_stop;

typedef struct pv_unwind_result {
    size_t nr;                  /* addresses stored, leaf first */
    pv_unwind_stop stop;
    char detail[256];           /* stop in words, with the address and file */
    unsigned perf_guesses;      /* frames perf would find no CFI for, whose
                                   callers were guessed as perf does */
} pv_unwind_result;

typedef struct pv_unwinder pv_unwinder;

/* An unwinder for one recording, whose processes are of architecture arch
 * (the recording's uname -m, perf's HEADER_ARCH: "x86_64", "aarch64", ...;
 * NULL: this machine's, as perf assumes).  It keeps a Dwfl per recently
 * seen process, and their open ELF files, between samples.  NULL when out
 * of memory. */
pv_unwinder *pv_unwinder_new(const char *arch);
void pv_unwinder_free(pv_unwinder *u);

/* Has the unwinder ask cache (kept by the caller until the unwinder is
 * freed) whether a file's separate debug file has a .debug_frame before
 * letting a process's session open it (see find_debug_frame_file). */
struct pv_debug_cache;
void pv_unwinder_use_debug_cache(pv_unwinder *u, struct pv_debug_cache *cache);

/* Unwinds the user stack of sample s (its regs_user and stack_user) into
 * ips[0 .. res->nr).  The sample's pid selects the cached Dwfl; find_map
 * must describe that process at the sample's time.  Returns res->nr. */
size_t pv_unwind_sample(pv_unwinder *u, const pv_sample *s, pv_unwind_find_map_fn find_map,
                        void *ctx, uint64_t *ips, size_t max_frames, pv_unwind_result *res);

/* The libdwfl module holding ip in the session of the sample last
 * unwound (NULL if none).  Its userdata is the unwinder's.  Its debug info
 * is what the file holds itself, or a separate debug file only when that
 * has a .debug_frame and a debug cache is in use: read DWARF through
 * debug_cache.h (pv_unwinder_file_at).  Valid until the next
 * pv_unwind_sample or pv_unwinder_free. */
struct Dwfl_Module;
struct Dwfl_Module *pv_unwinder_module(pv_unwinder *u, uint64_t ip);

/* The file holding ip in the session of the sample last unwound (the
 * map's path, valid as pv_unwinder_module's module is) and ip at that
 * file's own addresses (less the load bias), to look ip up in debug info
 * opened elsewhere (debug_cache.h); false if no module holds ip. */
bool pv_unwinder_file_at(pv_unwinder *u, uint64_t ip, const char **path, uint64_t *file_addr);

/* "end of stack", "max frames", ...: the stop reasons as words. */
const char *pv_unwind_stop_name(pv_unwind_stop stop);

#endif
