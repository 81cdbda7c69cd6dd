/*
 * The user stacks of a recording's --call-graph dwarf samples, remembered
 * once unwound: the frames and inline names pv_symbolizer_unwind gave for
 * each sample, kept by the caller across symbolizers of the same recording
 * (the queries of a connection, the tables of a join) so that a later
 * query reads the stacks instead of unwinding them again.
 *
 * Unwinding a sample runs the CFI of every frame and walks DIEs for inline
 * names; its result depends only on the sample, the maps before it, the
 * ELF files the maps name and where they are looked for.  So the stacks
 * stay valid while:
 *   - the recording is the same (the caller keeps one memo per opened
 *     recording, dropped when the file changes on disk);
 *   - the symbol paths are the same (pv_stack_memo_begin compares them);
 *   - the ELF files the stacks were unwound through are the same on disk
 *     (device, inode, size, mtime; checked at pv_stack_memo_begin).  Their
 *     debug files are found by build-id or debuglink from them, and are
 *     taken to follow.
 * Otherwise the memo forgets everything.
 *
 * Bounded: frames, names and the index take at most max_bytes; past that,
 * new stacks are not remembered (the ones kept still serve).
 */
#ifndef PV_STACK_MEMO_H
#define PV_STACK_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symbolizer.h"

typedef struct pv_stack_memo pv_stack_memo;

/* The default bound of one memo, in bytes. */
#define PV_STACK_MEMO_BYTES (32u << 20)

/* A memo of at most max_bytes (0: PV_STACK_MEMO_BYTES); NULL when out of
 * memory. */
pv_stack_memo *pv_stack_memo_new(size_t max_bytes);
void pv_stack_memo_free(pv_stack_memo *m);

/* Readies m for a symbolizer looking for files under sysroot and symdir
 * (NULL: none): forgets every stack when those differ from the ones the
 * stacks were found with, or when a file they depend on changed. */
void pv_stack_memo_begin(pv_stack_memo *m, const char *sysroot, const char *symdir);

/* A file the stacks unwound from now on depend on (a map's ELF file). */
void pv_stack_memo_depends_on(pv_stack_memo *m, const char *path);

/* The remembered stack of the sample at record with order key key, into
 * frames[0 .. *nr) (at most max) and its names into names (names_size
 * bytes), as pv_symbolizer_unwind would give them; false when it is not
 * remembered (or was remembered for smaller buffers). */
bool pv_stack_memo_get(pv_stack_memo *m, uint64_t record, uint64_t key, pv_unwound_frame *frames,
                       size_t max, size_t *nr, char *names, size_t names_size);

/* Remembers the stack of the sample at record (frames[0 .. nr), names in
 * names), as unwound into buffers of max frames and names_size bytes,
 * unless the bound is reached. */
void pv_stack_memo_put(pv_stack_memo *m, uint64_t record, uint64_t key,
                       const pv_unwound_frame *frames, size_t nr, size_t max, const char *names,
                       size_t names_size);

typedef struct pv_stack_memo_stats {
    uint64_t hits, misses;      /* pv_stack_memo_get answers */
    uint64_t forgotten;         /* times everything was forgotten */
    size_t stacks;              /* stacks remembered now */
    size_t bytes, max_bytes;
    bool full;                  /* a stack was not remembered for the bound */
} pv_stack_memo_stats;

void pv_stack_memo_get_stats(const pv_stack_memo *m, pv_stack_memo_stats *out);

#endif
