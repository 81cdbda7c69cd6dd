/*
 * A stream of bytes (a pipe, a FIFO, a terminal, a socket: anything that is
 * read once and cannot be read again) copied to an unlinked temporary file as
 * it arrives, so that every later reading reads the copy with pread.
 *
 * Nothing is read ahead of what a reader asks for (pv_spool_fill), so the
 * first rows of a query come while the writer is still writing; and what has
 * been read stays on disk, in $TMPDIR (else /tmp), not in memory.
 *
 * The spools live in one registry per process, keyed by the device and inode
 * of what the bytes come from (the pipe behind fd 0, '/dev/stdin' and
 * '/proc/self/fd/0' alike; a FIFO's inode).  That key, not the path, is the
 * stream's identity: '-' and '/dev/stdin' name the same pipe, and a pipe read
 * by one connection has nothing left for another, so every opening in the
 * process must share the one copy.  The spool holds the source open, so no
 * other pipe can take its inode number while the entry lives.
 *
 * An entry lives while an opening holds it.  When the last lets go, it is
 * kept if its source can give nothing new (an anonymous pipe, a terminal:
 * the spool is the only copy of those bytes) or has not ended (a later
 * opening goes on where this one stopped); it is dropped, closing the spool
 * and freeing its disk, when its source is a FIFO that ended, whose next
 * writer brings a new stream.  Entries kept are freed when the process exits:
 * the first spool keeps the library loaded (an extension is unloaded with the
 * connection that loaded it, and would take the only copy of a consumed
 * pipe with it).
 */
#ifndef PV_STREAM_SPOOL_H
#define PV_STREAM_SPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "base/pv_stop.h"

typedef struct pv_spool pv_spool;

/* Whether path names a stream: "-" (standard input), or anything that is
 * neither a regular file nor a directory.  False for a path that does not
 * exist (the caller reports it). */
bool pv_spool_is_stream(const char *path);

/* The spool of the stream path names ("-": standard input), opened or
 * shared; released with pv_spool_release.  Waits for nothing. */
int pv_spool_open(const char *path, pv_spool **out, pv_error *err);
void pv_spool_release(pv_spool *s);

/* Reads from the source until the spool holds at least end bytes or the
 * source ended.  Waits for the writer in short polls, between which stop
 * is asked (what names the stream in messages).  Safe from any thread. */
int pv_spool_fill(pv_spool *s, uint64_t end, const pv_stop *stop, const char *what,
                  pv_error *err);
/* Bytes in the spool now, and whether the source has ended (then no more
 * will come). */
uint64_t pv_spool_size(pv_spool *s, bool *ended);
/* Copies n bytes at offset (already filled) from the spool. */
int pv_spool_read(pv_spool *s, uint64_t offset, void *buf, uint64_t n, const char *what,
                  pv_error *err);

#endif
