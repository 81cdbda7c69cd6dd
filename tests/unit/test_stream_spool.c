/*
 * Unit tests of src/base/stream_spool.c: a pipe and a FIFO spooled as their
 * bytes arrive; one spool per source however it is named; a wait that stops
 * when asked; what the registry keeps once the last opening lets go (an
 * anonymous pipe's spool, the only copy of its bytes) and what it drops (a
 * FIFO that ended: its next writer brings a new stream); TMPDIR.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/stream_spool.h"
#include "unit_check.h"

static void fill_bytes(uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 7 + seed);
}

static bool write_all(int fd, const uint8_t *b, size_t n)
{
    return write(fd, b, n) == (ssize_t)n;
}

/* A stop that says stop from its third question on. */
static int asked;
static bool stop_on_third(void *arg)
{
    (void)arg;
    return ++asked >= 3;
}

static bool spool_holds(pv_spool *s, const uint8_t *want, size_t n)
{
    uint8_t got[512];
    pv_error err;
    return n <= sizeof got && pv_spool_read(s, 0, got, n, "spool", &err) == 0 &&
           memcmp(got, want, n) == 0;
}

static void anonymous_pipe(void)
{
    int fds[2];
    if (pipe(fds) != 0) {
        check(false, "a pipe", "pipe() failed");
        return;
    }
    char path[64], other[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
    snprintf(other, sizeof other, "/dev/fd/%d", fds[0]);
    check(pv_spool_is_stream(path), "a pipe's /proc/self/fd path is a stream", "it is not");
    check(pv_spool_is_stream("-"), "'-' is a stream", "it is not");
    check(!pv_spool_is_stream("/") && !pv_spool_is_stream("/no/such/path"),
          "a directory and a missing path are not streams", "one is");

    uint8_t bytes[200];
    fill_bytes(bytes, sizeof bytes, 1);
    pv_error err;
    pv_spool *a = NULL, *b = NULL;
    check(pv_spool_open(path, &a, &err) == 0, "a pipe opens as a spool", "%s", err.msg);
    check(pv_spool_open(other, &b, &err) == 0 && a == b,
          "the same pipe by another path is the same spool", "%p and %p", (void *)a, (void *)b);
    if (!a || !b)
        return;
    write_all(fds[1], bytes, 100);
    bool ended = true;
    check(pv_spool_fill(a, 50, NULL, "pipe", &err) == 0 && pv_spool_size(a, &ended) >= 50 && !ended,
          "a fill returns once the bytes asked for are in, before the end", "size %llu, ended %d",
          (unsigned long long)pv_spool_size(a, NULL), ended);

    pv_stop stop = {stop_on_third, NULL, pthread_self()};
    asked = 0;
    int rc = pv_spool_fill(a, 150, &stop, "pipe", &err);
    check(rc == -1 && err.kind == PV_ERROR_STOPPED && strstr(err.msg, "pipe: interrupted"),
          "a fill waiting for a stalled writer stops when asked", "rc %d, kind %d, [%s]", rc,
          (int)err.kind, rc ? err.msg : "");

    write_all(fds[1], bytes + 100, 100);
    close(fds[1]);
    check(pv_spool_fill(b, UINT64_MAX, NULL, "pipe", &err) == 0 &&
          pv_spool_size(b, &ended) == 200 && ended,
          "a fill to the end reads every byte and sees the end", "size %llu",
          (unsigned long long)pv_spool_size(b, NULL));
    check(spool_holds(a, bytes, 200), "the spool holds the bytes in order", "it does not");

    pv_spool_release(a);
    pv_spool_release(b);
    pv_spool *c = NULL;
    check(pv_spool_open(path, &c, &err) == 0 && c && pv_spool_size(c, NULL) == 200 &&
          spool_holds(c, bytes, 200),
          "an anonymous pipe's spool outlives its openings: a new one reads its bytes",
          "size %llu", c ? (unsigned long long)pv_spool_size(c, NULL) : 0ull);
    pv_spool_release(c);
    close(fds[0]);
}

struct writer {
    const char *path;
    uint8_t bytes[64];
};

static void *write_fifo(void *arg)
{
    struct writer *w = arg;
    int fd = open(w->path, O_WRONLY);
    if (fd >= 0) {
        write_all(fd, w->bytes, sizeof w->bytes);
        close(fd);
    }
    return NULL;
}

/* One writer's stream through the FIFO, read to its end. */
static pv_spool *read_fifo(const char *path, struct writer *w, pv_error *err)
{
    pthread_t t;
    pv_spool *s = NULL;
    if (pv_spool_open(path, &s, err) == 0) {
        pthread_create(&t, NULL, write_fifo, w);
        if (pv_spool_fill(s, UINT64_MAX, NULL, path, err) != 0) {
            pv_spool_release(s);
            s = NULL;
        }
        pthread_join(t, NULL);
    }
    return s;
}

static void named_fifo(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fifo", dir);
    if (mkfifo(path, 0600) != 0) {
        check(false, "a FIFO", "mkfifo failed");
        return;
    }
    struct writer first = {path, {0}}, second = {path, {0}};
    fill_bytes(first.bytes, sizeof first.bytes, 3);
    fill_bytes(second.bytes, sizeof second.bytes, 9);
    pv_error err;
    pv_spool *s = read_fifo(path, &first, &err);
    check(s && pv_spool_size(s, NULL) == sizeof first.bytes && spool_holds(s, first.bytes, 64),
          "a FIFO's writer's bytes, read to the end", "%s", s ? "other bytes" : err.msg);
    pv_spool_release(s);
    s = read_fifo(path, &second, &err);
    check(s && pv_spool_size(s, NULL) == sizeof second.bytes && spool_holds(s, second.bytes, 64),
          "a FIFO that ended and was let go: its next writer is a new stream", "%s",
          s ? "the old bytes" : err.msg);
    pv_spool_release(s);
    unlink(path);
}

static void unusable_tmpdir(const char *dir)
{
    int fds[2];
    if (pipe(fds) != 0)
        return;
    char path[64], absent[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
    snprintf(absent, sizeof absent, "%s/absent", dir);
    setenv("TMPDIR", absent, 1);
    pv_error err;
    pv_spool *s = NULL;
    int rc = pv_spool_open(path, &s, &err);
    check(rc == -1 && !s && strstr(err.msg, absent) && strstr(err.msg, "TMPDIR"),
          "a TMPDIR that cannot hold the spool: an error naming it", "rc %d [%s]", rc,
          rc ? err.msg : "");
    unsetenv("TMPDIR");
    close(fds[0]);
    close(fds[1]);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char template[512];
    snprintf(template, sizeof template, "%s/test_stream_spool.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *made = mkdtemp(template);
    if (!made) {
        check(false, "a scratch directory", "mkdtemp failed: %s", template);
        return 1;
    }
    anonymous_pipe();
    named_fifo(made);
    unusable_tmpdir(made);
    rmdir(made);
    return failures != 0;
}
