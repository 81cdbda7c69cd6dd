/*
 * A JIT runtime's jitdump file (jit-PID.dump), read into the code it
 * describes: which function's code lay where, from when, and its source
 * lines.  V8 (node --perf-prof), the JVM with a perf agent and .NET write
 * one, and mmap it so that the recording names it; perf needs
 * `perf inject --jit` to use it, perfvtab reads it itself (symbolizer.h).
 *
 * The layout (perf's tools/perf/Documentation/jitdump-specification.txt):
 *
 *   file header: u32 magic 0x4A695444 ("JiTD" as a number: read back
 *     byte-swapped, the file is of the other byte order), u32 version,
 *     u32 total_size (of the header), u32 elf_mach, u32 pad1, u32 pid,
 *     u64 timestamp, u64 flags (bit 0: timestamps of an architecture
 *     clock, e.g. the TSC, instead of CLOCK_MONOTONIC)
 *   records, each: u32 id, u32 total_size (with this prefix), u64 timestamp
 *     0 CODE_LOAD: u32 pid, u32 tid, u64 vma, u64 code_addr, u64 code_size,
 *       u64 code_index, the function's name NUL-terminated, then code_size
 *       bytes of code
 *     1 CODE_MOVE: u32 pid, u32 tid, u64 vma, u64 old_code_addr,
 *       u64 new_code_addr, u64 code_size, u64 code_index (of the load)
 *     2 CODE_DEBUG_INFO: u64 code_addr, u64 nr_entry, then nr_entry of
 *       { u64 addr, u32 line, u32 discrim, file name NUL-terminated };
 *       it comes before the load of the code it describes
 *     3 CODE_CLOSE: nothing more
 *     4 CODE_UNWINDING_INFO: u64 unwind_data_size, u64 eh_frame_hdr_size,
 *       u64 mapped_size, then the data
 *
 * Each load (and move) becomes one piece of code, mapped as perf inject
 * maps it: at code_addr (a move's new_code_addr), for code_size bytes, or,
 * after an UNWINDING_INFO with a mapped_size, ALIGN_8(code_size) plus that
 * much; from the record's timestamp.  The debug info before a load goes to
 * that load, as perf inject gives it to the ELF image it writes.
 *
 * The file is read record by record (code bytes are skipped, never held),
 * as it is at the time, through the byte reader: a runtime may still be
 * writing it, and a damaged or cut one is read to its last whole record,
 * with the reason it stops kept in `damage`.
 */
#ifndef PV_JITDUMP_H
#define PV_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "base/pv_stop.h"

#define PV_JITDUMP_MAGIC 0x4A695444u
#define PV_JITDUMP_ARCH_TIMESTAMP 1u

typedef struct pv_jit_code {
    uint64_t time;          /* the record's timestamp */
    uint64_t start;         /* where the code lies */
    uint64_t map_len;       /* bytes perf inject maps there */
    uint64_t code_size;     /* bytes of code: the function's symbol */
    uint64_t line_base;     /* the address its line entries were given for (a load's code_addr) */
    uint32_t pid;
    uint32_t name;          /* offset of the function's name in names */
    uint32_t first_line, nr_lines;  /* its entries in lines, by address */
} pv_jit_code;

typedef struct pv_jit_line {
    uint64_t addr;
    uint32_t line;
    uint32_t file;          /* offset of the file name in names, or PV_JIT_NO_FILE */
} pv_jit_line;

/* A file name that is not text (node 20's V8 writes bytes of memory in
 * place of a script's name): the entry gives no source line. */
#define PV_JIT_NO_FILE UINT32_MAX

typedef struct pv_jitdump {
    uint32_t pid;
    uint32_t elf_mach;
    uint64_t flags;
    bool other_byte_order;
    pv_jit_code *codes;     /* in file order */
    size_t nr_codes, cap_codes;
    pv_jit_line *lines;
    size_t nr_lines, cap_lines;
    char *names;
    size_t names_len, names_cap;
    /* code_index -> the code of its load, for moves: open addressing */
    struct pv_jit_index_slot { uint64_t index; uint32_t code; } *index_slots;
    size_t nr_index_slots, nr_indexed;
    char *damage;           /* why the read stopped short, or NULL */
    uint64_t nr_unknown;    /* records of ids this reader does not know (skipped) */
    uint64_t nr_bad_files;  /* debug entries whose file name is not text */
} pv_jitdump;

/* Reads path into j (zeroed first), asking stop (NULL: none) every few
 * thousand records.  0: read, possibly to a damaged record (j->damage says
 * so); -1: no usable file (why: not found, not a jitdump, a bad header);
 * -2: out of memory; -3: stopped (err set by pv_stop_check_point). */
int pv_jitdump_read(const char *path, const pv_stop *stop, pv_jitdump *j, char *why,
                    size_t why_size, pv_error *err);
void pv_jitdump_free(pv_jitdump *j);

static inline const char *pv_jit_code_name(const pv_jitdump *j, const pv_jit_code *c)
{
    return j->names + c->name;
}

/* The source line of addr in code c (addr within its code): the entry at
 * the highest address not above it, or NULL (no debug info, or addr before
 * the first entry). */
const pv_jit_line *pv_jitdump_line(const pv_jitdump *j, const pv_jit_code *c, uint64_t addr);

/* Finds and reads the jitdump that recording (the perf.data path) maps
 * as `recorded` in process pid, trying in turn: symdir/<its name>,
 * sysroot<recorded>, beside the recording, and the recorded path itself
 * when no sysroot is set (sysroot, symdir: NULL for none).  The first
 * that is a jitdump of that pid is read into j, its path into path.
 * 0 found (j->damage may say it was read short); -1 none (why names the
 * first place tried and its reason); -2 out of memory; -3 stopped (err). */
int pv_jitdump_find(const char *recording, const char *sysroot, const char *symdir,
                    const char *recorded, int32_t pid, const pv_stop *stop, pv_jitdump *j,
                    char *path, size_t path_size, char *why, size_t why_size, pv_error *err);

/* Whether a recorded path names a jitdump, as perf's rule has it: a file
 * jit-<pid>.dump whose pid is that of the process mapping it (pid 0: any,
 * as maps synthesized system-wide carry). */
bool pv_jitdump_path_matches(const char *path, size_t n, int32_t pid);

#endif
