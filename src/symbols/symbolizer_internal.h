/*
 * What the symbolizer's files share: the dso table's entries, the record
 * feed's state and the symbolizer itself.  Not for use outside
 * src/symbols/: symbolizer.h is the interface.
 *
 *   dso_table.c      the dsos of the recording, interned by name
 *   map_feed.c       map, comm, fork and exit records fed to the address spaces
 *   symbol_files.c   finding and loading each dso's symbols
 *   symbolizer.c     opening, lookups of addresses and comms
 *   unwind_glue.c    DWARF stacks: the unwinder over the address spaces
 *   source_glue.c    source lines of addresses, from the dsos' debug info
 *   jit_symbols.c    a jitdump found, read and fed as maps; its code's names
 */
#ifndef PV_SYMBOLIZER_INTERNAL_H
#define PV_SYMBOLIZER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/build_ids.h"
#include "format/perf_abi.h"
#include "stream/record_walk.h"
#include "unwind/debug_cache.h"
#include "unwind/dwarf_unwind.h"
#include "symbols/addr_space.h"
#include "symbols/elf_image.h"
#include "symbols/jitdump.h"
#include "symbols/symbol_cache.h"
#include "symbols/symbolizer.h"
#include "symbols/symtab.h"


enum { CPUMODE_KERNEL = 1, CPUMODE_USER = 2, CPUMODE_GUEST_KERNEL = 4 };

/* FINISHED_ROUNDs the scan passes after a process's exit (or its last
 * lookup since) before its maps go: a task's last samples come in the
 * microseconds after its EXIT, within a round or two of it in the file,
 * and the samples before it lie before the second round after it.  Only
 * the speed depends on it: a lookup that needs dropped maps replays. */
#define PV_EXIT_GRACE_ROUNDS 5

/* DSO_JIT: anonymous code named by /tmp/perf-PID.map; DSO_JITDUMP: a
 * runtime's jit-PID.dump, whose code loads are maps of their own */
typedef enum { DSO_ELF, DSO_KERNEL, DSO_VDSO, DSO_JIT, DSO_JITDUMP, DSO_NONE } dso_kind;

typedef struct dso {
    char *name;             /* as perf names it */
    dso_kind kind;
    bool kernel_side;       /* mapped by pid -1 */
    int32_t pid;            /* DSO_JIT, DSO_JITDUMP: whose file */
    uint8_t build_id[PV_BUILD_ID_MAX];
    uint8_t build_id_len;   /* 0: the recording has none */
    bool loaded;
    bool identity_offsets;  /* once loaded: offsets_are_addresses() */
    pv_symtree tree;        /* DSO_ELF, DSO_VDSO */
    pv_symtab symbols;      /* DSO_JIT; DSO_KERNEL uses the symbolizer's kallsyms */
    pv_elf_image image;     /* DSO_ELF, DSO_VDSO: offsets -> addresses */
    char *status;           /* "ok" or why there are no symbols */
    char *runtime_path;     /* DSO_ELF, DSO_VDSO, DSO_JITDUMP: the file found for it, or NULL */
    pv_jitdump *jit;        /* DSO_JITDUMP once read: map i's pgoff is its code i */
    bool jit_fed;           /* its code loads are in the address space */
} dso;

/* The records ahead of the scan that feed the address space: by perf's
 * rule (the events of a round may sort before those of the round before
 * it, never before those of the round before that), every map event that
 * sorts before a record lies before the second FINISHED_ROUND after it. */
typedef struct map_feed {
    pv_walk walk;
    bool started, done;
    uint64_t next_index;        /* every record before it has been fed */
    uint64_t last_round, round_before;  /* the last two FINISHED_ROUNDs fed */
    unsigned nr_rounds;         /* fed, up to 2 */
    uint64_t consumer;          /* the furthest record looked up (ordinal keys restart below it) */
    uint64_t applied_key;       /* the highest key the address space was applied to */
    bool applied_any;
    /* FINISHED_ROUNDs fed and not yet passed by the consumer, oldest
     * first from rounds[rounds_head]: each one passed moves the address
     * space's epoch on (its exited processes' grace) */
    uint64_t *rounds;
    size_t rounds_head, nr_rounds_ahead, cap_rounds;
} map_feed;

