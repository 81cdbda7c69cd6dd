/*
 * Address spaces over time: which file is mapped where in each process, and
 * what each thread is called, at any moment of a recording.
 *
 * The caller feeds the MMAP/MMAP2, COMM and FORK records in any order,
 * each with an ordering key (its timestamp, or its record ordinal when the
 * file has no times), then calls pv_aspace_build.  The build replays them in
 * key order, as perf does after sorting its events, and leaves a structure
 * that answers "what maps addr in process pid at key k" for any k, so
 * samples can be resolved in any order:
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
 * EXIT changes nothing here: a sample never follows its process's exit, and
 * a reused pid is a new process from its FORK on.
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

typedef struct pv_aspace_event pv_aspace_event;
typedef struct pv_aspace_process pv_aspace_process;

typedef struct pv_aspace {
    /* input, until pv_aspace_build */
    pv_aspace_event *events;
    size_t nr_events, cap_events;
    char *names;                /* every comm, NUL-terminated, back to back */
    size_t names_len, names_cap;
    bool failed;                /* out of memory while adding */

    /* output */
    pv_map *maps;               /* grouped by pid, each group sorted by start */
    uint64_t *max_end;          /* max of end over maps[group start .. i] */
    size_t nr_maps, cap_maps;
    pv_aspace_process *processes;   /* sorted by pid */
    size_t nr_processes;
    /* each thread's COMMs and FORKs, sorted by (tid, key, seq) */
    struct pv_thread_event {
        int32_t tid;
        int32_t parent;         /* FORK: the creating thread; COMM: -1 */
        uint64_t key, seq;
        uint32_t name;          /* COMM: offset in names */
        bool fork;
    } *threads;
    size_t nr_threads;

    /* lookup caches */
    size_t last_process;
    size_t last_map;
} pv_aspace;

void pv_aspace_init(pv_aspace *as);
void pv_aspace_free(pv_aspace *as);

void pv_aspace_add_mmap(pv_aspace *as, uint64_t key, int32_t pid, uint64_t start, uint64_t len,
                        uint64_t pgoff, uint32_t dso);
void pv_aspace_add_comm(pv_aspace *as, uint64_t key, int32_t pid, int32_t tid, const char *comm,
                        size_t comm_len, bool exec);
void pv_aspace_add_fork(pv_aspace *as, uint64_t key, int32_t pid, int32_t ppid, int32_t tid,
                        int32_t ptid);

/* Replays the events; false when out of memory. */
bool pv_aspace_build(pv_aspace *as);

/* The map holding addr in process pid at key (pid -1: the kernel's maps), or NULL. */
const pv_map *pv_aspace_find(pv_aspace *as, int32_t pid, uint64_t addr, uint64_t key);
/* Thread tid's name at key, or NULL when no COMM named it. */
const char *pv_aspace_comm(pv_aspace *as, int32_t tid, uint64_t key);

#endif
