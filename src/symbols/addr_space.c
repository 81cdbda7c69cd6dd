#include "symbols/addr_space.h"
#include "base/sorted_search.h"
#include "base/pv_array.h"
#include "base/pv_alloc.h"

#include <stdlib.h>
#include <string.h>

enum { EV_MMAP, EV_COMM, EV_FORK, EV_EXIT };

#define NO_NAME UINT32_MAX
#define NO_INDEX UINT32_MAX
#define NOT_EXITED UINT64_MAX

struct pv_aspace_event {
    uint8_t kind;
    int32_t pid, tid, ppid, ptid;
    uint64_t key, arrival;
    uint64_t start, end, pgoff;
    uint32_t dso;
    uint32_t name;
};

struct pv_aspace_process {
    int32_t pid;
    pv_map *maps;               /* sorted by (start, seq) when sorted */
    uint64_t *max_end;          /* max of end over maps[0 .. i], when sorted */
    size_t nr, cap, cap_max_end;
    bool sorted;
    size_t nr_in_order;         /* maps[0 .. nr_in_order) are sorted by (start, seq) */
    bool changed;               /* maps added or ended since the last pruning */
    /* two maps may share an extent and a begin key (a file that repeats
     * its events), so that one hides the other: prune_maps has work */
    bool may_hide;
    size_t last;                /* lookup cache: the map found last */
    /* its leader's EXIT: the epoch of it, or of the last lookup since
     * (NOT_EXITED: none, or a new life since: a fork, a map) */
    uint64_t exit_epoch;
    bool listed;                /* in as->exited */
    /* maps dropped: those live then could answer any later key, the
     * others keys below dropped_end; a lookup there is missing them */
    bool dropped_live;
    uint64_t dropped_end;
};

/* A thread's names: each COMM, and at its creation its creator's name. */
typedef struct thread_name {
    uint64_t key, seq;
    uint32_t name;              /* offset in names, NO_NAME: unnamed */
} thread_name;

struct pv_aspace_thread {
    int32_t tid;
    thread_name *names;         /* sorted by (key, seq) */
    size_t nr, cap;
};

/* ---- pid/tid -> index ------------------------------------------------------ */

static size_t id_slot(const pv_id_table *t, int32_t id)
{
    size_t i = ((uint32_t)id * 2654435761u) & (t->nr_slots - 1);
    while (t->slots[i].index != NO_INDEX && t->slots[i].id != id)
        i = (i + 1) & (t->nr_slots - 1);
    return i;
}

static uint32_t id_find(const pv_id_table *t, int32_t id)
{
    return t->nr_slots ? t->slots[id_slot(t, id)].index : NO_INDEX;
}

static bool id_insert(pv_id_table *t, int32_t id, uint32_t index)
{
    if ((t->nr_used + 1) * 2 > t->nr_slots) {
        size_t n = t->nr_slots ? t->nr_slots * 2 : 64;
        struct pv_id_slot *slots = pv_malloc(n * sizeof *slots);
        if (!slots)
            return false;
        for (size_t i = 0; i < n; i++)
            slots[i].index = NO_INDEX;
        pv_id_table bigger = { slots, n, t->nr_used };
        for (size_t i = 0; i < t->nr_slots; i++)
            if (t->slots[i].index != NO_INDEX)
                slots[id_slot(&bigger, t->slots[i].id)] = t->slots[i];
        free(t->slots);
        *t = bigger;
    }
    size_t i = id_slot(t, id);
    t->slots[i].id = id;
    t->slots[i].index = index;
    t->nr_used++;
    return true;
}

/* ---- feeding ---------------------------------------------------------------- */

void pv_aspace_init(pv_aspace *as)
{
    memset(as, 0, sizeof *as);
    as->prune_floor = 4096;
    as->prune_at = as->prune_floor;
}

