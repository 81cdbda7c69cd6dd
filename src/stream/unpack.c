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

/* Decompressed bytes per block: big enough that handing a block over costs
 * nothing next to filling it, small enough that the blocks stay in cache
 * between the thread that writes them and the walk that reads them. */
#define BLOCK_CAPACITY (256u << 10)
/* With a thread: the walk reads one block while the thread fills the others.
 * Enough of them (2 MB) that neither side waits on the other for every
 * block when a core is taken from one of them for a time slice or two. */
#define NR_BLOCKS 8
/* A thread that found every block full is woken when this many are free
 * again, not at each one: it then fills them in one run, and the two
 * threads do not hand the processor to each other block by block. */
#define REFILL_AT (NR_BLOCKS / 2)
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
    pv_unpack_block blocks[NR_BLOCKS];  /* without a thread, only the first */

    /* With a thread, which owns zstd, current and files until it ends. */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled, freed;
    /* blocks filled, taken by the walk, given back: released <= taken <=
     * produced <= released + NR_BLOCKS (guarded by lock) */
    uint64_t produced, taken, released;
    bool stop, finished;
    bool producer_waiting;    /* the thread waits for REFILL_AT free blocks */
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
        while (!u->stop && u->produced - u->released == NR_BLOCKS) {
            u->producer_waiting = true;
            pthread_cond_wait(&u->freed, &u->lock);
        }
        u->producer_waiting = false;
        if (u->stop)
            break;
        pv_unpack_block *b = &u->blocks[u->produced % NR_BLOCKS];
        pthread_mutex_unlock(&u->lock);
        fill(u, b);
        pthread_mutex_lock(&u->lock);
        u->produced++;
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
    size_t nr_blocks = remaining >= thread_threshold() && !pv_file_is_stream(f) ? NR_BLOCKS : 1;
    for (size_t i = 0; i < nr_blocks; i++)
        if (!(u->blocks[i].bytes = pv_malloc(BLOCK_CAPACITY)))
            goto oom;
    /* Without a thread (little data, or none to be had) one block is used. */
    u->threaded = nr_blocks > 1 && start_thread(u, f, container);
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

int pv_unpacker_next_block(pv_unpacker *u, const pv_unpack_block **out, pv_error *err)
{
    /* the walk of a compressed file reads no file bytes itself: each
     * block is where it stops when asked */
    if (pv_stop_check_point(u->file->stop, u->path, err))
        return -1;
    if (!u->threaded) {
        pv_unpack_block *b = &u->blocks[0];
        start_block(b);
        if (add_piece(u, b, &b->error))
            b->status = PV_UNPACK_ERROR;
        *out = b;
        return 0;
    }
    pthread_mutex_lock(&u->lock);
    if (u->taken > u->released) {
        u->released++;
        /* the walk holds at most one block, so this comes before it can
         * wait for one: the thread is never left asleep with none to fill */
        if (u->producer_waiting && NR_BLOCKS - (u->produced - u->released) >= REFILL_AT)
            pthread_cond_signal(&u->freed);
    }
    while (u->produced == u->taken && !u->finished)
        pthread_cond_wait(&u->filled, &u->lock);
    bool have = u->produced > u->taken;
    if (have)
        *out = &u->blocks[u->taken++ % NR_BLOCKS];
    pthread_mutex_unlock(&u->lock);
    if (!have)
        return pv_error_set(err, "%s: no more decompressed data after the last block",
                            u->path);
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
    for (size_t i = 0; i < NR_BLOCKS; i++)
        free(u->blocks[i].bytes);
    free(u);
}
