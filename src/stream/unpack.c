#include "stream/unpack.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "format/perf_abi.h"
#include "format/user_records.h"
#include "stream/file_walk.h"
#include "base/pv_alloc.h"
#include "base/pv_env.h"

#define BLOCK_CAPACITY PV_UNPACK_BLOCK_CAPACITY
/* With a thread: the walk reads one block while the thread fills up to
 * AHEAD others.  Enough of them (2 MB) that neither side waits on the
 * other for every block when a core is taken from one of them for a time
 * slice or two. */
#define AHEAD 8
/* A thread that had filled AHEAD blocks is woken when this many can be
 * filled again, not at each one: it then fills them in one run, and the
 * two threads do not hand the processor to each other block by block. */
#define REFILL_AT (AHEAD / 2)
/* The pool: AHEAD filled or being filled, the one the walk reads, one
 * whose last record was just handed out (give_back_later), and those
 * left pinned: a free block is there whenever the thread may fill one. */
_Static_assert(PV_UNPACK_POOL >= AHEAD + 2 + PV_UNPACK_MAX_PINNED, "pool too small");
/* Blocks allocated at the start (the rest when blocks stay pinned). */
#define FIRST_BLOCKS (AHEAD + 2)
/* zstd decompresses with its tables on the heap; the thread needs little. */
#define THREAD_STACK (512u << 10)

/* The container being decompressed. */
typedef struct container_input {
    const uint8_t *data;   /* its compressed bytes not yet given to zstd */
    uint64_t left;
    uint32_t segment;
    uint64_t offset;
    const char *path;
    bool open;             /* it has output to come */
} container_input;

struct pv_unpacker {
    const pv_file *file;      /* read only: its path and byte order */
    const char *path;         /* the recording's, for messages */
    ZSTD_DStream *zstd;
    bool stream_started;
    uint32_t stream_segment;  /* each file of a recording has a stream of its own */
    container_input current;
    bool threaded;
    /* Their bytes allocated by the walk's thread: FIRST_BLOCKS with a
     * thread at the start, one more for each block left pinned; without,
     * when first filled. */
    pv_unpack_block blocks[PV_UNPACK_POOL];
    uint32_t nr_allocated;
    /* The walk's: the block it reads, how many it left pinned, the one to
     * give back at its next step (give_back_later). */
    pv_unpack_block *reading;
    uint32_t nr_left_pinned;
    pv_unpack_block *handed_last;

    /* The free blocks, a stack: the one given back last, still in cache,
     * is filled first, and blocks never needed are never touched.  The
     * filled ones, in order, a ring.  (Guarded by lock with a thread.) */
    uint16_t free_ids[PV_UNPACK_POOL];
    uint32_t nr_free;
    uint16_t filled_ids[PV_UNPACK_POOL];
    uint32_t first_filled, nr_filled;

    /* With a thread, which owns zstd, current and files until it ends. */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled, freed;
    bool stop, finished;
    bool producer_waiting;    /* the thread waits for REFILL_AT blocks to fill */
    pv_file_walk files;       /* the thread's own walk to the containers */
};

/* The zstd bytes of a COMPRESSED or COMPRESSED2 container. */
static int container_payload(const pv_unpacker *u, const pv_record *container,
                             const uint8_t **data, uint64_t *size, pv_error *err)
{
    pv_rec_compressed c;
    if (pv_rec_compressed_decode(u->file, container, &c, err))
        return -1;
    *data = c.data;
    *size = c.data_len;
    return 0;
}

/* Makes container the one being decompressed. */
static int begin_container(pv_unpacker *u, const pv_record *container, const char *path,
                           pv_error *err)
{
    container_input *c = &u->current;
    if (container_payload(u, container, &c->data, &c->left, err))
        return -1;
    /* perf keeps a stream per file it writes (the data.N of a directory
     * each have theirs), and a reader one per file it reads. */
    if (!u->stream_started || u->stream_segment != container->segment) {
        ZSTD_DCtx_reset(u->zstd, ZSTD_reset_session_only);
        u->stream_started = true;
        u->stream_segment = container->segment;
    }
    c->segment = container->segment;
    c->offset = container->file_offset;
    c->path = path;
    c->open = true;
    return 0;
}