void pv_aspace_free(pv_aspace *as)
{
    free(as->pending);
    free(as->names);
    free(as->name_slots);
    for (size_t i = 0; i < as->nr_processes; i++) {
        free(as->processes[i].maps);
        free(as->processes[i].max_end);
    }
    free(as->processes);
    free(as->process_ids.slots);
    for (size_t i = 0; i < as->nr_threads; i++)
        free(as->threads[i].names);
    free(as->threads);
    free(as->thread_ids.slots);
    free(as->exited);
    memset(as, 0, sizeof *as);
}

static bool event_before(const pv_aspace_event *x, const pv_aspace_event *y)
{
    return x->key != y->key ? x->key < y->key : x->arrival < y->arrival;
}

static void heap_push(pv_aspace *as, const pv_aspace_event *e)
{
    if (as->failed ||
        !pv_array_grow((void **)&as->pending, &as->cap_pending, as->nr_pending + 1, sizeof *as->pending)) {
        as->failed = true;
        return;
    }
    size_t i = as->nr_pending++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!event_before(e, &as->pending[parent]))
            break;
        as->pending[i] = as->pending[parent];
        i = parent;
    }
    as->pending[i] = *e;
}

static pv_aspace_event heap_pop(pv_aspace *as)
{
    pv_aspace_event top = as->pending[0];
    pv_aspace_event last = as->pending[--as->nr_pending];
    size_t i = 0, n = as->nr_pending;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && event_before(&as->pending[child + 1], &as->pending[child]))
            child++;
        if (!event_before(&as->pending[child], &last))
            break;
        as->pending[i] = as->pending[child];
        i = child;
    }
    if (n)
        as->pending[i] = last;
    return top;
}

static pv_aspace_event new_event(pv_aspace *as, uint8_t kind, uint64_t key)
{
    pv_aspace_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.key = key;
    e.arrival = as->arrivals++;
    return e;
}

void pv_aspace_add_mmap(pv_aspace *as, uint64_t key, int32_t pid, uint64_t start, uint64_t len,
                        uint64_t pgoff, uint32_t dso)
{
    pv_aspace_event e = new_event(as, EV_MMAP, key);
    e.pid = pid;
    e.start = start;
    /* a length reaching past the top of the address space stops there */
    e.end = len > UINT64_MAX - start ? UINT64_MAX : start + len;
    e.pgoff = pgoff;
    e.dso = dso;
    heap_push(as, &e);
}

static uint32_t name_hash(const char *name, size_t len)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    return h;
}

/* The slot of name in the name table: where it is, or the empty one where
 * it goes. */
static size_t name_slot(const pv_aspace *as, const char *name, size_t len)
{
    size_t mask = as->nr_name_slots - 1;
    size_t i = name_hash(name, len) & mask;
    for (;; i = (i + 1) & mask) {
        uint32_t at = as->name_slots[i];
        if (at == NO_NAME)
            return i;
        /* names are NUL-terminated: a stored one of len bytes has len + 1 */
        if (as->names_len - at > len && memcmp(as->names + at, name, len) == 0 && as->names[at + len] == 0)
            return i;
    }
}

static bool grow_name_slots(pv_aspace *as)
{
    size_t n = as->nr_name_slots ? as->nr_name_slots * 2 : 64;
    uint32_t *slots = pv_malloc(n * sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < n; i++)
        slots[i] = NO_NAME;
    uint32_t *old = as->name_slots;
    size_t nr_old = as->nr_name_slots;
    as->name_slots = slots;
    as->nr_name_slots = n;
    for (size_t i = 0; i < nr_old; i++)
        if (old[i] != NO_NAME) {
            const char *name = as->names + old[i];
            slots[name_slot(as, name, strlen(name))] = old[i];
        }
    free(old);
    return true;
}

/* Each distinct name is held once: an exec repeats its thread's name, and
 * a file that repeats its events repeats them all.  NO_NAME when out of
 * memory. */
