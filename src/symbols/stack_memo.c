#include "symbols/stack_memo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/byte_hash.h"
#include "base/pv_array.h"
#include "base/pv_alloc.h"

#define NO_NAME UINT32_MAX

typedef struct memo_frame {
    uint64_t pc;
    uint32_t name;              /* offset in the pool; NO_NAME: none */
    uint32_t level;             /* pv_unwound_frame.level */
} memo_frame;

typedef struct memo_stack {
    uint64_t record, key;
    size_t first;               /* in frames */
    size_t nr;
    size_t max, names_size;     /* the buffers it was unwound into */
} memo_stack;

/* A file the stacks depend on, as it was on disk. */
typedef struct memo_dep {
    char *path;
    bool exists;
    uint64_t dev, ino, size, mtime_ns;
} memo_dep;

struct pv_stack_memo {
    size_t max_bytes;
    memo_stack *stacks;
    size_t nr_stacks, cap_stacks;
    uint32_t *slots;            /* record -> stacks index + 1; 0: empty */
    size_t nr_slots;            /* a power of two, or 0 */
    memo_frame *frames;
    size_t nr_frames, cap_frames;
    char *pool;                 /* the names, each once, NUL-terminated */
    size_t pool_len, pool_cap;
    uint32_t *name_slots;       /* name hash -> pool offset + 1; 0: empty */
    size_t nr_name_slots, nr_names;
    memo_dep *deps;
    size_t nr_deps, cap_deps;
    bool began;
    char *sysroot, *symdir;
    pv_stack_memo_stats stats;
};

pv_stack_memo *pv_stack_memo_new(size_t max_bytes)
{
    pv_stack_memo *m = pv_calloc(1, sizeof *m);
    if (m)
        m->max_bytes = max_bytes ? max_bytes : PV_STACK_MEMO_BYTES;
    return m;
}

static void forget_deps(pv_stack_memo *m)
{
    for (size_t i = 0; i < m->nr_deps; i++)
        free(m->deps[i].path);
    m->nr_deps = 0;
}

/* Frees the stacks (the deps and paths stay). */
static void forget_stacks(pv_stack_memo *m)
{
    free(m->stacks);
    free(m->slots);
    free(m->frames);
    free(m->pool);
    free(m->name_slots);
    m->stacks = NULL;
    m->slots = NULL;
    m->frames = NULL;
    m->pool = NULL;
    m->name_slots = NULL;
    m->nr_stacks = m->cap_stacks = m->nr_slots = 0;
    m->nr_frames = m->cap_frames = 0;
    m->pool_len = m->pool_cap = 0;
    m->nr_name_slots = m->nr_names = 0;
    m->stats.full = false;
}

void pv_stack_memo_free(pv_stack_memo *m)
{
    if (!m)
        return;
    forget_stacks(m);
    forget_deps(m);
    free(m->deps);
    free(m->sysroot);
    free(m->symdir);
    free(m);
}

static size_t bytes_used(const pv_stack_memo *m)
{
    return m->cap_stacks * sizeof *m->stacks + m->nr_slots * sizeof *m->slots +
           m->cap_frames * sizeof *m->frames + m->pool_cap +
           m->nr_name_slots * sizeof *m->name_slots + m->cap_deps * sizeof *m->deps;
}

void pv_stack_memo_get_stats(const pv_stack_memo *m, pv_stack_memo_stats *out)
{
    *out = m->stats;
    out->stacks = m->nr_stacks;
    out->bytes = bytes_used(m);
    out->max_bytes = m->max_bytes;
}

/* ---- validity ------------------------------------------------------------- */