/* Decompresses more of the current container into b, as a new piece: up
 * to the end of the block, or the last piece of the container when all its
 * bytes went in and the stream has no more to give. */
static int add_piece(pv_unpacker *u, pv_unpack_block *b, pv_error *err)
{
    container_input *c = &u->current;
    ZSTD_outBuffer out = {b->bytes, BLOCK_CAPACITY, b->len};
    bool last = false;
    int rc = 0;
    for (;;) {
        ZSTD_inBuffer in = {c->data, (size_t)c->left, 0};
        size_t before = out.pos;
        size_t z = ZSTD_decompressStream(u->zstd, &out, &in);
        if (ZSTD_isError(z)) {
            bool memory = ZSTD_getErrorCode(z) == ZSTD_error_memory_allocation;
            rc = pv_error_set_kind(err, memory ? PV_ERROR_NOMEM : PV_ERROR_FAILED,
                                   "%s: compressed data of the record at offset 0x%llx "
                                   "does not decompress: %s%s", c->path,
                                   (unsigned long long)c->offset, ZSTD_getErrorName(z),
                                   memory ? " (out of memory)" : "");
            break;
        }
        c->data += in.pos;
        c->left -= in.pos;
        /* A full output may leave decoded bytes in the stream, even with
         * all the input in: only room left over says it has given all. */
        if (out.pos == out.size)
            break;
        if (c->left == 0) {
            last = true;
            break;
        }
        if (in.pos == 0 && out.pos == before) {
            rc = pv_error_set(err, "%s: compressed data of the record at offset 0x%llx "
                              "does not decompress: the stream stops with %llu bytes left",
                              c->path, (unsigned long long)c->offset,
                              (unsigned long long)c->left);
            break;
        }
    }
    if (rc == 0 || out.pos > b->len) {
        pv_unpack_piece *piece = &b->pieces[b->nr_pieces++];
        piece->segment = c->segment;
        piece->container_offset = c->offset;
        piece->end = (uint32_t)out.pos;
        piece->last = last;
        b->len = (uint32_t)out.pos;
    }
    c->open = !last;
    return rc;
}

static void start_block(pv_unpack_block *b)
{
    b->len = 0;
    b->nr_pieces = 0;
    b->status = PV_UNPACK_MORE;
}

/* The thread's work: fills b from the containers that come next. */
static void fill(pv_unpacker *u, pv_unpack_block *b)
{
    start_block(b);
    while (b->len < BLOCK_CAPACITY && b->nr_pieces < PV_UNPACK_MAX_PIECES) {
        if (!u->current.open) {
            pv_record rec;
            int rc;
            while ((rc = pv_file_walk_next(&u->files, &rec, &b->error)) == 1 &&
                   rec.type != PV_RECORD_COMPRESSED && rec.type != PV_RECORD_COMPRESSED2)
                ;
            /* The walk meets what stopped the thread (a damaged record, the
             * end) and says so itself, unless the file changed between. */
            if (rc <= 0) {
                b->status = rc == 0 ? PV_UNPACK_END : PV_UNPACK_ERROR;
                return;
            }
            if (begin_container(u, &rec, u->files.path, &b->error)) {
                b->status = PV_UNPACK_ERROR;
                return;
            }
        }
        if (add_piece(u, b, &b->error)) {
            b->status = PV_UNPACK_ERROR;
            return;
        }
    }
}

static void *produce(void *arg)
{
    pv_unpacker *u = arg;
    pthread_mutex_lock(&u->lock);
    for (;;) {
        while (!u->stop && (u->nr_filled >= AHEAD || u->nr_free == 0)) {
            u->producer_waiting = true;
            pthread_cond_wait(&u->freed, &u->lock);
        }
        u->producer_waiting = false;
        if (u->stop)
            break;
        pv_unpack_block *b = &u->blocks[u->free_ids[--u->nr_free]];
        pthread_mutex_unlock(&u->lock);
        fill(u, b);
        pthread_mutex_lock(&u->lock);
        u->filled_ids[(u->first_filled + u->nr_filled++) % PV_UNPACK_POOL] =
            (uint16_t)(b - u->blocks);
        pthread_cond_signal(&u->filled);
        if (b->status != PV_UNPACK_MORE)
            break;
    }
    u->finished = true;
    pthread_cond_signal(&u->filled);
    pthread_mutex_unlock(&u->lock);
    return NULL;
}

