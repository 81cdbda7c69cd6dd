/*
 * A perf.data file as laid out on disk: header, attrs, feature index, data.
 *
 * Opening reads only the header, the attr section, the attrs' id lists and
 * the feature index, so it costs the same whatever the size of the data.
 * Records are walked by record_walk.h; samples decoded by sample.h; feature
 * sections by features.h, only when asked.
 *
 * File-mode layout (all integers in the writer's byte order):
 *
 *   offset  size  field
 *   0       8     magic "PERFILE2" (little-endian writer) or "2ELIFREP" (big)
 *   8       8     size of this header (104)
 *   16      8     attr_size: bytes per entry of the attr section
 *   24      16    attrs: {offset, size} of the attr section
 *   40      16    data: {offset, size} of the record stream
 *   56      16    event_types: {offset, size} (unused since 2.6.3x)
 *   72      32    adds_features: 256-bit bitmap of the feature sections
 *
 * An attr-section entry is a perf_event_attr of (attr_size - 16) bytes
 * followed by {offset, size} of an array of u64 sample ids.  After the data
 * section comes one {offset, size} per set bit of adds_features, in bit order.
 */
#ifndef PV_PERF_FILE_H
#define PV_PERF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/attr.h"
#include "base/pv_error.h"
#include "base/pv_stop.h"
#include "base/stream_spool.h"

#define PV_FEATURE_BITS 256
/* Kinds of derived state a file can carry (pv_file_state_set). */
#define PV_FILE_STATES 8

typedef struct pv_section {
    uint64_t offset;
    uint64_t size;
} pv_section;

typedef struct pv_file pv_file;

/* A further file of records: a directory written by `perf record --threads`
 * holds data.0, data.1, ... beside its `data`, each a bare stream of records
 * that follows the data section of `data` in the record stream. */
typedef struct pv_segment {
    char *path;
    int fd;
    uint64_t file_size;
    uint64_t mtime_ns;          /* when opened: a change shows in each read */
    uint64_t data_offset;
    uint64_t data_end;
} pv_segment;

struct pv_file {
    char *path;                 /* what the user gave */
    char *data_path;            /* the file actually read */
    /* The bytes are read with pread, never mapped: a file truncated while
     * a query runs gives an error, not SIGBUS in the host process, and
     * memory stays flat however big the file is. */
    int fd;
    uint64_t file_size;
    /* An image in memory instead of fd (pv_file_open_memory), not copied. */
    const uint8_t *memory;
    /* A stream ('-', a pipe, a FIFO) instead of fd: its bytes are read from
     * the spool, which takes them from the source as readers reach them
     * (base/stream_spool.h).  A pipe-mode stream's file_size and data
     * section grow as pv_file_stream_reach brings more in; a file-mode one
     * is spooled whole when opened (its header's sizes are written last). */
    pv_spool *spool;
    /* identity of the file when opened, to notice it being replaced */
    uint64_t dev, ino, mtime_ns;
    /* asked before every read (base/pv_stop.h); NULL: never stop */
    const pv_stop *stop;

    bool swap;                  /* written on a machine of the other byte order */
    bool pipe;                  /* pipe mode: attrs and features are records */
    uint64_t header_size;
    uint64_t attr_size;
    pv_section attr_section;
    pv_section data_section;
    pv_section event_types_section;
    uint64_t feature_bitmap[PV_FEATURE_BITS / 64];
    pv_section feature_sections[PV_FEATURE_BITS];
    /* pipe mode: where the record stream stopped making sense (trailing
     * bytes that are not a record), or 0 */
    uint64_t trailing_garbage_offset;
    /* perf record stopped before it finished (killed, out of memory, a
     * time-out): the header says data size 0 and no feature section was
     * written.  The data section is taken to run to the end of the file, a
     * record cut short at the end of a file of the recording ends its
     * records (record_walk.h), and the feature bits, set when perf started,
     * are cleared; unwritten_features counts them. */
    bool unfinished;
    unsigned unwritten_features;

    pv_attr *attrs;
    size_t nr_attrs;

    pv_segment *segments;       /* the data.N files, in order of N */
    size_t nr_segments;

    /* id -> attr index, sorted by id */
    struct pv_id_entry { uint64_t id; uint32_t attr_index; } *id_map;
    size_t nr_id_map;
    /* The same as a table indexed by id - id_base, when the ids lie close
     * together (perf numbers them in a row): a scan looks up every
     * sample's.  -1: no event.  NULL: search id_map. */
    int32_t *id_dense;
    uint64_t id_base, nr_id_dense;

    /* Where a record's event id sits, from the first attr's sample_type:
     * sample_id_word: u64 index after the header in a sample, or -1;
     * trailer_id_word: u64 index counted from the record's end in the
     * sample_id_all trailer (1 = last word), or -1. */
    int sample_id_word;
    int trailer_id_word;