static void read_identity(memo_dep *d)
{
    struct stat st;
    d->exists = stat(d->path, &st) == 0;
    d->dev = d->exists ? (uint64_t)st.st_dev : 0;
    d->ino = d->exists ? (uint64_t)st.st_ino : 0;
    d->size = d->exists ? (uint64_t)st.st_size : 0;
    d->mtime_ns = d->exists ? (uint64_t)st.st_mtim.tv_sec * 1000000000u +
                                  (uint64_t)st.st_mtim.tv_nsec
                            : 0;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static char *copy_text(const char *s)
{
    return s ? pv_strdup(s) : NULL;
}

void pv_stack_memo_begin(pv_stack_memo *m, const char *sysroot, const char *symdir)
{
    bool valid = !m->began || (same_text(sysroot, m->sysroot) && same_text(symdir, m->symdir));
    for (size_t i = 0; valid && i < m->nr_deps; i++) {
        memo_dep now = { .path = m->deps[i].path };
        read_identity(&now);
        const memo_dep *was = &m->deps[i];
        valid = now.exists == was->exists && now.dev == was->dev && now.ino == was->ino &&
                now.size == was->size && now.mtime_ns == was->mtime_ns;
    }
    if (!valid) {
        forget_stacks(m);
        forget_deps(m);
        m->stats.forgotten++;
    }
    if (!m->began || !valid) {
        free(m->sysroot);
        free(m->symdir);
        m->sysroot = copy_text(sysroot);
        m->symdir = copy_text(symdir);
        m->began = true;
    }
}

void pv_stack_memo_depends_on(pv_stack_memo *m, const char *path)
{
    for (size_t i = 0; i < m->nr_deps; i++)
        if (!strcmp(m->deps[i].path, path))
            return;
    if (!pv_array_grow((void **)&m->deps, &m->cap_deps, m->nr_deps + 1, sizeof *m->deps))
        return;
    memo_dep d = { .path = pv_strdup(path) };
    if (!d.path)
        return;
    read_identity(&d);
    m->deps[m->nr_deps++] = d;
}

/* ---- the index by record, and the names ------------------------------------ */

static size_t hash_u64(uint64_t v)
{
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    v ^= v >> 33;
    return (size_t)v;
}

static size_t hash_text(const char *s)
{
    return (size_t)pv_fnv1a(PV_FNV1A_START, s, strlen(s));
}

static memo_stack *find_stack(const pv_stack_memo *m, uint64_t record)
{
    if (m->nr_slots == 0)
        return NULL;
    size_t mask = m->nr_slots - 1;
    for (size_t i = hash_u64(record) & mask;; i = (i + 1) & mask) {
        uint32_t at = m->slots[i];
        if (at == 0)
            return NULL;
        if (m->stacks[at - 1].record == record)
            return &m->stacks[at - 1];
    }
}

/* Whether growing by extra bytes stays within the bound. */
static bool room_for(const pv_stack_memo *m, size_t extra)
{
    size_t used = bytes_used(m);
    return used <= m->max_bytes && extra <= m->max_bytes - used;
}

/* Makes the record index hold one more stack: at most half full. */
static bool index_room(pv_stack_memo *m)
{
    if ((m->nr_stacks + 1) * 2 <= m->nr_slots)
        return true;
    size_t n = m->nr_slots ? m->nr_slots * 2 : 1024;
    if (n > UINT32_MAX || !room_for(m, n * sizeof *m->slots))
        return false;
    uint32_t *slots = pv_calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t s = 0; s < m->nr_stacks; s++) {
        size_t i = hash_u64(m->stacks[s].record) & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)(s + 1);
    }
    free(m->slots);
    m->slots = slots;
    m->nr_slots = n;
    return true;
}

static bool name_index_room(pv_stack_memo *m)
{
    if ((m->nr_names + 1) * 2 <= m->nr_name_slots)
        return true;
    size_t n = m->nr_name_slots ? m->nr_name_slots * 2 : 256;
    if (n > UINT32_MAX || !room_for(m, n * sizeof *m->name_slots))
        return false;
    uint32_t *slots = pv_calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t j = 0; j < m->nr_name_slots; j++) {
        uint32_t at = m->name_slots[j];
        if (!at)
            continue;
        size_t i = hash_text(m->pool + at - 1) & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = at;
    }
    free(m->name_slots);
    m->name_slots = slots;
    m->nr_name_slots = n;
    return true;
}