static uint32_t intern_name(pv_aspace *as, const char *comm, size_t comm_len)
{
    comm_len = strnlen(comm, comm_len);         /* lookups read up to a NUL */
    if ((as->nr_names + 1) * 2 > as->nr_name_slots && !grow_name_slots(as))
        return NO_NAME;
    size_t slot = name_slot(as, comm, comm_len);
    if (as->name_slots[slot] != NO_NAME)
        return as->name_slots[slot];
    if (comm_len >= NO_NAME - as->names_len ||
        !pv_array_grow((void **)&as->names, &as->names_cap, as->names_len + comm_len + 1, 1))
        return NO_NAME;
    uint32_t at = (uint32_t)as->names_len;
    memcpy(as->names + at, comm, comm_len);
    as->names[at + comm_len] = 0;
    as->names_len += comm_len + 1;
    as->name_slots[slot] = at;
    as->nr_names++;
    return at;
}

void pv_aspace_add_comm(pv_aspace *as, uint64_t key, int32_t pid, int32_t tid, const char *comm,
                        size_t comm_len, bool exec)
{
    /* An exec ends no map: the new image's maps replace the old ones as
     * they come (as in perf), and samples taken while the exec runs still
     * unwind through the old image. */
    (void)exec;
    uint32_t name = as->failed ? NO_NAME : intern_name(as, comm, comm_len);
    if (name == NO_NAME) {
        as->failed = true;
        return;
    }
    pv_aspace_event e = new_event(as, EV_COMM, key);
    e.pid = pid;
    e.tid = tid;
    e.name = name;
    heap_push(as, &e);
}

void pv_aspace_add_fork(pv_aspace *as, uint64_t key, int32_t pid, int32_t ppid, int32_t tid,
                        int32_t ptid)
{
    pv_aspace_event e = new_event(as, EV_FORK, key);
    e.pid = pid;
    e.ppid = ppid;
    e.tid = tid;
    e.ptid = ptid;
    heap_push(as, &e);
}

void pv_aspace_add_exit(pv_aspace *as, uint64_t key, int32_t pid, int32_t tid)
{
    pv_aspace_event e = new_event(as, EV_EXIT, key);
    e.pid = pid;
    e.tid = tid;
    heap_push(as, &e);
}

/* ---- replaying -------------------------------------------------------------- */

