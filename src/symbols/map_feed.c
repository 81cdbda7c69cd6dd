#include "symbols/symbolizer_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/pv_array.h"
#include "decode/record_types.h"

/* ---- walking the records --------------------------------------------------- */

bool pv_sym_file_is_timed(const pv_file *f)
{
    if (f->nr_attrs == 0)
        return false;
    for (size_t i = 0; i < f->nr_attrs; i++)
        if (!(f->attrs[i].sample_type & PV_SAMPLE_TIME) ||
            !pv_attr_flag(&f->attrs[i], PV_ATTR_SAMPLE_ID_ALL))
            return false;
    return true;
}

static uint64_t key_of(const pv_symbolizer *s, uint64_t record_index, bool has_time,
                       uint64_t time)
{
    return s->timed && has_time ? time : record_index;
}

static uint64_t record_key(const pv_symbolizer *s, const pv_record *r, const pv_sample_id *t)
{
    return key_of(s, r->index, (t->fields & PV_SAMPLE_TIME) != 0, t->time);
}

/* An event fed with a key below one the address space was applied to is
 * replayed late, after later ones.  A replay that keeps exited processes'
 * maps (replay_keeping_all) gives the same address space only when no
 * event came late before it: the first one stops the dropping, and after
 * drops calls for that replay first (FEED_LATE: the record is fed again
 * after it). */
enum { FEED_LATE = 2 };

static bool late_after_drops(pv_symbolizer *s, uint64_t key)
{
    if (!s->drop_exited || !s->feed.applied_any || key >= s->feed.applied_key)
        return false;
    if (s->space.nr_dropped)
        return true;
    s->drop_exited = s->space.drop_exited = false;
    return false;
}

static int add_mmap(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    pv_file *f = s->file;
    pv_rec_mmap m;
    if (pv_rec_mmap_decode(f, r, &m, err))
        return -1;
    if (late_after_drops(s, record_key(s, r, &m.trailer)))
        return FEED_LATE;
    int32_t pid = (int32_t)m.pid;
    /* MMAP, and the short MMAP2 of old kernels, have no prot: perf takes
     * their maps as executable unless marked data */
    bool exec = m.mmap2 && !m.short_layout ? (m.prot & 4 /* PROT_EXEC */) != 0
                                           : !(r->misc & PV_MISC_MMAP_DATA);
    uint32_t d = pv_sym_dso_for_map(s, pid, r->misc & PV_MISC_CPUMODE_MASK, m.filename,
                             (size_t)m.filename_len, exec);
    if (d == UINT32_MAX)
        return pv_error_set(err, "%s: out of memory reading maps", f->path);
    if (m.has_build_id)
        pv_sym_set_build_id(&s->dsos[d], m.build_id, m.build_id_size);
    bool kernel_side = s->dsos[d].kernel_side;
    /* a jitdump's own map gives way to its code loads, as in perf inject */
    if (s->dsos[d].kind == DSO_JITDUMP) {
        /* made earlier from the build-id list, which names no process */
        if (s->dsos[d].pid == 0 && !s->dsos[d].loaded)
            s->dsos[d].pid = pid;
        int fed = pv_sym_feed_jitdump(s, &s->dsos[d], d, record_key(s, r, &m.trailer), err);
        if (fed != 0)
            return fed < 0 ? -1 : 0;
    }
    pv_aspace_add_mmap(&s->space, record_key(s, r, &m.trailer), kernel_side ? PV_KERNEL_PID : pid,
                       m.start, m.len, m.pgoff, d);
    return 0;
}

static int add_comm(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    pv_rec_comm c;
    if (pv_rec_comm_decode(s->file, r, &c, err))
        return -1;
    if (late_after_drops(s, record_key(s, r, &c.trailer)))
        return FEED_LATE;
    pv_aspace_add_comm(&s->space, record_key(s, r, &c.trailer), (int32_t)c.pid, (int32_t)c.tid,
                       c.comm, (size_t)c.comm_len, c.exec);
    return 0;
}

