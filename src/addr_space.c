#include "addr_space.h"

#include <stdlib.h>
#include <string.h>

enum { EV_MMAP, EV_COMM, EV_FORK };

struct pv_aspace_event {
    uint8_t kind;
    bool exec;
    int32_t pid, tid, ppid, ptid;
    uint64_t key, seq;
    uint64_t start, end, pgoff;
    uint32_t dso;
    uint32_t name;
};

struct pv_aspace_process {
    int32_t pid;
    size_t first, count;        /* its maps: as->maps[first .. first + count) */
};

/* Grows *array (of *cap elements of size elem) to hold need; false on overflow/OOM. */
static bool grow(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem)
            return false;
        n *= 2;
    }
    void *p = realloc(*array, n * elem);
    if (!p)
        return false;
    *array = p;
    *cap = n;
    return true;
}

void pv_aspace_init(pv_aspace *as)
{
    memset(as, 0, sizeof *as);
}

void pv_aspace_free(pv_aspace *as)
{
    free(as->events);
    free(as->names);
    free(as->maps);
    free(as->max_end);
    free(as->processes);
    free(as->threads);
    memset(as, 0, sizeof *as);
}

static pv_aspace_event *new_event(pv_aspace *as, uint8_t kind, uint64_t key)
{
    if (as->failed ||
        !grow((void **)&as->events, &as->cap_events, as->nr_events + 1, sizeof *as->events)) {
        as->failed = true;
        return NULL;
    }
    pv_aspace_event *e = &as->events[as->nr_events];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->key = key;
    e->seq = as->nr_events++;
    return e;
}

void pv_aspace_add_mmap(pv_aspace *as, uint64_t key, int32_t pid, uint64_t start, uint64_t len,
                        uint64_t pgoff, uint32_t dso)
{
    pv_aspace_event *e = new_event(as, EV_MMAP, key);
    if (!e)
        return;
    e->pid = pid;
    e->start = start;
    /* a length reaching past the top of the address space stops there */
    e->end = len > UINT64_MAX - start ? UINT64_MAX : start + len;
    e->pgoff = pgoff;
    e->dso = dso;
}

void pv_aspace_add_comm(pv_aspace *as, uint64_t key, int32_t pid, int32_t tid, const char *comm,
                        size_t comm_len, bool exec)
{
    if (as->failed || comm_len > UINT32_MAX - as->names_len - 1 ||
        !grow((void **)&as->names, &as->names_cap, as->names_len + comm_len + 1, 1)) {
        as->failed = true;
        return;
    }
    pv_aspace_event *e = new_event(as, EV_COMM, key);
    if (!e)
        return;
    e->pid = pid;
    e->tid = tid;
    e->exec = exec;
    e->name = (uint32_t)as->names_len;
    memcpy(as->names + as->names_len, comm, comm_len);
    as->names[as->names_len + comm_len] = 0;
    as->names_len += comm_len + 1;
}

void pv_aspace_add_fork(pv_aspace *as, uint64_t key, int32_t pid, int32_t ppid, int32_t tid,
                        int32_t ptid)
{
    pv_aspace_event *e = new_event(as, EV_FORK, key);
    if (!e)
        return;
    e->pid = pid;
    e->ppid = ppid;
    e->tid = tid;
    e->ptid = ptid;
}