/* name's offset in the pool, added if new; NO_NAME when there is no room. */
static uint32_t intern(pv_stack_memo *m, const char *name)
{
    if (!name_index_room(m))
        return NO_NAME;
    size_t mask = m->nr_name_slots - 1;
    size_t i = hash_text(name) & mask;
    for (; m->name_slots[i]; i = (i + 1) & mask)
        if (!strcmp(m->pool + m->name_slots[i] - 1, name))
            return m->name_slots[i] - 1;
    size_t n = strlen(name) + 1;
    if (m->pool_len > UINT32_MAX - 1 || n > UINT32_MAX - 1 - m->pool_len)
        return NO_NAME;
    if (m->pool_len + n > m->pool_cap &&
        (!room_for(m, m->pool_cap ? m->pool_cap : 4096) ||
         !pv_array_grow((void **)&m->pool, &m->pool_cap, m->pool_len + n, 1)))
        return NO_NAME;
    uint32_t at = (uint32_t)m->pool_len;
    memcpy(m->pool + at, name, n);
    m->pool_len += n;
    m->name_slots[i] = at + 1;
    m->nr_names++;
    return at;
}

/* ---- get and put ------------------------------------------------------------- */

bool pv_stack_memo_get(pv_stack_memo *m, uint64_t record, uint64_t key, pv_unwound_frame *frames,
                       size_t max, size_t *nr, char *names, size_t names_size)
{
    const memo_stack *st = find_stack(m, record);
    if (!st || st->key != key || st->max != max || st->names_size != names_size) {
        m->stats.misses++;
        return false;
    }
    size_t used = 0;
    for (size_t i = 0; i < st->nr; i++) {
        const memo_frame *f = &m->frames[st->first + i];
        frames[i].pc = f->pc;
        frames[i].level = f->level;
        frames[i].name = -1;
        if (f->name == NO_NAME)
            continue;
        /* the names as the unwind packed them: they fitted then */
        const char *name = m->pool + f->name;
        size_t n = strlen(name) + 1;
        if (n > names_size - used || used > INT32_MAX) {
            m->stats.misses++;
            return false;
        }
        memcpy(names + used, name, n);
        frames[i].name = (int32_t)used;
        used += n;
    }
    *nr = st->nr;
    m->stats.hits++;
    return true;
}

void pv_stack_memo_put(pv_stack_memo *m, uint64_t record, uint64_t key,
                       const pv_unwound_frame *frames, size_t nr, size_t max, const char *names,
                       size_t names_size)
{
    if (m->stats.full || find_stack(m, record))
        return;
    bool stored = index_room(m);
    if (stored && m->nr_frames + nr > m->cap_frames)
        stored = room_for(m, (m->cap_frames ? m->cap_frames : 16) * sizeof *m->frames) &&
                 pv_array_grow((void **)&m->frames, &m->cap_frames, m->nr_frames + nr,
                               sizeof *m->frames);
    if (stored && m->nr_stacks == m->cap_stacks)
        stored = room_for(m, (m->cap_stacks ? m->cap_stacks : 16) * sizeof *m->stacks) &&
                 pv_array_grow((void **)&m->stacks, &m->cap_stacks, m->nr_stacks + 1,
                               sizeof *m->stacks);
    for (size_t i = 0; stored && i < nr; i++) {
        uint32_t name = NO_NAME;
        if (frames[i].name >= 0 && (name = intern(m, names + frames[i].name)) == NO_NAME)
            stored = false;
        m->frames[m->nr_frames + i] = (memo_frame){ frames[i].pc, name, frames[i].level };
    }
    if (!stored) {
        /* names interned for it stay: they are few, and still valid */
        m->stats.full = true;
        return;
    }
    m->stacks[m->nr_stacks] = (memo_stack){ record, key, m->nr_frames, nr, max, names_size };
    m->nr_frames += nr;
    size_t mask = m->nr_slots - 1;
    size_t i = hash_u64(record) & mask;
    while (m->slots[i])
        i = (i + 1) & mask;
    m->slots[i] = (uint32_t)(++m->nr_stacks);
}
