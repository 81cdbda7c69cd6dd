#include "format/perf_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/attr.h"
#include "base/byte_reader.h"
#include "base/pv_alloc.h"

#define PERF_MAGIC_LE "PERFILE2"
#define PERF_MAGIC_BE "2ELIFREP"
#define PERF_MAGIC_V1 "PERFFILE"
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define IDS_SECTION_SIZE 16
/* No real recording has more events than this; beyond it the file lies. */
#define MAX_ATTRS 65536
/* perf_event_attr is 136 bytes in 2026; an entry of more than this is not an attr. */
#define MAX_ATTR_SIZE (1u << 16)
/* Sample ids of all events together: one per event per cpu or thread. */
#define MAX_IDS (1u << 24)
/* A feature section is read whole into memory when asked for. */
#define MAX_FEATURE_SIZE ((uint64_t)1 << 30)

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = pv_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = pv_malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

static bool is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A directory names its profile: `data` for perf's directory format,
 * else a perf.data inside it. */
static char *resolve_data_path(const char *path, pv_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return pv_error_set(err, "%s: cannot open: %s", path, strerror(errno)), NULL;
    if (S_ISREG(st.st_mode)) {
        char *copy = dup_string(path);
        if (!copy)
            pv_error_set(err, "%s: out of memory", path);
        return copy;
    }
    if (!S_ISDIR(st.st_mode)) {
        pv_error_set(err, "%s: not a regular file or a perf.data directory", path);
        return NULL;
    }
    static const char *const names[] = {"data", "perf.data"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *candidate = join_path(path, names[i]);
        if (!candidate)
            return pv_error_set(err, "%s: out of memory", path), NULL;
        if (is_regular_file(candidate))
            return candidate;
        free(candidate);
    }
    pv_error_set(err, "%s: is a directory with neither a perf.data nor a data file inside", path);
    return NULL;
}