static pv_aspace_process *process_of(pv_aspace *as, int32_t pid, bool create)
{
    uint32_t i = id_find(&as->process_ids, pid);
    if (i != NO_INDEX)
        return &as->processes[i];
    if (!create || as->nr_processes >= NO_INDEX ||
        !pv_array_grow((void **)&as->processes, &as->cap_processes, as->nr_processes + 1,
              sizeof *as->processes) ||
        !id_insert(&as->process_ids, pid, (uint32_t)as->nr_processes))
        return NULL;
    pv_aspace_process *p = &as->processes[as->nr_processes++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->sorted = true;
    p->exit_epoch = NOT_EXITED;
    return p;
}

static pv_aspace_thread *thread_of(pv_aspace *as, int32_t tid, bool create)
{
    uint32_t i = id_find(&as->thread_ids, tid);
    if (i != NO_INDEX)
        return &as->threads[i];
    if (!create || as->nr_threads >= NO_INDEX ||
        !pv_array_grow((void **)&as->threads, &as->cap_threads, as->nr_threads + 1, sizeof *as->threads) ||
        !id_insert(&as->thread_ids, tid, (uint32_t)as->nr_threads))
        return NULL;
    pv_aspace_thread *t = &as->threads[as->nr_threads++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

static bool add_map(pv_aspace *as, pv_aspace_process *p, const pv_map *m)
{
    if (!pv_array_grow((void **)&p->maps, &p->cap, p->nr + 1, sizeof *p->maps))
        return false;
    p->maps[p->nr++] = *m;
    p->sorted = false;
    p->changed = true;
    as->held++;
    return true;
}

/* Drops the maps of p ended at or before the key they began, which no
 * lookup can return, at once: a file that repeats its events (or a
 * reused pid) ends each old copy as the new one comes, and holding the
 * dead ones until the next pruning would let memory grow with the file. */
static void drop_never_live(pv_aspace *as, pv_aspace_process *p)
{
    size_t kept = 0, kept_in_order = 0;
    for (size_t i = 0; i < p->nr; i++)
        if (p->maps[i].begin_key < p->maps[i].end_key) {
            p->maps[kept++] = p->maps[i];
            kept_in_order += i < p->nr_in_order;
        }
    if (kept == p->nr)
        return;
    p->nr_in_order = kept_in_order;     /* what is left of a sorted run stays sorted */
    as->held -= p->nr - kept;
    p->nr = kept;
    p->sorted = false;
}

static bool replay_mmap(pv_aspace *as, const pv_aspace_event *e)
{
    pv_aspace_process *p = process_of(as, e->pid, true);
    if (!p)
        return false;
    p->exit_epoch = NOT_EXITED;         /* alive */
    /* live maps the new one hides entirely end now; partly hidden ones
     * stay and lose to it in lookups.  Every map was live before (each
     * end set is followed by drop_never_live): only one ended here can
     * be dead, so the scan for them runs only then. */
    bool ended_dead = false;
    for (size_t i = 0; i < p->nr; i++) {
        pv_map *old = &p->maps[i];
        if (old->end_key == PV_KEY_NEVER && old->start >= e->start && old->end <= e->end) {
            old->end_key = e->key;
            ended_dead |= old->begin_key >= e->key;
        }
        p->may_hide |= old->begin_key == e->key && old->start == e->start && old->end == e->end;
    }
    if (ended_dead)
        drop_never_live(as, p);
    pv_map m = {
        .start = e->start, .end = e->end, .pgoff = e->pgoff, .begin_key = e->key,
        .end_key = PV_KEY_NEVER, .seq = as->seq++, .pid = e->pid, .dso = e->dso,
    };
    return add_map(as, p, &m);
}

static int compare_seq(const void *a, const void *b)
{
    const pv_map *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The parent's live maps copied to the child, with new seqs in the order
 * of the old ones, all after every map replayed so far. */
static bool copy_maps_renumbered(pv_aspace *as, pv_aspace_process *child,
                                 const pv_aspace_process *parent, const pv_aspace_event *e,
                                 size_t n)
{
    pv_map *copies = pv_malloc(n * sizeof *copies);
    if (!copies)
        return false;
    n = 0;
    for (size_t i = 0; i < parent->nr; i++)
        if (parent->maps[i].end_key == PV_KEY_NEVER)
            copies[n++] = parent->maps[i];
    child->may_hide = true;     /* a late fork: left to the pruning to sort out */
    /* the copies keep their order of replay, all after the parent's */
    qsort(copies, n, sizeof *copies, compare_seq);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        copies[i].pid = e->pid;
        copies[i].begin_key = e->key;
        copies[i].end_key = PV_KEY_NEVER;
        copies[i].seq = as->seq++;
        ok = add_map(as, child, &copies[i]);
    }
    free(copies);
    return ok;
}

static bool sort_maps(pv_aspace_process *p);

/* The same copies keeping their seqs, which answers every lookup alike
 * when the child holds no map live past the fork (a fork replayed in
 * order): its maps live from the fork on are the copies and its own
 * later ones, which are replayed later, so the copies order among
 * themselves as in the parent, and before those, either way.  Taken in
 * the parent's sorted order they come sorted: no sort per fork, nor at
 * the child's first lookup. */
static bool copy_maps_sorted(pv_aspace *as, pv_aspace_process *child,
                             const pv_aspace_process *parent, const pv_aspace_event *e, size_t n)
{
    if (!pv_array_grow((void **)&child->maps, &child->cap, child->nr + n, sizeof *child->maps))
        return false;
    for (size_t i = 0; i < parent->nr; i++)
        if (parent->maps[i].end_key == PV_KEY_NEVER) {
            pv_map copy = parent->maps[i];
            copy.pid = e->pid;
            copy.begin_key = e->key;
            child->maps[child->nr++] = copy;
        }
    child->sorted = false;
    child->changed = true;
    as->held += n;
    return true;
}

static bool replay_fork_maps(pv_aspace *as, const pv_aspace_event *e)
{
    pv_aspace_process *child = process_of(as, e->pid, true);
    if (!child)
        return false;
    child->exit_epoch = NOT_EXITED;
    /* a dropped map ending after the fork would make it late (unknown
     * here); those live end at the fork, as the child's below */
    as->missing |= child->dropped_end > e->key;
    if (child->dropped_live) {
        child->dropped_live = false;
        child->dropped_end = e->key;
    }
    /* a map of the child's ending after the fork: the fork is replayed late */
    bool late = as->renumber_forks, ended_dead = false;
    for (size_t i = 0; i < child->nr; i++) {    /* the pid's previous owner */
        late |= child->maps[i].end_key != PV_KEY_NEVER && child->maps[i].end_key > e->key;
        /* a map begun at the fork's key may share an extent with a copy */
        child->may_hide |= child->maps[i].begin_key == e->key;
        if (child->maps[i].end_key == PV_KEY_NEVER) {
            child->maps[i].end_key = e->key;
            child->changed = true;
            ended_dead |= child->maps[i].begin_key >= e->key;
        }
    }
    if (ended_dead)     /* as in replay_mmap */
        drop_never_live(as, child);
    pv_aspace_process *parent = process_of(as, e->ppid, false);
    if (!parent)
        return true;
    if (parent->dropped_live) {
        as->missing = true;     /* the copies are gone with the parent's maps */
        return true;
    }
    if (!late && !sort_maps(parent))
        return false;
    size_t n = 0;
    for (size_t i = 0; i < parent->nr; i++)
        n += parent->maps[i].end_key == PV_KEY_NEVER;
    if (n == 0)
        return true;
    return late ? copy_maps_renumbered(as, child, parent, e, n)
                : copy_maps_sorted(as, child, parent, e, n);
}

/* The name thread tid had at key: NO_NAME when none. */
static uint32_t name_at(const pv_aspace_thread *t, uint64_t key)
{
    size_t lo = PV_UPPER_BOUND(t->names, t->nr, key, key);
    return lo ? t->names[lo - 1].name : NO_NAME;
}

static bool add_name(pv_aspace *as, int32_t tid, uint64_t key, uint32_t name)
{
    pv_aspace_thread *t = thread_of(as, tid, true);
    if (!t)
        return false;
    /* in key order; a late event (keys out of perf's order) moves back */
    size_t i = t->nr;
    while (i > 0 && t->names[i - 1].key > key)
        i--;
    if (i > 0 && t->names[i - 1].key == key) {
        /* a name given at the same key hides the one before it for good
         * (as when a file repeats its events): take its place */
        t->names[i - 1] = (thread_name){ key, as->seq++, name };
        return true;
    }
    if (!pv_array_grow((void **)&t->names, &t->cap, t->nr + 1, sizeof *t->names))
        return false;
    memmove(t->names + i + 1, t->names + i, (t->nr - i) * sizeof *t->names);
    t->nr++;
    t->names[i] = (thread_name){ key, as->seq++, name };
    as->held++;
    return true;
}

static bool replay_fork(pv_aspace *as, const pv_aspace_event *e)
{
    /* a new thread is named after its creator at that moment */
    const pv_aspace_thread *creator = thread_of(as, e->ptid, false);
    uint32_t inherited = creator && e->ptid != e->tid ? name_at(creator, e->key) : NO_NAME;
    if (!add_name(as, e->tid, e->key, inherited))
        return false;
    if (e->pid == e->ppid) {
        /* a thread: shares its process's maps, alive */
        pv_aspace_process *p = process_of(as, e->pid, false);
        if (p)
            p->exit_epoch = NOT_EXITED;
        return true;
    }
    return replay_fork_maps(as, e);
}

static int compare_extent(const void *a, const void *b)
{
    const pv_map *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    if (x->begin_key != y->begin_key)
        return x->begin_key < y->begin_key ? -1 : 1;
    return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;     /* latest first */
}

static bool same_group(const pv_map *a, const pv_map *b)
{
    return a->start == b->start && a->end == b->end && a->begin_key == b->begin_key;
}

/* Drops the maps no lookup can return: those that ended at the key they
 * began (replaced at once), and those a later map of the same extent,
 * begun at the same key, outlives (as when a file repeats its events). */
static size_t prune_maps(pv_aspace_process *p)
{
    if (p->nr)
        qsort(p->maps, p->nr, sizeof *p->maps, compare_extent);
    size_t kept = 0;
    bool may_hide = false;
    pv_map group = {0};         /* the extent of the latest maps seen */
    uint64_t outlived = 0;      /* the latest end_key of that extent so far */
    for (size_t j = 0; j < p->nr; j++) {
        pv_map m = p->maps[j];
        bool same = j > 0 && same_group(&m, &group);
        if (!same) {
            group = m;
            outlived = 0;
        }
        bool hidden = same && outlived >= m.end_key;
        if (m.end_key > outlived)
            outlived = m.end_key;
        if (m.begin_key < m.end_key && !hidden) {
            /* two kept of one group: ending the later one may hide the other */
            may_hide |= kept > 0 && same_group(&p->maps[kept - 1], &m);
            p->maps[kept++] = m;
        }
    }
    p->may_hide = may_hide;
    p->nr = kept;
    p->sorted = false;
    p->nr_in_order = 0;
    return kept;
}

/* Drops what no lookup can return: hidden maps, and names followed by
 * another at the same key. */
static void prune(pv_aspace *as)
{
    size_t held = 0;
    for (size_t i = 0; i < as->nr_processes; i++) {
        pv_aspace_process *p = &as->processes[i];
        /* one pruned and unchanged since (an exited process's) has nothing
         * to drop, nor has one where no map can hide another (never-live
         * maps go as they come, drop_never_live): either is left as it
         * is, sorted for lookups (a fork's child: its copies, sorted once) */
        held += p->changed && (p->may_hide || as->prune_all) ? prune_maps(p) : p->nr;
        p->changed = false;
    }
    for (size_t i = 0; i < as->nr_threads; i++) {
        pv_aspace_thread *t = &as->threads[i];
        size_t kept = 0;
        for (size_t j = 0; j < t->nr; j++)
            if (j + 1 == t->nr || t->names[j + 1].key != t->names[j].key)
                t->names[kept++] = t->names[j];
        t->nr = kept;
        held += kept;
    }
    as->held = held;
    as->prune_at = held * 2 > as->prune_floor ? held * 2 : as->prune_floor;
}

/* A leader's EXIT: its process's maps go once no lookup has asked for
 * them for exit_grace epochs (pv_aspace_drop_exited). */
static bool replay_exit(pv_aspace *as, const pv_aspace_event *e)
{
    if (!as->drop_exited || e->pid != e->tid || e->pid == PV_KERNEL_PID)
        return true;
    uint32_t i = id_find(&as->process_ids, e->pid);
    if (i == NO_INDEX)
        return true;
    pv_aspace_process *p = &as->processes[i];
    p->exit_epoch = as->epoch;
    if (p->listed)
        return true;
    if (!pv_array_grow((void **)&as->exited, &as->cap_exited, as->nr_exited + 1, sizeof *as->exited))
        return false;
    as->exited[as->nr_exited++] = i;
    p->listed = true;
    return true;
}

static void drop_maps(pv_aspace *as, pv_aspace_process *p)
{
    for (size_t i = 0; i < p->nr; i++) {
        if (p->maps[i].end_key == PV_KEY_NEVER)
            p->dropped_live = true;
        else if (p->maps[i].end_key > p->dropped_end)
            p->dropped_end = p->maps[i].end_key;
    }
    as->held -= p->nr;
    as->nr_dropped += p->nr;
    free(p->maps);
    free(p->max_end);
    p->maps = NULL;
    p->max_end = NULL;
    p->nr = p->cap = p->cap_max_end = p->nr_in_order = p->last = 0;
    p->sorted = true;
    p->changed = p->may_hide = false;
}

void pv_aspace_drop_exited(pv_aspace *as)
{
    size_t kept = 0;
    for (size_t i = 0; i < as->nr_exited; i++) {
        pv_aspace_process *p = &as->processes[as->exited[i]];
        if (p->exit_epoch != NOT_EXITED && as->epoch - p->exit_epoch < as->exit_grace) {
            as->exited[kept++] = as->exited[i];
            continue;
        }
        if (p->exit_epoch != NOT_EXITED && as->drop_exited)
            drop_maps(as, p);
        p->exit_epoch = NOT_EXITED;
        p->listed = false;
    }
    as->nr_exited = kept;
}

bool pv_aspace_apply(pv_aspace *as, uint64_t key)
{
    bool ok = !as->failed;
    while (ok && as->nr_pending && as->pending[0].key <= key) {
        pv_aspace_event e = heap_pop(as);
        switch (e.kind) {
        case EV_MMAP:
            ok = replay_mmap(as, &e);
            break;
        case EV_COMM:
            ok = add_name(as, e.tid, e.key, e.name);
            break;
        case EV_FORK:
            ok = replay_fork(as, &e);
            break;
        case EV_EXIT:
            ok = replay_exit(as, &e);
            break;
        }
        if (ok && as->held >= as->prune_at)
            prune(as);
    }
    if (!ok)
        as->failed = true;
    return ok;
}

size_t pv_aspace_held(const pv_aspace *as)
{
    return as->held;
}

/* ---- lookups ---------------------------------------------------------------- */

static int compare_start(const void *a, const void *b)
{
    const pv_map *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool run_sorted(const pv_map *maps, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (compare_start(&maps[i - 1], &maps[i]) > 0)
            return false;
    return true;
}

/* Sorts maps[0 .. nr) (compare_start), of which the first nr_in_order
 * are: the maps added since the last sort (a fork's copies, an exec's
 * few) are sorted and merged in, not the whole process sorted again after
 * each; a run added in order (a fork's copies) is not sorted again.  Maps
 * live at the same key differ in seq, and which of two that never are
 * (a pid's previous owner's and a fork's copy of the same map) comes
 * first changes no lookup, so the result answers as qsort's. */
static void sort_new_maps(pv_aspace_process *p)
{
    size_t a = p->nr_in_order, n = p->nr;
    bool added_sorted = run_sorted(p->maps + a, n - a);
    if (added_sorted && (a == 0 || compare_start(&p->maps[a - 1], &p->maps[a]) <= 0))
        return;         /* the new run follows the old one */
    pv_map *added = a > 0 && a < n && n - a <= a ? pv_malloc((n - a) * sizeof *added) : NULL;
    if (!added) {       /* mostly new (or no memory for the merge): sorted whole */
        qsort(p->maps, n, sizeof *p->maps, compare_start);
        return;
    }
    memcpy(added, p->maps + a, (n - a) * sizeof *added);
    if (!added_sorted)
        qsort(added, n - a, sizeof *added, compare_start);
    /* merge from the top down: the old run moves up only past what is placed */
    size_t i = a, j = n - a, k = n;
    while (j > 0) {
        if (i > 0 && compare_start(&p->maps[i - 1], &added[j - 1]) > 0)
            p->maps[--k] = p->maps[--i];
        else
            p->maps[--k] = added[--j];
    }
    free(added);
}

/* Maps sorted by start, each with the furthest end up to it. */
static bool sort_maps(pv_aspace_process *p)
{
    if (p->sorted)
        return true;
    if (!pv_array_grow((void **)&p->max_end, &p->cap_max_end, p->nr ? p->nr : 1, sizeof *p->max_end))
        return false;
    if (p->nr_in_order < p->nr)
        sort_new_maps(p);
    p->nr_in_order = p->nr;
    for (size_t i = 0; i < p->nr; i++)
        p->max_end[i] = i && p->max_end[i - 1] > p->maps[i].end ? p->max_end[i - 1] : p->maps[i].end;
    p->sorted = true;
    p->last = 0;
    return true;
}

static pv_aspace_process *find_process(pv_aspace *as, int32_t pid)
{
    /* callchains alternate between the kernel's maps and one process's */
    size_t *last = pid == PV_KERNEL_PID ? &as->last_kernel : &as->last_process;
    pv_aspace_process *p;
    if (*last < as->nr_processes && as->processes[*last].pid == pid)
        p = &as->processes[*last];
    else if ((p = process_of(as, pid, false)) != NULL)
        *last = (size_t)(p - as->processes);
    /* sorted already, mostly: no call per lookup */
    if (!p || (!p->sorted && !sort_maps(p)))
        return NULL;
    return p;
}

static bool map_holds(const pv_map *m, uint64_t addr, uint64_t key)
{
    return m->start <= addr && addr < m->end && m->begin_key <= key && key < m->end_key;
}

/* Whether the dropped maps of p might answer at key: then the lookup
 * cannot, and the caller replays again keeping them (as->missing). */
static bool misses_dropped(pv_aspace *as, pv_aspace_process *p, uint64_t key)
{
    if (p->exit_epoch != NOT_EXITED)
        p->exit_epoch = as->epoch;      /* asked for after its exit: kept longer */
    if (!p->dropped_live && key >= p->dropped_end)
        return false;
    as->missing = true;
    return true;
}

const pv_map *pv_aspace_find(pv_aspace *as, int32_t pid, uint64_t addr, uint64_t key)
{
    pv_aspace_process *p = find_process(as, pid);
    if (!p || misses_dropped(as, p, key) || p->nr == 0)
        return NULL;
    /* Most lookups hit the map of the previous one: accept it when no
     * other map of the process overlaps it (then nothing can beat it). */
    size_t last = p->last;
    if (last < p->nr && map_holds(&p->maps[last], addr, key)) {
        bool alone = (last == 0 || p->max_end[last - 1] <= p->maps[last].start) &&
                     (last + 1 == p->nr || p->maps[last + 1].start >= p->maps[last].end);
        if (alone)
            return &p->maps[last];
    }
    /* the last map starting at or below addr, then back over every map
     * that could still reach addr */
    size_t lo = PV_UPPER_BOUND(p->maps, p->nr, start, addr);
    const pv_map *best = NULL;
    for (size_t i = lo; i > 0; i--) {
        if (p->max_end[i - 1] <= addr)
            break;
        const pv_map *m = &p->maps[i - 1];
        if (map_holds(m, addr, key) && (!best || m->seq > best->seq)) {
            best = m;
            p->last = i - 1;
        }
    }
    return best;
}

uint64_t pv_aspace_lowest_start(pv_aspace *as, int32_t pid, uint32_t dso, uint64_t key)
{
    pv_aspace_process *p = find_process(as, pid);
    if (!p || misses_dropped(as, p, key))
        return UINT64_MAX;
    for (size_t i = 0; i < p->nr; i++) {
        const pv_map *m = &p->maps[i];
        if (m->dso == dso && m->begin_key <= key && key < m->end_key)
            return m->start;
    }
    return UINT64_MAX;
}

const char *pv_aspace_comm(pv_aspace *as, int32_t tid, uint64_t key)
{
    const pv_aspace_thread *t = thread_of(as, tid, false);
    if (!t)
        return NULL;
    uint32_t name = name_at(t, key);
    return name == NO_NAME ? NULL : as->names + name;
}