struct pv_symbolizer {
    pv_file *file;
    char *sysroot, *symdir;
    bool timed;
    pv_aspace space;
    map_feed feed;
    /* exited processes' maps may go (a timed file of one stream), see
     * addr_space.h; false once a replay keeps them all */
    bool drop_exited;
    unsigned exit_grace;
    bool feed_every_record;     /* tests: the feed reads every record, the
                                   twin of passing runs of unfed ones at once */
    /* the record pv_symbolizer_at readied last: in time order it may lie
     * before feed.consumer, and the stack memo is keyed by it */
    uint64_t readied_record;
    dso *dsos;
    size_t nr_dsos, cap_dsos;
    /* name -> dso index, open addressing, used while walking */
    uint32_t *dso_slots;
    size_t nr_dso_slots;

    bool kallsyms_loaded;
    pv_symtab kallsyms;
    char *kallsyms_status;

    /* symbol lookups by (dso, address), see symbol_cache.h */
    pv_symbol_cache symbol_cache;

    /* DWARF stacks: made on the first sample that has one */
    pv_unwinder *unwinder;
    uint64_t user_ips[PV_UNWIND_DEFAULT_MAX_FRAMES];
    /* inline names: the files' debug info, the caller's (shared by the
     * queries of a connection) or, made on first use, the symbolizer's own */
    pv_debug_cache *debug_cache;
    bool own_debug_cache;
    /* unwound stacks, the caller's (kept for the recording), or NULL */
    struct pv_stack_memo *stack_memo;
};


/* Entry points across the files (pv_sym_: internal to src/symbols/). */
char *pv_sym_dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *pv_sym_kernel_dso_name(const char *filename, size_t n);
void pv_sym_free_dso(dso *d);
uint32_t pv_sym_intern_dso(pv_symbolizer *s, char *name, dso_kind kind, bool kernel_side,
                           int32_t pid);
uint32_t pv_sym_dso_for_map(pv_symbolizer *s, int32_t pid, unsigned cpumode, const char *filename,
                            size_t n, bool exec);
dso *pv_sym_find_dso_by_name(pv_symbolizer *s, const char *name, size_t n, bool kernel_side);
void pv_sym_set_build_id(dso *d, const uint8_t *id, uint8_t len);
bool pv_sym_offsets_are_addresses(const char *name, bool jit);
bool pv_sym_file_is_timed(const pv_file *f);
int pv_sym_apply_build_ids(pv_symbolizer *s, pv_build_id_iter *it, pv_error *err);
/* The address space fresh, dropping exited processes' maps when allowed. */
void pv_sym_ready_space(pv_symbolizer *s);
/* The map holding addr in process pid at key, and the lowest start of
 * dso's maps there (addr_space.h), replaying the maps again from the start
 * when exited ones they need were dropped. */
const pv_map *pv_sym_find_map_again(pv_symbolizer *s, int32_t pid, uint64_t addr, uint64_t key);
uint64_t pv_sym_lowest_start(pv_symbolizer *s, int32_t pid, uint32_t dso, uint64_t key);
void pv_sym_load_dso(pv_symbolizer *s, dso *d);
/* Finds and reads jitdump d once; -1 (err) out of memory or stopped. */
int pv_sym_load_jitdump(pv_symbolizer *s, dso *d, pv_error *err);
/* Puts the code loads of jitdump d (dso number dso_number), mapped at
 * mmap_key, into the address space once; 1 when it did (or had), 0 when
 * there is no usable jitdump (d->status says why), -1 (err) out of memory
 * or stopped. */
int pv_sym_feed_jitdump(pv_symbolizer *s, dso *d, uint32_t dso_number, uint64_t mmap_key,
                        pv_error *err);
void pv_sym_jit_lookup(const dso *d, const pv_map *m, uint64_t ip, pv_symbol_cache_entry *e);
bool pv_sym_jit_source_line(const dso *d, const pv_map *m, uint64_t ip, unsigned level, char *file,
                            size_t file_size, uint64_t *line);
bool pv_sym_read_feature_text(pv_file *f, unsigned id, char *out, size_t size);
pv_debug_cache *pv_sym_debug_cache(pv_symbolizer *s);

static inline const pv_map *pv_sym_find_map(pv_symbolizer *s, int32_t pid, uint64_t addr,
                                           uint64_t key)
{
    const pv_map *m = pv_aspace_find(&s->space, pid, addr, key);
    return m || !s->space.missing ? m : pv_sym_find_map_again(s, pid, addr, key);
}

#endif