static int add_task(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    pv_rec_task t;
    if (pv_rec_task_decode(s->file, r, &t, err))
        return -1;
    if (late_after_drops(s, record_key(s, r, &t.trailer)))
        return FEED_LATE;
    if (t.exit)
        pv_aspace_add_exit(&s->space, record_key(s, r, &t.trailer), (int32_t)t.pid, (int32_t)t.tid);
    else
        pv_aspace_add_fork(&s->space, record_key(s, r, &t.trailer), (int32_t)t.pid,
                           (int32_t)t.ppid, (int32_t)t.tid, (int32_t)t.ptid);
    return 0;
}

/* Build-ids the recording lists (the BUILD_ID feature, or HEADER_BUILD_ID
 * records in pipe mode) go to the dsos of that name. */
int pv_sym_apply_build_ids(pv_symbolizer *s, pv_build_id_iter *it, pv_error *err)
{
    pv_build_id b;
    int rc;
    while ((rc = pv_build_ids_next(it, &b, err)) == 1) {
        unsigned cpumode = b.misc & PV_MISC_CPUMODE_MASK;
        bool kernel_side = cpumode == CPUMODE_KERNEL || cpumode == CPUMODE_GUEST_KERNEL;
        /* the dso is made now when its maps come later in the stream */
        uint32_t d = kernel_side
                         ? pv_sym_intern_dso(s, pv_sym_kernel_dso_name(b.filename, (size_t)b.filename_len),
                                      DSO_KERNEL, true, -1)
                         /* b.pid is the machine's (-1: the host), not a process */
                         : pv_sym_dso_for_map(s, 0, CPUMODE_USER, b.filename, (size_t)b.filename_len,
                                       false);
        if (d == UINT32_MAX)
            return pv_error_set(err, "%s: out of memory", s->file->path);
        if (s->dsos[d].build_id_len == 0)
            pv_sym_set_build_id(&s->dsos[d], b.id, b.id_len);
    }
    return rc;
}

static bool note_round(map_feed *m, uint64_t index)
{
    if (m->rounds_head > 0 && m->rounds_head * 2 >= m->nr_rounds_ahead) {
        /* passed ones go: what is held is the rounds ahead of the scan */
        memmove(m->rounds, m->rounds + m->rounds_head, (m->nr_rounds_ahead - m->rounds_head) * sizeof *m->rounds);
        m->nr_rounds_ahead -= m->rounds_head;
        m->rounds_head = 0;
    }
    if (!pv_array_grow((void **)&m->rounds, &m->cap_rounds, m->nr_rounds_ahead + 1, sizeof *m->rounds))
        return false;
    m->rounds[m->nr_rounds_ahead++] = index;
    return true;
}

/* The types of record feed_record has anything to do with, a bit each
 * (stream/file_walk.h): most records are samples, passed over without
 * the call. */
static inline void fed_types(const pv_symbolizer *s, uint64_t types[2])
{
    types[0] = PV_TYPE_BIT(PV_RECORD_MMAP) | PV_TYPE_BIT(PV_RECORD_MMAP2) |
               PV_TYPE_BIT(PV_RECORD_COMM) | PV_TYPE_BIT(PV_RECORD_FORK) |
               (s->drop_exited ? PV_TYPE_BIT(PV_RECORD_EXIT) : 0);
    types[1] = PV_TYPE_BIT(PV_RECORD_HEADER_BUILD_ID) | PV_TYPE_BIT(PV_RECORD_FINISHED_ROUND);
}

static inline bool feeds(const pv_symbolizer *s, uint32_t type)
{
    uint64_t types[2];
    fed_types(s, types);
    return type < 128 && (types[type >> 6] & PV_TYPE_BIT(type));
}