    bool names_loaded;
    /* feature sections read so far, by feature bit (see pv_file_feature_bytes) */
    uint8_t *feature_cache[PV_FEATURE_BITS];
    /* What higher layers derive from the file once and keep with it (the
     * time index, the parsed tracepoint formats): see pv_file_state_get. */
    struct pv_file_state {
        const void *key;
        void *state;
        void (*free_state)(void *state);
    } states[PV_FILE_STATES];
    size_t nr_states;
};

/* Opens what the header describes: the header, attrs, feature index, the
 * data.N files of a directory, and the index of sample ids.  A pipe-mode
 * file (f->pipe) stops after the header: its attrs are records, which the
 * stream layer reads (file_open.h opens a recording of either kind), then
 * indexes with pv_file_index_ids.  A stream (pv_spool_is_stream) is
 * opened on its spool; its opening waits for its first bytes.  Every read
 * of the opening asks stop, left set on the file (pv_file_open clears it). */
int pv_file_open_header(const char *path, const pv_stop *stop, pv_file **out, pv_error *err);
/* The same over an image already in memory (a single file, not a
 * directory); the bytes must outlive the pv_file.  name is used in
 * messages. */
int pv_file_open_memory_header(const char *name, const uint8_t *bytes, uint64_t size,
                               pv_file **out, pv_error *err);
/* Builds the id -> attr index once every attr is known. */
int pv_file_index_ids(pv_file *f, pv_error *err);
void pv_file_close(pv_file *f);

bool pv_file_has_feature(const pv_file *f, unsigned id);
/* Where feature id's section lies in the file. */
static inline const pv_section *pv_file_feature_section(const pv_file *f, unsigned id)
{
    return &f->feature_sections[id];
}

/* The path the file was opened by: what the user gave. */
static inline const char *pv_file_path(const pv_file *f)
{
    return f->path;
}

/* The file's events, attr i for i below pv_file_nr_attrs, in the order
 * of the attr section (or of the pipe's attr records). */
static inline size_t pv_file_nr_attrs(const pv_file *f)
{
    return f->nr_attrs;
}

static inline const pv_attr *pv_file_attr(const pv_file *f, size_t i)
{
    return &f->attrs[i];
}
/* Copies n bytes at offset of a file of the recording into buf: segment 0 is
 * the perf.data itself, N + 1 its data.N.  A short read means the file
 * shrank since it was opened: an error naming the offset. */
/* Makes every later read of f (by any walk, scan or symbolizer over it)
 * ask stop first; pv_file_clear_stop(f, stop) undoes it if stop is still
 * the one set. */
static inline void pv_file_set_stop(pv_file *f, const pv_stop *stop)
{
    f->stop = stop;
}

static inline const pv_stop *pv_file_stop(const pv_file *f)
{
    return f->stop;
}

static inline void pv_file_clear_stop(pv_file *f, const pv_stop *stop)
{
    if (f->stop == stop)
        f->stop = NULL;
}

/* Whether f is read from a stream (pv_file.spool). */
static inline bool pv_file_is_stream(const pv_file *f)
{
    return f->spool != NULL;
}

/* A pipe-mode stream: waits (asking f's stop) until its bytes up to
 * offset end are in, or it ended, and brings file_size and the data
 * section up to what is in.  0 at once for other files. */
int pv_file_stream_reach(pv_file *f, uint64_t end, pv_error *err);

/* Whether f's file (its data file: the data.N files are checked as they are
 * read) is still the one opened: device, inode, modification time, size. */
bool pv_file_unchanged_on_disk(const pv_file *f);

int pv_file_read(const pv_file *f, size_t segment, uint64_t offset, void *buf, uint64_t n,
                 pv_error *err);
/* The bytes of a feature section, bounds-checked against the file; read on
 * first use and kept until the file is closed. */
int pv_file_feature_bytes(pv_file *f, unsigned id, const uint8_t **bytes,
                          uint64_t *size, uint64_t *offset, pv_error *err);

/* The attr whose id list holds id, or -1. */
int pv_file_search_attr_for_id(const pv_file *f, uint64_t id);
/* Inline: decoding looks up every sample's id. */
static inline int pv_file_attr_for_id(const pv_file *f, uint64_t id)
{
    if (f->id_dense)
        return id - f->id_base < f->nr_id_dense ? f->id_dense[id - f->id_base] : -1;
    return pv_file_search_attr_for_id(f, id);
}

/* State that a higher layer derives from the file and keeps for as long as
 * the file is open (the time index, the parsed tracepoint formats), so that
 * this layer need not know those types.  key is the address of something of
 * the owner's, unique to it.  get: true when state was set under key (it
 * may be NULL: "derived, nothing there").  set: takes ownership;
 * free_state (may be NULL) runs at pv_file_close; -1 when all
 * PV_FILE_STATES slots are taken or key is already set. */
bool pv_file_state_get(const pv_file *f, const void *key, void **state);
int pv_file_state_set(pv_file *f, const void *key, void *state, void (*free_state)(void *state),
                      pv_error *err);

/* Reads a perf_header_string (u32 len, then len bytes, NUL padded) at the
 * reader; used by features and EVENT_DESC. */
struct pv_byte_reader;
const char *pv_read_header_string(struct pv_byte_reader *c, uint64_t *len);

#endif