static uint64_t mtime_of(const struct stat *st)
{
    return (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
}

/* Opens a regular file for reading; its size in *size. */
static int open_regular(const char *path, int *fd, uint64_t *size, struct stat *st_out,
                        pv_error *err)
{
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return pv_error_set(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(*fd, &st) != 0)
        return pv_error_set(err, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return pv_error_set(err, "%s: not a regular file", path);
    if (st_out)
        *st_out = st;
    *size = (uint64_t)st.st_size;
    return 0;
}

/* A stream: its first 16 bytes say the layout.  A pipe-mode stream is read
 * as it arrives; a file-mode one (a perf.data file sent through a pipe) is
 * spooled to its end first, as its header's sizes and its feature index
 * come last. */
static int open_stream(pv_file *f, pv_error *err)
{
    if (pv_spool_open(f->path, &f->spool, err) ||
        pv_spool_fill(f->spool, PIPE_HEADER_SIZE, f->stop, f->path, err))
        return -1;
    f->file_size = pv_spool_size(f->spool, NULL);
    if (f->file_size == 0)
        return pv_error_set(err, "%s: empty stream (offset 0x0): not a perf.data file", f->path);
    uint8_t header[PIPE_HEADER_SIZE];
    if (f->file_size < PIPE_HEADER_SIZE ||
        pv_spool_read(f->spool, 0, header, PIPE_HEADER_SIZE, f->path, err))
        return f->file_size < PIPE_HEADER_SIZE ? 0 : -1;   /* read_header says why */
    bool swap = memcmp(header, PERF_MAGIC_BE, 8) == 0;
    if (pv_load_u64(header + 8, swap) != PIPE_HEADER_SIZE) {
        if (pv_spool_fill(f->spool, UINT64_MAX, f->stop, f->path, err))
            return -1;
        f->file_size = pv_spool_size(f->spool, NULL);
    }
    return 0;
}

static int open_file(pv_file *f, pv_error *err)
{
    struct stat st;
    if (open_regular(f->data_path, &f->fd, &f->file_size, &st, err))
        return -1;
    f->dev = (uint64_t)st.st_dev;
    f->ino = (uint64_t)st.st_ino;
    f->mtime_ns = mtime_of(&st);
    if (f->file_size == 0)
        return pv_error_set(err, "%s: empty file (offset 0x0): not a perf.data file", f->data_path);
    return 0;
}

/*
 * Whether fd is still the file as opened.  A file rewritten in place keeps
 * its inode but not its modification time or size: the kernel updates the
 * time before a write changes the bytes, so a read that finds it unchanged
 * afterwards read the bytes as they were.  Rows therefore come wholly from
 * one version of the file; the first read after a change is an error.
 */
static int check_unchanged(int fd, const char *path, uint64_t size, uint64_t mtime_ns,
                           pv_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return pv_error_set(err, "%s: cannot stat: %s", path, strerror(errno));
    if ((uint64_t)st.st_size != size || mtime_of(&st) != mtime_ns)
        return pv_error_set(err, "%s: the file changed while it was being read (now %llu bytes, "
                            "%llu when opened): the rows before this error came from it as it "
                            "was; query it again to read it as it is now", path,
                            (unsigned long long)st.st_size, (unsigned long long)size);
    return 0;
}

static int read_fd(int fd, const char *path, uint64_t size, uint64_t mtime_ns, uint64_t offset,
                   uint8_t *buf, uint64_t n, pv_error *err)
{
    uint64_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, buf + done, (size_t)(n - done), (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return pv_error_set(err, "%s: cannot read %llu bytes at offset 0x%llx: %s", path,
                                (unsigned long long)(n - done),
                                (unsigned long long)(offset + done), strerror(errno));
        if (got == 0)
            return pv_error_set(err, "%s: the file ends at offset 0x%llx, before the %llu bytes "
                                "to read there: it shrank after it was opened", path,
                                (unsigned long long)(offset + done),
                                (unsigned long long)(n - done));
        done += (uint64_t)got;
    }
    return check_unchanged(fd, path, size, mtime_ns, err);
}

/* A stream's bytes, taken from its source first if they are not in yet. */
static int read_stream(const pv_file *f, uint64_t offset, void *buf, uint64_t n, pv_error *err)
{
    uint64_t end = n > UINT64_MAX - offset ? UINT64_MAX : offset + n;
    if (pv_spool_fill(f->spool, end, f->stop, f->path, err))
        return -1;
    uint64_t have = pv_spool_size(f->spool, NULL);
    if (offset > have || have - offset < n)
        return pv_error_set(err, "%s: the stream ends at offset 0x%llx, before the %llu bytes to "
                            "read at offset 0x%llx", f->path, (unsigned long long)have,
                            (unsigned long long)n, (unsigned long long)offset);
    return pv_spool_read(f->spool, offset, buf, n, f->path, err);
}

int pv_file_stream_reach(pv_file *f, uint64_t end, pv_error *err)
{
    /* file_size is what the spool held when last asked: it only grows */
    if (!f->spool || !f->pipe || end <= f->file_size)
        return 0;
    if (pv_spool_fill(f->spool, end, f->stop, f->path, err))
        return -1;
    f->file_size = pv_spool_size(f->spool, NULL);
    f->data_section.size = f->file_size - f->data_section.offset;
    return 0;
}

int pv_file_read(const pv_file *f, size_t segment, uint64_t offset, void *buf, uint64_t n,
                 pv_error *err)
{
    /* every read of a recording's bytes is a point where long work (a scan,
     * building an index or a profile) stops when asked */
    if (pv_stop_check_point(f->stop, f->path, err))
        return -1;
    if (segment == 0 && f->spool)
        return read_stream(f, offset, buf, n, err);
    if (segment > 0) {
        const pv_segment *s = &f->segments[segment - 1];
        return read_fd(s->fd, s->path, s->file_size, s->mtime_ns, offset, buf, n, err);
    }
    if (f->memory) {
        if (offset > f->file_size || f->file_size - offset < n)
            return pv_error_set(err, "%s: %llu bytes at offset 0x%llx are past the end (0x%llx)",
                                f->data_path, (unsigned long long)n, (unsigned long long)offset,
                                (unsigned long long)f->file_size);
        memcpy(buf, f->memory + offset, (size_t)n);
        return 0;
    }
    return read_fd(f->fd, f->data_path, f->file_size, f->mtime_ns, offset, buf, n, err);
}

bool pv_file_unchanged_on_disk(const pv_file *f)
{
    struct stat st;
    if (f->spool)
        return true;    /* the spool is this process's copy: it only grows */
    if (f->memory || stat(f->data_path, &st) != 0)
        return f->memory != NULL;
    return (uint64_t)st.st_dev == f->dev && (uint64_t)st.st_ino == f->ino &&
           mtime_of(&st) == f->mtime_ns && (uint64_t)st.st_size == f->file_size;
}

/* n bytes at offset into a new buffer the caller frees. */
static uint8_t *read_new(const pv_file *f, uint64_t offset, uint64_t n, pv_error *err)
{
    uint8_t *buf = pv_malloc(n ? (size_t)n : 1);
    if (!buf) {
        pv_error_set(err, "%s: out of memory for %llu bytes at offset 0x%llx", f->data_path,
                     (unsigned long long)n, (unsigned long long)offset);
        return NULL;
    }
    if (pv_file_read(f, 0, offset, buf, n, err)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A section must lie inside the file; checked without overflow. */
static int check_section(const pv_file *f, const pv_section *s, const char *what,
                         uint64_t where, pv_error *err)
{
    if (s->offset > f->file_size || f->file_size - s->offset < s->size)
        return pv_error_set(err,
            "%s: %s section at offset 0x%llx size 0x%llx (declared at offset 0x%llx) "
            "goes past the end of the file (size 0x%llx): truncated or corrupt",
            f->data_path, what, (unsigned long long)s->offset,
            (unsigned long long)s->size, (unsigned long long)where,
            (unsigned long long)f->file_size);
    return 0;
}

static pv_section read_section(pv_byte_reader *c)
{
    pv_section s;
    s.offset = pv_bytes_u64(c);
    s.size = pv_bytes_u64(c);
    return s;
}

static int read_header(pv_file *f, pv_error *err)
{
    if (f->file_size < 8)
        return pv_error_set(err, "%s: file of %llu bytes is too short for the perf.data magic at offset 0x0",
                            f->data_path, (unsigned long long)f->file_size);
    uint8_t header[FILE_HEADER_SIZE];
    uint64_t have = f->file_size < FILE_HEADER_SIZE ? f->file_size : FILE_HEADER_SIZE;
    if (pv_file_read(f, 0, 0, header, have, err))
        return -1;
    if (memcmp(header, PERF_MAGIC_LE, 8) == 0)
        f->swap = false;
    else if (memcmp(header, PERF_MAGIC_BE, 8) == 0)
        f->swap = true;
    else if (memcmp(header, PERF_MAGIC_V1, 8) == 0)
        return pv_error_set(err, "%s: magic PERFFILE at offset 0x0: the version 1 perf.data format "
                            "(perf before Linux 2.6.35) is not supported", f->data_path);
    else
        return pv_error_set(err, "%s: bad magic at offset 0x0: not a perf.data file", f->data_path);

    pv_byte_reader c;
    pv_byte_reader_init(&c, header, have, 0, f->swap);
    pv_bytes_skip(&c, 8);
    f->header_size = pv_bytes_u64(&c);
    if (c.failed)
        return pv_error_set(err, "%s: truncated header: file ends at offset 0x%llx",
                            f->data_path, (unsigned long long)f->file_size);
    if (f->header_size == PIPE_HEADER_SIZE) {
        /* Pipe mode: records follow the 16-byte header to the end of the
         * file; attrs and features come as records (pipe_header.c). */
        f->pipe = true;
        f->data_section.offset = PIPE_HEADER_SIZE;
        f->data_section.size = f->file_size - PIPE_HEADER_SIZE;
        return 0;
    }
    if (f->header_size > f->file_size)
        return pv_error_set(err, "%s: truncated header: header size %llu at offset 0x8 but the file ends at offset 0x%llx",
                                f->data_path, (unsigned long long)f->header_size,
                                (unsigned long long)f->file_size);
    if (f->header_size < FILE_HEADER_SIZE - 32)
        return pv_error_set(err, "%s: header size %llu at offset 0x8 is too small for a perf.data header",
                            f->data_path, (unsigned long long)f->header_size);
    pv_byte_reader_init(&c, header, f->header_size < have ? f->header_size : have, 0, f->swap);
    pv_bytes_skip(&c, 16);
    f->attr_size = pv_bytes_u64(&c);
    f->attr_section = read_section(&c);
    f->data_section = read_section(&c);
    f->event_types_section = read_section(&c);
    /* Files from before the feature bitmap have a shorter header. */
    for (int i = 0; i < PV_FEATURE_BITS / 64 && pv_bytes_left(&c) >= 8; i++) {
        f->feature_bitmap[i] = pv_bytes_u64(&c);
    }
    if (c.failed)
        return pv_error_set(err, "%s: truncated header at offset 0x%llx",
                            f->data_path, (unsigned long long)c.fail_offset);
    if (check_section(f, &f->attr_section, "attr", 24, err) ||
        check_section(f, &f->data_section, "data", 40, err))
        return -1;
    return 0;
}

/* One attr-section entry: the attr, then {offset, size} of its ids. */
static int read_attr_entry(pv_file *f, uint64_t i, const uint8_t *entry, uint64_t at,
                           uint64_t *total_ids, pv_error *err)
{
    pv_attr *a = &f->attrs[i];
    pv_byte_reader c;
    pv_byte_reader_init(&c, entry, f->attr_size, at, f->swap);
    if (pv_attr_decode(&c, f->attr_size - IDS_SECTION_SIZE, a, f->data_path, err))
        return -1;
    pv_section ids = read_section(&c);
    if (ids.size % 8 != 0)
        return pv_error_set(err, "%s: id list of event %llu (declared at offset 0x%llx) has size %llu, not a multiple of 8",
                            f->data_path, (unsigned long long)i,
                            (unsigned long long)(at + f->attr_size - 16), (unsigned long long)ids.size);
    if (check_section(f, &ids, "event id", at + f->attr_size - 16, err))
        return -1;
    a->nr_ids = ids.size / 8;
    if (a->nr_ids > MAX_IDS - *total_ids)
        return pv_error_set(err, "%s: id list of event %llu at offset 0x%llx brings the events' "
                            "ids to more than %u", f->data_path, (unsigned long long)i,
                            (unsigned long long)ids.offset, MAX_IDS);
    *total_ids += a->nr_ids;
    if (a->nr_ids) {
        uint8_t *raw = read_new(f, ids.offset, ids.size, err);
        a->ids = pv_malloc((size_t)ids.size);
        if (!raw || !a->ids) {
            free(raw);
            return raw ? pv_error_set(err, "%s: out of memory", f->data_path) : -1;
        }
        pv_byte_reader idc;
        pv_byte_reader_init(&idc, raw, ids.size, ids.offset, f->swap);
        for (uint64_t k = 0; k < a->nr_ids; k++)
            a->ids[k] = pv_bytes_u64(&idc);
        free(raw);
    }
    return 0;
}

static int read_attrs(pv_file *f, pv_error *err)
{
    if (f->attr_size <= IDS_SECTION_SIZE || f->attr_size - IDS_SECTION_SIZE < PV_ATTR_SIZE_VER0)
        return pv_error_set(err, "%s: attr_size %llu at offset 0x10 is too small for a perf_event_attr",
                            f->data_path, (unsigned long long)f->attr_size);
    if (f->attr_section.size % f->attr_size != 0)
        return pv_error_set(err, "%s: attr section at offset 0x%llx has size %llu, not a multiple of attr_size %llu",
                            f->data_path, (unsigned long long)f->attr_section.offset,
                            (unsigned long long)f->attr_section.size, (unsigned long long)f->attr_size);
    uint64_t nr = f->attr_section.size / f->attr_size;
    if (nr == 0)
        return pv_error_set(err, "%s: attr section at offset 0x%llx is empty: the file records no event",
                            f->data_path, (unsigned long long)f->attr_section.offset);
    if (nr > MAX_ATTRS)
        return pv_error_set(err, "%s: attr section at offset 0x%llx declares %llu events (more than %d)",
                            f->data_path, (unsigned long long)f->attr_section.offset,
                            (unsigned long long)nr, MAX_ATTRS);
    if (f->attr_size > MAX_ATTR_SIZE)
        return pv_error_set(err, "%s: attr_size %llu at offset 0x10 is too large for a perf_event_attr "
                            "(more than %u bytes)", f->data_path,
                            (unsigned long long)f->attr_size, MAX_ATTR_SIZE);
    f->attrs = pv_calloc((size_t)nr, sizeof *f->attrs);
    uint8_t *entry = pv_malloc((size_t)f->attr_size);
    if (!f->attrs || !entry) {
        free(entry);
        return pv_error_set(err, "%s: out of memory", f->data_path);
    }
    f->nr_attrs = (size_t)nr;
    uint64_t total_ids = 0;
    int rc = 0;
    for (uint64_t i = 0; i < nr && rc == 0; i++) {
        uint64_t at = f->attr_section.offset + i * f->attr_size;
        rc = pv_file_read(f, 0, at, entry, f->attr_size, err) ||
             read_attr_entry(f, i, entry, at, &total_ids, err) ? -1 : 0;
    }
    free(entry);
    return rc;
}

static int compare_id_entries(const void *a, const void *b);
static void index_ids_densely(pv_file *f);

/* data.0, data.1, ... beside a directory's `data`, while they exist. */
#define MAX_SEGMENTS 4096

static int open_segments(pv_file *f, pv_error *err)
{
    size_t n = strlen(f->data_path);
    if (f->memory || n < 5 || strcmp(f->data_path + n - 5, "/data") != 0)
        return 0;
    for (size_t k = 0; k < MAX_SEGMENTS; k++) {
        char *path = pv_malloc(n + 24);
        if (!path)
            return pv_error_set(err, "%s: out of memory", f->data_path);
        snprintf(path, n + 24, "%s.%zu", f->data_path, k);
        if (!is_regular_file(path)) {
            free(path);
            return 0;
        }
        pv_segment *grown = pv_realloc(f->segments, (f->nr_segments + 1) * sizeof *grown);
        if (!grown) {
            free(path);
            return pv_error_set(err, "%s: out of memory", f->data_path);
        }
        f->segments = grown;
        pv_segment *s = &f->segments[f->nr_segments++];
        memset(s, 0, sizeof *s);
        s->path = path;
        s->fd = -1;
        struct stat st;
        if (open_regular(path, &s->fd, &s->file_size, &st, err))
            return -1;
        s->mtime_ns = mtime_of(&st);
        s->data_offset = 0;
        s->data_end = s->file_size;
    }
    return 0;
}

/* The id -> event map every multi-event lookup goes through. */
static int index_ids(pv_file *f, pv_error *err)
{
    uint64_t total_ids = 0;
    for (size_t i = 0; i < f->nr_attrs; i++)
        total_ids += f->attrs[i].nr_ids;
    f->id_map = pv_calloc(total_ids ? (size_t)total_ids : 1, sizeof *f->id_map);
    if (!f->id_map)
        return pv_error_set(err, "%s: out of memory", f->data_path);
    for (size_t i = 0; i < f->nr_attrs; i++)
        for (uint64_t k = 0; k < f->attrs[i].nr_ids; k++) {
            f->id_map[f->nr_id_map].id = f->attrs[i].ids[k];
            f->id_map[f->nr_id_map].attr_index = (uint32_t)i;
            f->nr_id_map++;
        }
    qsort(f->id_map, f->nr_id_map, sizeof *f->id_map, compare_id_entries);
    index_ids_densely(f);
    return 0;
}

/* Ids spread over at most this many numbers get a dense table. */
#define DENSE_ID_SPAN_LIMIT 65536u

static void index_ids_densely(pv_file *f)
{
    free(f->id_dense);
    f->id_dense = NULL;
    f->nr_id_dense = 0;
    if (f->nr_id_map == 0)
        return;
    uint64_t base = f->id_map[0].id;
    uint64_t span = f->id_map[f->nr_id_map - 1].id - base;   /* sorted: no overflow */
    if (span >= DENSE_ID_SPAN_LIMIT)
        return;
    int32_t *dense = pv_malloc((size_t)(span + 1) * sizeof *dense);
    if (!dense)
        return;     /* the search still answers */
    for (uint64_t i = 0; i <= span; i++)
        dense[i] = -1;
    for (size_t i = 0; i < f->nr_id_map; i++) {
        /* an id two events list: left to the search, whose pick it is */
        if (i > 0 && f->id_map[i].id == f->id_map[i - 1].id) {
            free(dense);
            return;
        }
        dense[f->id_map[i].id - base] = (int32_t)f->id_map[i].attr_index;
    }
    f->id_dense = dense;
    f->id_base = base;
    f->nr_id_dense = span + 1;
}

static int compare_id_entries(const void *a, const void *b)
{
    uint64_t x = ((const struct pv_id_entry *)a)->id;
    uint64_t y = ((const struct pv_id_entry *)b)->id;
    return x < y ? -1 : x > y;
}

int pv_file_search_attr_for_id(const pv_file *f, uint64_t id)
{
    size_t lo = 0, hi = f->nr_id_map;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->id_map[mid].id < id)
            lo = mid + 1;
        else if (f->id_map[mid].id > id)
            hi = mid;
        else
            return (int)f->id_map[mid].attr_index;
    }
    return -1;
}

/* Whether the bytes at c are the feature index perf writes when it
 * finishes: a section for every feature bit, after the data, in the file. */
static bool feature_index_written(const pv_file *f, pv_byte_reader c)
{
    uint64_t data_end = f->data_section.offset + f->data_section.size;
    unsigned sections = 0;
    for (unsigned bit = 0; bit < PV_FEATURE_BITS; bit++) {
        if (!pv_file_has_feature(f, bit))
            continue;
        pv_section s = read_section(&c);
        if (c.failed || s.offset < data_end || s.offset > f->file_size ||
            f->file_size - s.offset < s.size)
            return false;
        sections++;
    }
    /* without features, nothing follows the data */
    return sections > 0;
}

/* perf record writes the header when it starts, with data size 0, and
 * rewrites it with the sizes after the feature sections when it finishes.
 * Data size 0 with bytes after the data offset that are not a feature index
 * is a recording that never finished: its records run to the end of the
 * file and its features were never written (see pv_file.unfinished). */
static void notice_unfinished(pv_file *f, pv_byte_reader index)
{
    if (f->data_section.size != 0 || f->data_section.offset >= f->file_size ||
        feature_index_written(f, index))
        return;
    f->unfinished = true;
    f->data_section.size = f->file_size - f->data_section.offset;
    for (unsigned i = 0; i < PV_FEATURE_BITS / 64; i++) {
        f->unwritten_features += (unsigned)__builtin_popcountll(f->feature_bitmap[i]);
        f->feature_bitmap[i] = 0;
    }
}

static int read_feature_index(pv_file *f, pv_error *err)
{
    uint64_t data_end = f->data_section.offset + f->data_section.size;
    uint8_t index[PV_FEATURE_BITS * 16];
    uint64_t have = f->file_size - data_end < sizeof index ? f->file_size - data_end : sizeof index;
    if (pv_file_read(f, 0, data_end, index, have, err))
        return -1;
    pv_byte_reader c;
    pv_byte_reader_init(&c, index, have, data_end, f->swap);
    notice_unfinished(f, c);
    for (unsigned bit = 0; bit < PV_FEATURE_BITS; bit++) {
        if (!pv_file_has_feature(f, bit))
            continue;
        uint64_t where = pv_bytes_offset(&c);
        pv_section s = read_section(&c);
        if (c.failed)
            return pv_error_set(err, "%s: truncated feature index: entry for feature %u at offset 0x%llx "
                                "goes past the end of the file (size 0x%llx)",
                                f->data_path, bit, (unsigned long long)where,
                                (unsigned long long)f->file_size);
        f->feature_sections[bit] = s;
    }
    return 0;
}

bool pv_file_has_feature(const pv_file *f, unsigned id)
{
    return id < PV_FEATURE_BITS && ((f->feature_bitmap[id / 64] >> (id % 64)) & 1);
}

int pv_file_feature_bytes(pv_file *f, unsigned id, const uint8_t **bytes,
                          uint64_t *size, uint64_t *offset, pv_error *err)
{
    if (!pv_file_has_feature(f, id))
        return pv_error_set(err, "%s: has no feature %u", f->data_path, id);
    const pv_section *s = &f->feature_sections[id];
    if (check_section(f, s, "feature", s->offset, err))
        return -1;
    if (f->memory) {
        *bytes = f->memory + s->offset;
    } else {
        if (!f->feature_cache[id]) {
            if (s->size > MAX_FEATURE_SIZE)
                return pv_error_set(err, "%s: feature %u section at offset 0x%llx has size %llu "
                                    "(more than %llu)", f->data_path, id,
                                    (unsigned long long)s->offset, (unsigned long long)s->size,
                                    (unsigned long long)MAX_FEATURE_SIZE);
            f->feature_cache[id] = read_new(f, s->offset, s->size, err);
            if (!f->feature_cache[id])
                return -1;
        }
        *bytes = f->feature_cache[id];
    }
    *size = s->size;
    *offset = s->offset;
    return 0;
}

/* Which u64 of a record carries the event id, from a sample_type. */
static void locate_ids(pv_file *f)
{
    uint64_t t = f->attrs[0].sample_type;
    f->sample_id_word = -1;
    f->trailer_id_word = -1;
    if (t & PV_SAMPLE_IDENTIFIER) {
        f->sample_id_word = 0;
        f->trailer_id_word = 1;
    } else if (t & PV_SAMPLE_ID) {
        int before = 0;
        if (t & PV_SAMPLE_IP) before++;
        if (t & PV_SAMPLE_TID) before++;
        if (t & PV_SAMPLE_TIME) before++;
        if (t & PV_SAMPLE_ADDR) before++;
        f->sample_id_word = before;
        int after = 1;
        if (t & PV_SAMPLE_CPU) after++;
        if (t & PV_SAMPLE_STREAM_ID) after++;
        f->trailer_id_word = after;
    }
}

static int finish_open(pv_file *f, pv_file **out, pv_error *err);

int pv_file_open_header(const char *path, const pv_stop *stop, pv_file **out, pv_error *err)
{
    *out = NULL;
    pv_file *f = pv_calloc(1, sizeof *f);
    if (!f)
        return pv_error_set(err, "%s: out of memory", path);
    f->fd = -1;
    f->stop = stop;
    f->path = dup_string(path);
    if (!f->path) {
        pv_file_close(f);
        return pv_error_set(err, "%s: out of memory", path);
    }
    bool stream = pv_spool_is_stream(path);
    f->data_path = stream ? dup_string(path) : resolve_data_path(path, err);
    if (stream && !f->data_path)
        pv_error_set(err, "%s: out of memory", path);
    if (!f->data_path || (stream ? open_stream(f, err) : open_file(f, err))) {
        pv_file_close(f);
        return -1;
    }
    return finish_open(f, out, err);
}

int pv_file_open_memory_header(const char *name, const uint8_t *bytes, uint64_t size,
                               pv_file **out, pv_error *err)
{
    *out = NULL;
    pv_file *f = pv_calloc(1, sizeof *f);
    if (!f)
        return pv_error_set(err, "%s: out of memory", name);
    f->fd = -1;
    f->path = dup_string(name);
    f->data_path = dup_string(name);
    if (!f->path || !f->data_path) {
        pv_file_close(f);
        return pv_error_set(err, "%s: out of memory", name);
    }
    f->memory = bytes;
    f->file_size = size;
    if (size == 0) {
        pv_file_close(f);
        return pv_error_set(err, "%s: empty file (offset 0x0): not a perf.data file", name);
    }
    return finish_open(f, out, err);
}

/* Everything after the bytes are reachable: header, attrs, features. */
static int finish_open(pv_file *f, pv_file **out, pv_error *err)
{
    if (read_header(f, err)) {
        pv_file_close(f);
        return -1;
    }
    /* A pipe's attrs come as records: the stream layer reads them. */
    if (!f->pipe && (read_attrs(f, err) || read_feature_index(f, err) || open_segments(f, err) ||
                     pv_file_index_ids(f, err))) {
        pv_file_close(f);
        return -1;
    }
    *out = f;
    return 0;
}

int pv_file_index_ids(pv_file *f, pv_error *err)
{
    if (index_ids(f, err))
        return -1;
    locate_ids(f);
    return 0;
}

void pv_file_close(pv_file *f)
{
    if (!f)
        return;
    for (unsigned i = 0; i < PV_FEATURE_BITS; i++)
        free(f->feature_cache[i]);
    for (size_t i = 0; i < f->nr_states; i++)
        if (f->states[i].free_state)
            f->states[i].free_state(f->states[i].state);
    if (f->fd >= 0)
        close(f->fd);
    pv_spool_release(f->spool);
    for (size_t i = 0; i < f->nr_segments; i++) {
        pv_segment *s = &f->segments[i];
        if (s->fd >= 0)
            close(s->fd);
        free(s->path);
    }
    free(f->segments);
    for (size_t i = 0; i < f->nr_attrs; i++) {
        free(f->attrs[i].ids);
        free(f->attrs[i].name);
    }
    free(f->attrs);
    free(f->id_map);
    free(f->id_dense);
    free(f->path);
    free(f->data_path);
    free(f);
}

bool pv_file_state_get(const pv_file *f, const void *key, void **state)
{
    for (size_t i = 0; i < f->nr_states; i++) {
        if (f->states[i].key == key) {
            *state = f->states[i].state;
            return true;
        }
    }
    *state = NULL;
    return false;
}

int pv_file_state_set(pv_file *f, const void *key, void *state, void (*free_state)(void *state),
                      pv_error *err)
{
    void *old;
    if (pv_file_state_get(f, key, &old) || f->nr_states >= PV_FILE_STATES) {
        if (free_state)
            free_state(state);
        return pv_error_set(err, "%s: no room for more derived state", f->data_path);
    }
    f->states[f->nr_states++] = (struct pv_file_state){key, state, free_state};
    return 0;
}

const char *pv_read_header_string(pv_byte_reader *c, uint64_t *len)
{
    uint32_t n = pv_bytes_u32(c);
    return pv_bytes_padded_string(c, n, len);
}