static int feed_record(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    switch (r->type) {
    case PV_RECORD_MMAP:
    case PV_RECORD_MMAP2:
        return add_mmap(s, r, err);
    case PV_RECORD_COMM:
        return add_comm(s, r, err);
    case PV_RECORD_FORK:
        return add_task(s, r, err);
    case PV_RECORD_EXIT:
        return add_task(s, r, err);
    case PV_RECORD_HEADER_BUILD_ID: {
        pv_build_id_iter it;
        pv_build_ids_start_record(&it, s->file, r);
        return pv_sym_apply_build_ids(s, &it, err) < 0 ? -1 : 0;
    }
    case PV_RECORD_FINISHED_ROUND:
        if (s->drop_exited && !note_round(&s->feed, r->index))
            return pv_error_set(err, "%s: out of memory reading maps", s->file->path);
        s->feed.round_before = s->feed.last_round;
        s->feed.last_round = r->index;
        if (s->feed.nr_rounds < 2)
            s->feed.nr_rounds++;
        return 0;
    default:
        return 0;
    }
}

/* Whether the feed has read far enough for lookups of record index. */
static bool fed_enough(const pv_symbolizer *s, uint64_t index)
{
    const map_feed *m = &s->feed;
    if (m->done)
        return true;
    /* untimed records are keyed by their ordinals, so what precedes them
     * is all they need; a directory's data.N files each run through the
     * whole recording, so only all of them orders anything */
    if (!s->timed)
        return m->next_index > index;
    if (s->file->nr_segments)
        return false;
    return m->nr_rounds == 2 && m->round_before > index;
}

static int replay_keeping_all(pv_symbolizer *s, uint64_t stop, pv_error *err);

/* The feed's next record, its walk started at the first: 1, r read; 0 at
 * the end of the stream (the feed done); -1 on error. */
static int next_record(map_feed *m, pv_file *f, pv_record *r, pv_error *err)
{
    if (!m->started) {
        pv_walk_start(&m->walk, f);
        m->started = true;
    }
    int rc = pv_walk_next(&m->walk, r, err);
    if (rc == 0)
        m->done = true;
    return rc;
}

/* r fed, the feed past it; feed_record's result, 0 for a record it has
 * nothing to do with. */
static int feed_next(pv_symbolizer *s, const pv_record *r, pv_error *err)
{
    s->feed.next_index = r->index + 1;
    return feeds(s, r->type) ? feed_record(s, r, err) : 0;
}

/* The records the feed has nothing to do with, up to the next it feeds,
 * passed in one step where the walk's window holds them: true when it
 * passed any.  What is fed, and fed_enough's answer for the timed file
 * (FINISHED_ROUNDs are fed), are as when each is read and passed; an
 * ordinal-keyed file may be read further ahead, by records that feed
 * nothing.  The twin reads each (PERFVTAB_FEED_EVERY_RECORD). */
static bool pass_unfed(pv_symbolizer *s)
{
    map_feed *m = &s->feed;
    if (!m->started || s->feed_every_record)
        return false;
    uint64_t types[2];
    fed_types(s, types);
    if (pv_walk_skip(&m->walk, types) == 0)
        return false;
    m->next_index = m->walk.next_index;
    return true;
}

static int feed_until(pv_symbolizer *s, uint64_t index, pv_error *err)
{
    pv_record r;
    while (!fed_enough(s, index)) {
        if (pass_unfed(s))
            continue;
        int rc = next_record(&s->feed, s->file, &r, err);
        if (rc <= 0)
            return rc;
        rc = feed_next(s, &r, err);
        if (rc == FEED_LATE)
            rc = replay_keeping_all(s, r.index, err);    /* r fed again there */
        if (rc < 0)
            return -1;
    }
    return 0;
}

void pv_sym_ready_space(pv_symbolizer *s)
{
    pv_aspace_init(&s->space);
    s->space.drop_exited = s->drop_exited;
    s->space.exit_grace = s->exit_grace;
}

/* Back to the start of the stream; the dsos and their symbols stay. */
static void restart_feed(pv_symbolizer *s)
{
    if (s->feed.started)
        pv_walk_end(&s->feed.walk);
    free(s->feed.rounds);
    memset(&s->feed, 0, sizeof s->feed);
    for (size_t i = 0; i < s->nr_dsos; i++)
        s->dsos[i].jit_fed = false;
    pv_aspace_free(&s->space);
    pv_sym_ready_space(s);
}

