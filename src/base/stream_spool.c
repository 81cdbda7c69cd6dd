#include "base/stream_spool.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/pv_alloc.h"

/* How long one wait for the writer lasts before stop is asked again. */
#define POLL_MS 100
/* Bytes taken from the source at once. */
#define CHUNK (64u << 10)

struct pv_spool {
    pv_spool *next;             /* the registry's list */
    uint64_t dev, ino;          /* the source's identity: the registry's key */
    bool reopenable;            /* a FIFO: its next writer brings a new stream */
    int refs;                   /* openings holding it (under registry_lock) */
    int source_fd;
    int spool_fd;
    char *spool_dir;            /* for messages */
    pthread_mutex_t lock;       /* guards what follows */
    pthread_cond_t changed;     /* a fill ended: size, ended or error moved */
    uint64_t size;              /* bytes in the spool */
    bool ended;
    bool filling;               /* one reader takes from the source at a time */
    int source_errno;           /* a read or write failed: every fill fails */
    bool write_failed;
    uint8_t *chunk;             /* the filler's buffer */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pv_spool *registry;

bool pv_spool_is_stream(const char *path)
{
    if (strcmp(path, "-") == 0)
        return true;
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static void free_spool(pv_spool *s)
{
    if (s->source_fd >= 0)
        close(s->source_fd);
    if (s->spool_fd >= 0)
        close(s->spool_fd);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    free(s->spool_dir);
    free(s->chunk);
    free(s);
}

static pv_spool *find_spool(uint64_t dev, uint64_t ino)
{
    for (pv_spool *s = registry; s; s = s->next)
        if (s->dev == dev && s->ino == ino)
            return s;
    return NULL;
}

static const char *temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/* An unlinked file in $TMPDIR: it goes when its last descriptor closes. */
static int make_spool_file(pv_spool *s, const char *what, pv_error *err)
{
    s->spool_dir = pv_strdup(temp_dir());
    char *name = NULL;
    if (!s->spool_dir || pv_asprintf(&name, "%s/perfvtab-stream-XXXXXX", s->spool_dir) < 0)
        return pv_error_set_kind(err, PV_ERROR_NOMEM, "%s: out of memory", what);
    s->spool_fd = mkostemp(name, O_CLOEXEC);
    int saved = errno;
    if (s->spool_fd >= 0)
        unlink(name);
    free(name);
    if (s->spool_fd < 0)
        return pv_error_set(err, "%s: cannot make a temporary file in %s to spool the stream to "
                            "(TMPDIR chooses where): %s", what, s->spool_dir, strerror(saved));
    return 0;
}

/* The source's own descriptor: standard input's duplicate, or path opened
 * without waiting (a FIFO with no writer yet opens at once). */
static int open_source(const char *path, int *fd, struct stat *st, pv_error *err)
{
    if (strcmp(path, "-") == 0)
        *fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    else
        *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0)
        return pv_error_set(err, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(*fd, st) != 0) {
        int saved = errno;
        close(*fd);
        *fd = -1;
        return pv_error_set(err, "%s: cannot stat: %s", path, strerror(saved));
    }
    return 0;
}

/* The file system anonymous pipes live on (linux/magic.h's PIPEFS_MAGIC). */
#define PIPEFS_MAGIC_NUMBER 0x50495045

/* A FIFO with a name in a file system, that a new writer can open again;
 * not an anonymous pipe (standard input's, whatever path reached it). */
static bool is_named_fifo(int fd, const struct stat *st)
{
    struct statfs fs;
    return S_ISFIFO(st->st_mode) && fstatfs(fd, &fs) == 0 && fs.f_type != PIPEFS_MAGIC_NUMBER;
}

static int new_spool(const char *path, int fd, const struct stat *st, pv_spool **out,
                     pv_error *err)
{
    pv_spool *s = pv_calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        return pv_error_set_kind(err, PV_ERROR_NOMEM, "%s: out of memory", path);
    }
    s->source_fd = fd;
    s->spool_fd = -1;
    s->dev = (uint64_t)st->st_dev;
    s->ino = (uint64_t)st->st_ino;
    s->reopenable = is_named_fifo(fd, st);
    s->refs = 1;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        close(fd);
        free(s);
        return pv_error_set(err, "%s: cannot make a lock", path);
    }
    if (pthread_cond_init(&s->changed, NULL) != 0) {
        pthread_mutex_destroy(&s->lock);
        close(fd);
        free(s);
        return pv_error_set(err, "%s: cannot make a condition variable", path);
    }
    s->chunk = pv_malloc(CHUNK);
    if (!s->chunk) {
        free_spool(s);
        return pv_error_set_kind(err, PV_ERROR_NOMEM, "%s: out of memory", path);
    }
    if (make_spool_file(s, path, err)) {
        free_spool(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* The registry lives in this library's memory.  A host that loaded the
 * library for one connection unloads it when that connection closes, and a
 * stream read then would be lost with it: its bytes are gone from the
 * source, and the next connection would find it empty or cut.  So the first spool keeps
 * the library loaded until the process ends.  (Linked into a program, the
 * call finds the program itself: nothing to keep.) */
static void keep_library_loaded(void)
{
    static bool kept;
    Dl_info self;
    if (!kept && dladdr((void *)keep_library_loaded, &self) && self.dli_fname)
        kept = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != NULL;
}

int pv_spool_open(const char *path, pv_spool **out, pv_error *err)
{
    *out = NULL;
    pthread_mutex_lock(&registry_lock);
    int fd;
    struct stat st;
    int rc = open_source(path, &fd, &st, err);
    if (rc == 0) {
        pv_spool *s = find_spool((uint64_t)st.st_dev, (uint64_t)st.st_ino);
        if (s) {
            /* already read: the spool has its bytes, the source the rest */
            close(fd);
            s->refs++;
            *out = s;
        } else if ((rc = new_spool(path, fd, &st, &s, err)) == 0) {
            keep_library_loaded();
            s->next = registry;
            registry = s;
            *out = s;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    return rc;
}

static void unlink_entry(pv_spool *s)
{
    for (pv_spool **p = &registry; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return;
        }
}

void pv_spool_release(pv_spool *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&registry_lock);
    bool drop = false;
    if (--s->refs == 0) {
        pthread_mutex_lock(&s->lock);
        drop = s->reopenable && s->ended;
        pthread_mutex_unlock(&s->lock);
        if (drop)
            unlink_entry(s);
    }
    pthread_mutex_unlock(&registry_lock);
    if (drop)
        free_spool(s);
}

/* The entries no opening holds, when the library goes. */
__attribute__((destructor)) static void free_unheld_spools(void)
{
    pthread_mutex_lock(&registry_lock);
    for (pv_spool **p = &registry; *p;) {
        pv_spool *s = *p;
        if (s->refs == 0) {
            *p = s->next;
            free_spool(s);
        } else {
            p = &s->next;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

static int write_all(int fd, const uint8_t *bytes, size_t n, uint64_t offset)
{
    size_t done = 0;
    while (done < n) {
        ssize_t put = pwrite(fd, bytes + done, n - done, (off_t)(offset + done));
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0)
            return errno;
        done += (size_t)put;
    }
    return 0;
}

/* One wait of at most POLL_MS for the source, and what it had.  Runs
 * unlocked, by the one filler; *got: bytes added, 0 with *ended at the
 * end of the stream. */
static int take_from_source(pv_spool *s, uint64_t at, size_t *got, bool *ended, bool *write_err)
{
    *got = 0;
    *ended = false;
    *write_err = false;
    struct pollfd p = {.fd = s->source_fd, .events = POLLIN};
    int ready = poll(&p, 1, POLL_MS);
    if (ready < 0)
        return errno == EINTR ? 0 : errno;
    if (ready == 0)
        return 0;
    ssize_t n = read(s->source_fd, s->chunk, CHUNK);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK ? 0 : errno;
    if (n == 0) {
        *ended = true;
        return 0;
    }
    int rc = write_all(s->spool_fd, s->chunk, (size_t)n, at);
    if (rc) {
        *write_err = true;
        return rc;
    }
    *got = (size_t)n;
    return 0;
}

static int fill_failure(const pv_spool *s, const char *what, pv_error *err)
{
    if (s->write_failed)
        return pv_error_set(err, "%s: cannot spool the stream to a temporary file in %s "
                            "(TMPDIR chooses where), at offset 0x%llx: %s", what, s->spool_dir,
                            (unsigned long long)s->size, strerror(s->source_errno));
    return pv_error_set(err, "%s: cannot read the stream at offset 0x%llx: %s", what,
                        (unsigned long long)s->size, strerror(s->source_errno));
}

static void wait_a_while(pv_spool *s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += POLL_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&s->changed, &s->lock, &until);
}

int pv_spool_fill(pv_spool *s, uint64_t end, const pv_stop *stop, const char *what,
                  pv_error *err)
{
    pthread_mutex_lock(&s->lock);
    int rc = 0;
    while (s->size < end && !s->ended) {
        if (s->source_errno) {
            rc = fill_failure(s, what, err);
            break;
        }
        if (s->filling) {
            /* another reader is taking bytes: they are ours too */
            wait_a_while(s);
        } else {
            s->filling = true;
            uint64_t at = s->size;
            pthread_mutex_unlock(&s->lock);
            size_t got;
            bool ended, write_err;
            int failed = take_from_source(s, at, &got, &ended, &write_err);
            pthread_mutex_lock(&s->lock);
            s->filling = false;
            s->size += got;
            s->ended = s->ended || ended;
            if (failed) {
                s->source_errno = failed;
                s->write_failed = write_err;
            }
            pthread_cond_broadcast(&s->changed);
        }
        if (s->size >= end || s->ended)
            break;
        pthread_mutex_unlock(&s->lock);
        rc = pv_stop_check_point(stop, what, err);
        pthread_mutex_lock(&s->lock);
        if (rc)
            break;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

uint64_t pv_spool_size(pv_spool *s, bool *ended)
{
    pthread_mutex_lock(&s->lock);
    uint64_t size = s->size;
    if (ended)
        *ended = s->ended;
    pthread_mutex_unlock(&s->lock);
    return size;
}

int pv_spool_read(pv_spool *s, uint64_t offset, void *buf, uint64_t n, const char *what,
                  pv_error *err)
{
    uint8_t *out = buf;
    uint64_t done = 0;
    while (done < n) {
        ssize_t got = pread(s->spool_fd, out + done, (size_t)(n - done), (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return pv_error_set(err, "%s: cannot read %llu bytes at offset 0x%llx of the stream's "
                                "spool in %s: %s", what, (unsigned long long)(n - done),
                                (unsigned long long)(offset + done), s->spool_dir,
                                got < 0 ? strerror(errno) : "it ends there");
        done += (uint64_t)got;
    }
    return 0;
}