static uint64_t thread_threshold(void)
{
    return pv_env_number("PERFVTAB_UNPACK_THREAD_MIN", 0, PV_UNPACK_THREAD_MIN);
}

/* Starts the thread at container; false when it cannot be started. */
static bool start_thread(pv_unpacker *u, pv_file *f, const pv_record *container)
{
    pv_file_walk_start(&u->files, f);
    pv_file_walk_seek(&u->files, container->segment, container->file_offset);
    if (pthread_mutex_init(&u->lock, NULL) != 0)
        return false;
    if (pthread_cond_init(&u->filled, NULL) != 0) {
        pthread_mutex_destroy(&u->lock);
        return false;
    }
    if (pthread_cond_init(&u->freed, NULL) != 0) {
        pthread_cond_destroy(&u->filled);
        pthread_mutex_destroy(&u->lock);
        return false;
    }
    /* The host's signals stay with the host's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_attr_t attr;
    bool started = false;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setstacksize(&attr, THREAD_STACK);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        started = pthread_create(&u->thread, &attr, produce, u) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    if (!started) {
        pthread_cond_destroy(&u->freed);
        pthread_cond_destroy(&u->filled);
        pthread_mutex_destroy(&u->lock);
        pv_file_walk_end(&u->files);
    }
    return started;
}

/* One more block in the pool, free (the walk's thread). */
static bool grow_pool(pv_unpacker *u)
{
    if (u->nr_allocated == PV_UNPACK_POOL)
        return false;
    pv_unpack_block *b = &u->blocks[u->nr_allocated];
    if (!(b->bytes = pv_malloc(BLOCK_CAPACITY)))
        return false;
    if (u->threaded)
        pthread_mutex_lock(&u->lock);
    u->free_ids[u->nr_free++] = (uint16_t)u->nr_allocated++;
    if (u->threaded) {
        pthread_cond_signal(&u->freed);
        pthread_mutex_unlock(&u->lock);
    }
    return true;
}

int pv_unpacker_open(pv_unpacker **out, pv_file *f, const pv_record *container,
                     uint64_t remaining, const char *path, pv_error *err)
{
    *out = NULL;
    pv_unpacker *u = pv_calloc(1, sizeof *u);
    if (!u || !(u->zstd = ZSTD_createDStream()))
        goto oom;
    u->file = f;
    u->path = f->data_path;
    /* A stream's bytes are waited for, asking the reader's stop, which only
     * the reader's thread may ask: no thread reads ahead of it. */
    bool thread = remaining >= thread_threshold() && !pv_file_is_stream(f);
    /* Without a thread (little data, or none to be had) blocks are added
     * as the walk needs them: one, unless records stay pinned. */
    for (size_t i = 0, n = thread ? FIRST_BLOCKS : 1; i < n; i++)
        if (!grow_pool(u))
            goto oom;
    u->threaded = thread && start_thread(u, f, container);
    *out = u;
    return 0;
oom:
    pv_unpacker_close(u);
    return pv_error_set(err, "%s: out of memory for decompression", path);
}

bool pv_unpacker_threaded(const pv_unpacker *u)
{
    return u->threaded;
}

pv_unpack_block *pv_unpacker_blocks(pv_unpacker *u)
{
    return u->blocks;
}

int pv_unpacker_enter(pv_unpacker *u, const pv_record *container, const char *path,
                      pv_error *err)
{
    if (!u->threaded)
        return begin_container(u, container, path, err);
    /* The thread reads the container itself; its framing is checked here
     * too, so that a damaged one stops the walk where it is. */
    const uint8_t *data;
    uint64_t size;
    return container_payload(u, container, &data, &size, err);
}

/* Wakes the thread that waits for room, once it has REFILL_AT blocks to
 * fill (under lock). */
static void wake_producer(pv_unpacker *u)
{
    if (u->producer_waiting && u->nr_free > 0 && AHEAD - u->nr_filled >= REFILL_AT)
        pthread_cond_signal(&u->freed);
}

static void give_back_now(pv_unpacker *u, pv_unpack_block *b)
{
    b->left = false;
    if (!u->threaded) {
        u->free_ids[u->nr_free++] = (uint16_t)(b - u->blocks);
        return;
    }
    pthread_mutex_lock(&u->lock);
    u->free_ids[u->nr_free++] = (uint16_t)(b - u->blocks);
    wake_producer(u);
    pthread_mutex_unlock(&u->lock);
}

/* The record just handed out was b's last: its bytes stay as they are
 * until the caller's next call, so b goes back at the walk's step after
 * this one. */
static void give_back_later(pv_unpacker *u, pv_unpack_block *b)
{
    if (u->handed_last)
        give_back_now(u, u->handed_last);
    u->handed_last = b;
}

void pv_unpacker_unpinned(pv_unpacker *u, pv_unpack_block *b)
{
    u->nr_left_pinned--;
    give_back_later(u, b);
}

/* The walk moves on from the block it read: back to the pool unless a
 * reader holds records of it. */
static bool leave_block(pv_unpacker *u)
{
    pv_unpack_block *b = u->reading;
    u->reading = NULL;
    if (u->handed_last) {
        give_back_now(u, u->handed_last);
        u->handed_last = NULL;
    }
    if (!b)
        return true;
    if (b->pins == 0) {
        give_back_now(u, b);
        return true;
    }
    b->left = true;
    u->nr_left_pinned++;
    /* the thread keeps AHEAD blocks to fill beside the pinned ones */
    return !u->threaded || u->nr_allocated >= FIRST_BLOCKS + u->nr_left_pinned ||
           grow_pool(u);
}

static void begin_reading(pv_unpacker *u, pv_unpack_block *b)
{
    b->pins = 0;
    b->left = false;
    u->reading = b;
}

int pv_unpacker_next_block(pv_unpacker *u, pv_unpack_block **out, pv_error *err)
{
    /* the walk of a compressed file reads no file bytes itself: each
     * block is where it stops when asked */
    if (pv_stop_check_point(u->file->stop, u->path, err))
        return -1;
    if (!leave_block(u))
        return pv_error_set(err, "%s: out of memory for decompression", u->path);
    if (!u->threaded) {
        if (u->nr_free == 0 && !grow_pool(u))
            return pv_error_set(err, "%s: out of memory for decompression", u->path);
        pv_unpack_block *b = &u->blocks[u->free_ids[--u->nr_free]];
        start_block(b);
        if (add_piece(u, b, &b->error))
            b->status = PV_UNPACK_ERROR;
        begin_reading(u, b);
        *out = b;
        return 0;
    }
    pthread_mutex_lock(&u->lock);
    /* asked before the walk waits: the thread is never left asleep with
     * blocks to fill */
    wake_producer(u);
    while (u->nr_filled == 0 && !u->finished)
        pthread_cond_wait(&u->filled, &u->lock);
    pv_unpack_block *b = NULL;
    if (u->nr_filled > 0) {
        b = &u->blocks[u->filled_ids[u->first_filled]];
        u->first_filled = (u->first_filled + 1) % PV_UNPACK_POOL;
        u->nr_filled--;
    }
    pthread_mutex_unlock(&u->lock);
    if (!b)
        return pv_error_set(err, "%s: no more decompressed data after the last block",
                            u->path);
    begin_reading(u, b);
    *out = b;
    return 0;
}

void pv_unpacker_close(pv_unpacker *u)
{
    if (!u)
        return;
    if (u->threaded) {
        pthread_mutex_lock(&u->lock);
        u->stop = true;
        pthread_cond_signal(&u->freed);
        pthread_mutex_unlock(&u->lock);
        pthread_join(u->thread, NULL);
        pthread_cond_destroy(&u->freed);
        pthread_cond_destroy(&u->filled);
        pthread_mutex_destroy(&u->lock);
        pv_file_walk_end(&u->files);
    }
    ZSTD_freeDStream(u->zstd);
    for (size_t i = 0; i < PV_UNPACK_POOL; i++)
        free(u->blocks[i].bytes);
    free(u);
}