/* The exited processes' maps back: the feed read again from the start,
 * keeping them, up to the record at stop (fed last, when read) and the
 * address space applied to the same key.  With no event replayed late
 * before (late_after_drops), the same events fed in the same order and
 * applied up to the same key give the address space that never dropped a
 * map: its replay is in key order, and the feed ahead of the scan hands
 * the same events.  From then on nothing is dropped. */
static int replay_keeping_all(pv_symbolizer *s, uint64_t stop, pv_error *err)
{
    map_feed before = s->feed;
    s->drop_exited = false;
    restart_feed(s);
    map_feed *m = &s->feed;
    m->consumer = before.consumer;
    pv_record r;
    bool pending = false;
    while (m->next_index < stop) {
        int rc = next_record(m, s->file, &r, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            break;
        if (r.index >= stop) {
            pending = true;
            break;
        }
        if (feed_next(s, &r, err) < 0)
            return -1;
    }
    m->applied_key = before.applied_key;
    m->applied_any = before.applied_any;
    if (m->applied_any && !pv_aspace_apply(&s->space, m->applied_key))
        return pv_error_set(err, "%s: out of memory building address spaces", s->file->path);
    if (pending && feed_next(s, &r, err) < 0)
        return -1;
    return 0;
}

/* Each FINISHED_ROUND the consumer has passed moves the epoch on; the
 * processes exited long enough before go. */
static void pass_rounds(pv_symbolizer *s)
{
    map_feed *m = &s->feed;
    bool moved = false;
    while (m->rounds_head < m->nr_rounds_ahead && m->rounds[m->rounds_head] < m->consumer) {
        m->rounds_head++;
        s->space.epoch++;
        moved = true;
    }
    if (moved)
        pv_aspace_drop_exited(&s->space);
}

int pv_symbolizer_at(pv_symbolizer *s, uint64_t record_index, bool has_time, uint64_t time,
                     uint64_t *key, pv_error *err)
{
    *key = key_of(s, record_index, has_time, time);
    s->readied_record = record_index;
    /* Samples in time order come back in the file but not in time: what
     * is fed and replayed already answers them.  Keyed by ordinals, an
     * earlier record starts over. */
    if (!s->timed && record_index < s->feed.consumer)
        restart_feed(s);
    if (!s->timed || record_index > s->feed.consumer)
        s->feed.consumer = record_index;
    if (feed_until(s, record_index, err))
        return -1;
    if (!s->feed.applied_any || *key > s->feed.applied_key)
        s->feed.applied_key = *key;
    s->feed.applied_any = true;
    if (!pv_aspace_apply(&s->space, *key))
        return pv_error_set(err, "%s: out of memory building address spaces", s->file->path);
    /* a fork from a process whose maps went */
    if (s->space.missing && replay_keeping_all(s, s->feed.next_index, err))
        return -1;
    if (s->drop_exited)
        pass_rounds(s);
    return 0;
}

/* A lookup that needs dropped maps replays them; when that fails (out of
 * memory, the file unreadable now), the address space fails and so does
 * the next pv_symbolizer_at. */
static bool replay_for_lookup(pv_symbolizer *s)
{
    if (!s->space.missing)
        return false;
    pv_error err;
    memset(&err, 0, sizeof err);
    if (replay_keeping_all(s, s->feed.next_index, &err) == 0)
        return true;
    s->space.failed = true;
    return false;
}

const pv_map *pv_sym_find_map_again(pv_symbolizer *s, int32_t pid, uint64_t addr, uint64_t key)
{
    return replay_for_lookup(s) ? pv_aspace_find(&s->space, pid, addr, key) : NULL;
}

uint64_t pv_sym_lowest_start(pv_symbolizer *s, int32_t pid, uint32_t dso, uint64_t key)
{
    uint64_t start = pv_aspace_lowest_start(&s->space, pid, dso, key);
    if (start == UINT64_MAX && replay_for_lookup(s))
        start = pv_aspace_lowest_start(&s->space, pid, dso, key);
    return start;
}
