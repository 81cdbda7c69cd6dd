/*
 * Address spaces over time: which file is mapped where in each process, and
 * what each thread is called, at any moment of a recording.
 *
 * The caller feeds the MMAP/MMAP2, COMM and FORK records as it meets them,
 * each with an ordering key (its timestamp, or its record ordinal when the
 * file has no times); they wait until pv_aspace_apply replays those up to a
 * key, in key order, as perf does after sorting its events.  What has been
 * replayed answers "what maps addr in process pid at key k" for any k up
 * to the key applied, so the samples of a stretch of file can be resolved
 * in any order while the maps of later stretches are still unread:
 *
 *   - a map lives from its MMAP until the fork of a new process with its
 *     pid, or a later map of the same process covering it entirely; where
 *     two live maps overlap, the later one wins (perf splits the older
 *     one).  An exec (COMM with misc COMM_EXEC) ends no map by itself: the
 *     new image's MMAPs replace the old maps they overlap, as in perf, so a
 *     sample taken during the exec still unwinds through the old image;
 *   - a FORK that creates a process (pid != ppid) gives the child a copy
 *     of the parent's live maps; a new thread (pid == ppid) shares them;
 *   - maps with pid -1 are the kernel's, shared by every process;
 *   - a thread's name is its latest COMM, else its creator's at the fork.
 *
 * An event fed after others with later keys were replayed (a file that
 * breaks perf's ordering rule) is replayed late, as perf handles it.
 * Maps that can never be live (ended at or before the key they began)
 * and names hidden by a later one at the same key are dropped as they
 * come, maps a later copy of theirs outlives as they pile up, and each
 * distinct comm is held once: a file that repeats its events holds them
 * once.
 * A process's leader's EXIT ends no map (perf takes samples after it,
 * as the task finishes exiting): when the caller allows it (drop_exited),
 * its maps go once exit_grace epochs of the caller's clock have passed
 * with no lookup of the process, so that memory holds the processes
 * still alive, not all that ever lived.  A lookup that the dropped maps
 * might have answered, or a fork from a process whose maps went, sets
 * missing instead: the caller replays again from the start keeping them.
 * A reused pid is a new process from its FORK on.
 * No file access: the maps carry a dso number the caller assigns.
 */
#ifndef PV_ADDR_SPACE_H
#define PV_ADDR_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_KERNEL_PID (-1)
#define PV_KEY_NEVER UINT64_MAX

typedef struct pv_map {
    uint64_t start, end;        /* [start, end) */
    uint64_t pgoff;             /* file offset of start */
    uint64_t begin_key;         /* live for begin_key <= key < end_key */
    uint64_t end_key;
    uint64_t seq;               /* replay order: the later of two overlapping maps wins */
    int32_t pid;
    uint32_t dso;
} pv_map;

/* pid or tid -> index, open addressing */
typedef struct pv_id_table {
    struct pv_id_slot { int32_t id; uint32_t index; } *slots;   /* index UINT32_MAX: empty */
    size_t nr_slots, nr_used;
} pv_id_table;

typedef struct pv_aspace_event pv_aspace_event;
typedef struct pv_aspace_process pv_aspace_process;
typedef struct pv_aspace_thread pv_aspace_thread;

typedef struct pv_aspace {
    /* fed, not yet replayed: a min-heap on (key, arrival) */
    pv_aspace_event *pending;
    size_t nr_pending, cap_pending;
    uint64_t arrivals;
    char *names;                /* each distinct comm, NUL-terminated, back to back */
    size_t names_len, names_cap;
    uint32_t *name_slots;       /* offsets in names, open addressing; UINT32_MAX: empty */
    size_t nr_name_slots, nr_names;
    bool failed;                /* out of memory */

    /* replayed */
    uint64_t seq;
    pv_aspace_process *processes;
    size_t nr_processes, cap_processes;
    pv_id_table process_ids;
    pv_aspace_thread *threads;
    size_t nr_threads, cap_threads;
    pv_id_table thread_ids;
    size_t held, prune_at;      /* maps and names held; the next pruning */
    size_t last_process, last_kernel;   /* lookup caches */
    bool renumber_forks;        /* tests: each fork's copies get new seqs, the slow twin
                                   of copies that keep theirs */
    /* exited processes (see above); the caller sets drop_exited,
     * exit_grace and moves epoch on */
    bool drop_exited, missing;
    uint64_t epoch;
    unsigned exit_grace;
    uint32_t *exited;           /* indices of processes whose leader exited */
    size_t nr_exited, cap_exited;
    size_t nr_dropped;          /* maps dropped so far */
    bool prune_all;             /* tests: every changed process pruned, the twin of
                                   pruning only those where a map may hide another */
    size_t prune_floor;         /* held below it, no pruning (tests lower it) */
} pv_aspace;

void pv_aspace_init(pv_aspace *as);
void pv_aspace_free(pv_aspace *as);

void pv_aspace_add_mmap(pv_aspace *as, uint64_t key, int32_t pid, uint64_t start, uint64_t len,
                        uint64_t pgoff, uint32_t dso);
void pv_aspace_add_comm(pv_aspace *as, uint64_t key, int32_t pid, int32_t tid, const char *comm,
                        size_t comm_len, bool exec);
void pv_aspace_add_fork(pv_aspace *as, uint64_t key, int32_t pid, int32_t ppid, int32_t tid,
                        int32_t ptid);
void pv_aspace_add_exit(pv_aspace *as, uint64_t key, int32_t pid, int32_t tid);

/* Replays the events fed with keys up to key (PV_KEY_NEVER: all of them);
 * false when out of memory. */
bool pv_aspace_apply(pv_aspace *as, uint64_t key);
/* Drops the maps of the processes whose leader exited exit_grace epochs
 * or more before (or since their last lookup); the caller calls it as
 * epoch moves on. */
void pv_aspace_drop_exited(pv_aspace *as);

/* The map holding addr in process pid at key (pid -1: the kernel's maps), or NULL. */
const pv_map *pv_aspace_find(pv_aspace *as, int32_t pid, uint64_t addr, uint64_t key);
/* The lowest start of the maps of dso live in process pid at key (where
 * perf's DWARF unwinder places the dso's unwind table), UINT64_MAX if none. */
uint64_t pv_aspace_lowest_start(pv_aspace *as, int32_t pid, uint32_t dso, uint64_t key);
/* Thread tid's name at key, or NULL when no COMM named it. */
const char *pv_aspace_comm(pv_aspace *as, int32_t tid, uint64_t key);
/* Maps and names held after replay and pruning (for tests of memory). */
size_t pv_aspace_held(const pv_aspace *as);

#endif