static int compare_events(const void *a, const void *b)
{
    const pv_aspace_event *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* During the replay: the live maps of one process, in replay order. */
typedef struct live_set {
    int32_t pid;
    bool used;
    uint32_t *maps;             /* indices into as->maps */
    size_t nr, cap;
} live_set;

typedef struct replay {
    live_set *slots;            /* open addressing on pid */
    size_t nr_slots, nr_used;
} replay;

static size_t slot_of(const replay *r, int32_t pid)
{
    size_t i = ((uint32_t)pid * 2654435761u) & (r->nr_slots - 1);
    while (r->slots[i].used && r->slots[i].pid != pid)
        i = (i + 1) & (r->nr_slots - 1);
    return i;
}

static live_set *live_of(replay *r, int32_t pid)
{
    if ((r->nr_used + 1) * 2 > r->nr_slots) {
        size_t n = r->nr_slots ? r->nr_slots * 2 : 64;
        live_set *old = r->slots;
        size_t old_n = r->nr_slots;
        r->slots = calloc(n, sizeof *r->slots);
        if (!r->slots) {
            r->slots = old;
            return NULL;
        }
        r->nr_slots = n;
        for (size_t i = 0; i < old_n; i++)
            if (old[i].used)
                r->slots[slot_of(r, old[i].pid)] = old[i];
        free(old);
    }
    size_t i = slot_of(r, pid);
    if (!r->slots[i].used) {
        r->slots[i].used = true;
        r->slots[i].pid = pid;
        r->nr_used++;
    }
    return &r->slots[i];
}

static void replay_free(replay *r)
{
    for (size_t i = 0; i < r->nr_slots; i++)
        free(r->slots[i].maps);
    free(r->slots);
}

static void end_all(pv_aspace *as, live_set *live, uint64_t key)
{
    for (size_t i = 0; i < live->nr; i++)
        as->maps[live->maps[i]].end_key = key;
    live->nr = 0;
}

static bool add_map(pv_aspace *as, live_set *live, const pv_map *m)
{
    if (as->nr_maps >= UINT32_MAX ||
        !grow((void **)&as->maps, &as->cap_maps, as->nr_maps + 1, sizeof *as->maps) ||
        !grow((void **)&live->maps, &live->cap, live->nr + 1, sizeof *live->maps))
        return false;
    as->maps[as->nr_maps] = *m;
    live->maps[live->nr++] = (uint32_t)as->nr_maps++;
    return true;
}

static bool replay_mmap(pv_aspace *as, replay *r, const pv_aspace_event *e)
{
    live_set *live = live_of(r, e->pid);
    if (!live)
        return false;
    /* maps the new one hides entirely end now; partly hidden ones stay
     * and lose to it in lookups */
    size_t kept = 0;
    for (size_t i = 0; i < live->nr; i++) {
        pv_map *old = &as->maps[live->maps[i]];
        if (old->start >= e->start && old->end <= e->end)
            old->end_key = e->key;
        else
            live->maps[kept++] = live->maps[i];
    }
    live->nr = kept;
    pv_map m = {
        .start = e->start, .end = e->end, .pgoff = e->pgoff, .begin_key = e->key,
        .end_key = PV_KEY_NEVER, .seq = e->seq, .pid = e->pid, .dso = e->dso,
    };
    return add_map(as, live, &m);
}

static bool replay_fork(pv_aspace *as, replay *r, const pv_aspace_event *e)
{
    if (e->pid == e->ppid)
        return true;    /* a thread: shares its process's maps */
    live_set *child = live_of(r, e->pid);
    if (!child)
        return false;
    end_all(as, child, e->key);     /* the pid's previous owner */
    live_set *parent = live_of(r, e->ppid);
    child = live_of(r, e->pid);     /* the table may have moved */
    if (!parent || !child)
        return false;
    for (size_t i = 0; i < parent->nr; i++) {
        pv_map m = as->maps[parent->maps[i]];
        m.pid = e->pid;
        m.begin_key = e->key;
        m.end_key = PV_KEY_NEVER;
        /* the copies keep their relative order, all after the parent's */
        m.seq = e->seq;
        if (!add_map(as, child, &m))
            return false;
        parent = live_of(r, e->ppid);
    }
    return true;
}

static bool add_thread_event(pv_aspace *as, size_t *cap, const pv_aspace_event *e)
{
    if (!grow((void **)&as->threads, cap, as->nr_threads + 1, sizeof *as->threads))
        return false;
    struct pv_thread_event *t = &as->threads[as->nr_threads++];
    memset(t, 0, sizeof *t);
    t->tid = e->tid;
    t->key = e->key;
    t->seq = e->seq;
    t->fork = e->kind == EV_FORK;
    t->parent = t->fork ? e->ptid : -1;
    t->name = e->name;
    return true;
}

static int compare_maps(const void *a, const void *b)
{
    const pv_map *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int compare_threads(const void *a, const void *b)
{
    const struct pv_thread_event *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool index_processes(pv_aspace *as)
{
    if (as->nr_maps)
        qsort(as->maps, as->nr_maps, sizeof *as->maps, compare_maps);
    as->max_end = malloc((as->nr_maps ? as->nr_maps : 1) * sizeof *as->max_end);
    as->processes = malloc((as->nr_maps ? as->nr_maps : 1) * sizeof *as->processes);
    if (!as->max_end || !as->processes)
        return false;
    for (size_t i = 0; i < as->nr_maps; i++) {
        const pv_map *m = &as->maps[i];
        if (i == 0 || m->pid != as->maps[i - 1].pid) {
            pv_aspace_process *p = &as->processes[as->nr_processes++];
            p->pid = m->pid;
            p->first = i;
            p->count = 0;
            as->max_end[i] = m->end;
        } else {
            as->max_end[i] = as->max_end[i - 1] > m->end ? as->max_end[i - 1] : m->end;
        }
        as->processes[as->nr_processes - 1].count++;
    }
    return true;
}

bool pv_aspace_build(pv_aspace *as)
{
    if (as->failed)
        return false;
    if (as->nr_events)  /* qsort wants a real array even for none */
        qsort(as->events, as->nr_events, sizeof *as->events, compare_events);
    replay r = {0};
    size_t threads_cap = 0;
    bool ok = true;
    for (size_t i = 0; i < as->nr_events && ok; i++) {
        const pv_aspace_event *e = &as->events[i];
        switch (e->kind) {
        case EV_MMAP:
            ok = replay_mmap(as, &r, e);
            break;
        case EV_COMM:
            /* An exec ends no map: the new image's maps replace the old
             * ones as they come (as in perf), and samples taken while the
             * exec runs still unwind through the old image. */
            ok = add_thread_event(as, &threads_cap, e);
            break;
        case EV_FORK:
            ok = replay_fork(as, &r, e) && add_thread_event(as, &threads_cap, e);
            break;
        }
    }
    replay_free(&r);
    free(as->events);
    as->events = NULL;
    as->nr_events = as->cap_events = 0;
    if (!ok || !index_processes(as)) {
        as->failed = true;
        return false;
    }
    if (as->nr_threads)
        qsort(as->threads, as->nr_threads, sizeof *as->threads, compare_threads);
    return true;
}

static const pv_aspace_process *find_process(pv_aspace *as, int32_t pid)
{
    if (as->last_process < as->nr_processes && as->processes[as->last_process].pid == pid)
        return &as->processes[as->last_process];
    size_t lo = 0, hi = as->nr_processes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (as->processes[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == as->nr_processes || as->processes[lo].pid != pid)
        return NULL;
    as->last_process = lo;
    return &as->processes[lo];
}

static bool map_holds(const pv_map *m, uint64_t addr, uint64_t key)
{
    return m->start <= addr && addr < m->end && m->begin_key <= key && key < m->end_key;
}

const pv_map *pv_aspace_find(pv_aspace *as, int32_t pid, uint64_t addr, uint64_t key)
{
    const pv_aspace_process *p = find_process(as, pid);
    if (!p)
        return NULL;
    /* Most lookups hit the map of the previous one: accept it when no
     * other map of the process overlaps it (then nothing can beat it). */
    size_t last = as->last_map;
    if (last >= p->first && last < p->first + p->count && map_holds(&as->maps[last], addr, key)) {
        bool alone = (last == p->first || as->max_end[last - 1] <= as->maps[last].start) &&
                     (last + 1 == p->first + p->count ||
                      as->maps[last + 1].start >= as->maps[last].end);
        if (alone)
            return &as->maps[last];
    }
    /* the last map starting at or below addr, then back over every map
     * that could still reach addr */
    size_t lo = p->first, hi = p->first + p->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (as->maps[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    const pv_map *best = NULL;
    size_t best_index = 0;
    for (size_t i = lo; i > p->first; i--) {
        if (as->max_end[i - 1] <= addr)
            break;
        const pv_map *m = &as->maps[i - 1];
        if (map_holds(m, addr, key) && (!best || m->seq > best->seq)) {
            best = m;
            best_index = i - 1;
        }
    }
    if (best)
        as->last_map = best_index;
    return best;
}

const char *pv_aspace_comm(pv_aspace *as, int32_t tid, uint64_t key)
{
    /* a FORK hands over the creator's name of that moment; the chain is
     * bounded in case forks name each other in a damaged file */
    for (int depth = 0; depth < 64; depth++) {
        size_t lo = 0, hi = as->nr_threads;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const struct pv_thread_event *t = &as->threads[mid];
            if (t->tid < tid || (t->tid == tid && t->key <= key))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0 || as->threads[lo - 1].tid != tid)
            return NULL;
        const struct pv_thread_event *t = &as->threads[lo - 1];
        if (!t->fork)
            return as->names + t->name;
        if (t->parent == tid)
            return NULL;
        key = t->key;
        tid = t->parent;
    }
    return NULL;
}
