/*
 * unwind_dump FILE [--max-stack N] [--why]
 *
 * Prints every sample's call stack the way `perf script -F pid,tid,time,ip
 * --no-inline` does, one sample per line:
 *
 *     PID/TID SECONDS.MICROS: IP IP IP ...
 *
 * the kernel callchain first (absolute addresses), then the user frames
 * unwound from the sample's REGS_USER and STACK_USER by src/unwind/dwarf_unwind.c.
 * As in perf, a user address inside a map is printed as its offset in the
 * mapped file (address - map start + pgoff), in anonymous memory, the stack
 * or the heap as it is.  --why appends " # reason"
 * saying why the unwind stopped.  Exit status 1 on a read error.
 *
 * The maps are the minimum the test needs, kept here until the address
 * spaces of src/symbols/addr_space.c are on this branch: the MMAP/MMAP2, FORK and
 * SAMPLE records are replayed in time order (as perf sorts them; ties in
 * file order), a process's maps copied at its fork and, as in perf, kept
 * across an exec, the latest map holding an address winning.  Paths are
 * used as recorded; names in brackets ([stack], [vdso]) and //anon are not
 * files.
 * Samples print in that order too.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pv_strbuf.h"
#include "decode/record_types.h"
#include "decode/sample.h"
#include "format/features.h"
#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "stream/file_open.h"
#include "stream/record_walk.h"
#include "unwind/dwarf_unwind.h"

typedef struct tool_map {
    int32_t pid;
    uint64_t start, end, pgoff;
    char *path;         /* as recorded */
    bool is_file;
} tool_map;

typedef struct tool_maps {
    tool_map *maps;     /* in the order they were added */
    size_t nr, cap;
} tool_maps;

typedef struct lookup_ctx {
    tool_maps *maps;
    int32_t pid;
} lookup_ctx;

typedef struct kept_record {
    uint64_t time;
    pv_record record;      /* bytes: a copy */
} kept_record;

static int by_time(const void *a, const void *b)
{
    const kept_record *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->record.index < y->record.index ? -1 : x->record.index > y->record.index;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        fprintf(stderr, "unwind_dump: out of memory\n");
        exit(2);
    }
    return p;
}

static void add_map(tool_maps *m, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                    const char *path, size_t path_len)
{
    if (m->nr == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->maps = xrealloc(m->maps, m->cap * sizeof *m->maps);
    }
    tool_map *t = &m->maps[m->nr++];
    t->pid = pid;
    t->start = start;
    t->end = start + len < start ? UINT64_MAX : start + len;
    t->pgoff = pgoff;
    t->path = xrealloc(NULL, path_len + 1);
    memcpy(t->path, path, path_len);
    t->path[path_len] = 0;
    t->is_file = t->path[0] == '/' && strncmp(t->path, "//anon", 6) != 0 &&
                 strncmp(t->path, "/dev/", 5) != 0 && strncmp(t->path, "/memfd:", 7) != 0;
}

static void drop_maps(tool_maps *m, int32_t pid)
{
    size_t kept = 0;
    for (size_t i = 0; i < m->nr; i++) {
        if (m->maps[i].pid == pid)
            free(m->maps[i].path);
        else
            m->maps[kept++] = m->maps[i];
    }
    m->nr = kept;
}

static void copy_maps(tool_maps *m, int32_t from, int32_t to)
{
    size_t n = m->nr;
    for (size_t i = 0; i < n; i++) {
        tool_map t = m->maps[i];
        if (t.pid == from)
            add_map(m, to, t.start, t.end - t.start, t.pgoff, t.path, strlen(t.path));
    }
}

static const tool_map *find(const tool_maps *m, int32_t pid, uint64_t addr)
{
    for (size_t i = m->nr; i-- > 0;) {
        const tool_map *t = &m->maps[i];
        if (t->pid == pid && addr >= t->start && addr < t->end)
            return t;
    }
    return NULL;
}

static bool find_map(void *ctx, uint64_t addr, pv_unwind_map *out)
{
    lookup_ctx *c = ctx;
    const tool_map *t = find(c->maps, c->pid, addr);
    if (!t)
        return false;
    out->start = t->start;
    out->end = t->end;
    out->pgoff = t->pgoff;
    out->path = t->is_file ? t->path : NULL;
    /* perf's base for the file's unwind table: its lowest map in the
     * process, stale ones included */
    out->perf_lowest_start = t->start;
    for (size_t i = 0; i < c->maps->nr; i++) {
        const tool_map *o = &c->maps->maps[i];
        if (o->pid == c->pid && o->start < out->perf_lowest_start && !strcmp(o->path, t->path))
            out->perf_lowest_start = o->start;
    }
    return true;
}

static int on_mmap(pv_file *f, const pv_record *rec, tool_maps *maps, pv_error *err)
{
    pv_rec_mmap m;
    if (pv_rec_mmap_decode(f, rec, &m, err) < 0)
        return -1;
    add_map(maps, (int32_t)m.pid, m.start, m.len, m.pgoff, m.filename, (size_t)m.filename_len);
    return 0;
}

static int on_comm_or_fork(pv_file *f, const pv_record *rec, tool_maps *maps, pv_error *err)
{
    if (rec->type != PV_RECORD_FORK) {
        pv_rec_comm c;
        return pv_rec_comm_decode(f, rec, &c, err);
    }
    pv_rec_task t;
    if (pv_rec_task_decode(f, rec, &t, err) < 0)
        return -1;
    if (t.pid != t.ppid) {
        drop_maps(maps, (int32_t)t.pid);
        copy_maps(maps, (int32_t)t.ppid, (int32_t)t.pid);
    }
    return 0;
}

/* perf prints addresses in anonymous memory, the stack and the heap as they
 * are (its identity maps). */
static bool prints_address(const tool_map *t)
{
    return !strncmp(t->path, "[stack", 6) || !strcmp(t->path, "[heap]") ||
           !strncmp(t->path, "//anon", 6) || !strncmp(t->path, "/dev/zero", 9) ||
           !strncmp(t->path, "/anon_hugepage", 14);
}

static void print_sample(const pv_sample *s, tool_maps *maps, pv_unwinder *u, size_t max_stack,
                         bool why, uint64_t *ips)
{
    printf("%" PRIu32 "/%" PRIu32 " %" PRIu64 ".%06" PRIu64 ":", s->pid, s->tid,
           s->time / 1000000000, s->time % 1000000000 / 1000);
    size_t kernel = 0;
    for (uint64_t i = 0; i < s->callchain_nr && kernel < max_stack; i++) {
        uint64_t ip = pv_sample_u64_at(s, s->callchain, i);
        if (ip >= PV_CONTEXT_MAX)
            continue;
        printf(" %" PRIx64, ip);
        kernel++;
    }
    pv_unwind_result res;
    lookup_ctx ctx = { maps, (int32_t)s->pid };
    size_t n = 0;
    bool wanted = (s->sample_type & PV_SAMPLE_REGS_USER) && (s->sample_type & PV_SAMPLE_STACK_USER);
    if (wanted)
        n = pv_unwind_sample(u, s, find_map, &ctx, ips, max_stack, &res);
    for (size_t i = 0; i < n; i++) {
        const tool_map *t = find(maps, (int32_t)s->pid, ips[i]);
        printf(" %" PRIx64, t && !prints_address(t) ? ips[i] - t->start + t->pgoff : ips[i]);
    }
    if (why && wanted)
        printf(" # %s: %s%s", pv_unwind_stop_name(res.stop), res.detail,
               res.perf_guesses ? " (perf's frame-pointer guess)" : "");
    putchar('\n');
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    size_t max_stack = PV_UNWIND_DEFAULT_MAX_FRAMES;
    bool why = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-stack") && i + 1 < argc)
            max_stack = (size_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--why"))
            why = true;
        else
            path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: unwind_dump FILE [--max-stack N] [--why]\n");
        return 2;
    }
    pv_error err = {0};
    pv_file *f;
    if (pv_file_open(path, &f, &err) < 0) {
        fprintf(stderr, "unwind_dump: %s\n", err.msg);
        return 1;
    }
    pv_strbuf arch = { 0 };
    pv_feature_value_kind kind;
    int64_t integer;
    if (pv_feature_decode(f, PV_FEATURE_ARCH, &kind, &integer, &arch, &err) < 0) {
        fprintf(stderr, "unwind_dump: %s\n", err.msg);
        return 1;
    }
    pv_unwinder *u = pv_unwinder_new(kind == PV_FEATURE_VALUE_TEXT ? pv_strbuf_text(&arch) : NULL);
    uint64_t *ips = xrealloc(NULL, (max_stack ? max_stack : 1) * sizeof *ips);
    /* Pass 1: copies of the records that matter, with their times. */
    kept_record *kept = NULL;
    size_t nr_kept = 0, cap_kept = 0;
    uint64_t last_time = 0;
    pv_walk w;
    pv_walk_start(&w, f);
    pv_record rec;
    int rc;
    while ((rc = pv_walk_next(&w, &rec, &err)) > 0) {
        if (rec.type != PV_RECORD_MMAP && rec.type != PV_RECORD_MMAP2 &&
            rec.type != PV_RECORD_COMM && rec.type != PV_RECORD_FORK &&
            rec.type != PV_RECORD_SAMPLE)
            continue;
        uint64_t time = last_time;
        if (rec.type == PV_RECORD_SAMPLE) {
            pv_sample s;
            if (pv_sample_decode(f, &rec, &s, &err) < 0) {
                rc = -1;
                break;
            }
            if (s.sample_type & PV_SAMPLE_TIME)
                time = s.time;
        } else {
            pv_sample_id id;
            if (pv_sample_id_decode(f, &rec, &id, &err) < 0) {
                rc = -1;
                break;
            }
            if (id.fields & PV_SAMPLE_TIME)
                time = id.time;
        }
        last_time = time;
        if (nr_kept == cap_kept) {
            cap_kept = cap_kept ? cap_kept * 2 : 1024;
            kept = xrealloc(kept, cap_kept * sizeof *kept);
        }
        kept[nr_kept].time = time;
        kept[nr_kept].record = rec;
        kept[nr_kept].record.bytes = xrealloc(NULL, rec.size);
        memcpy((uint8_t *)kept[nr_kept].record.bytes, rec.bytes, rec.size);
        nr_kept++;
    }
    pv_walk_end(&w);

    /* Pass 2: replayed in time order. */
    if (nr_kept)
        qsort(kept, nr_kept, sizeof *kept, by_time);
    tool_maps maps = { 0 };
    for (size_t i = 0; rc >= 0 && i < nr_kept; i++) {
        const pv_record *r = &kept[i].record;
        int step = 0;
        if (r->type == PV_RECORD_MMAP || r->type == PV_RECORD_MMAP2) {
            step = on_mmap(f, r, &maps, &err);
        } else if (r->type == PV_RECORD_COMM || r->type == PV_RECORD_FORK) {
            step = on_comm_or_fork(f, r, &maps, &err);
        } else {
            pv_sample s;
            step = pv_sample_decode(f, r, &s, &err);
            if (step == 0)
                print_sample(&s, &maps, u, max_stack, why, ips);
        }
        if (step < 0)
            rc = -1;
    }
    if (rc < 0)
        fprintf(stderr, "unwind_dump: %s\n", err.msg);
    for (size_t i = 0; i < nr_kept; i++)
        free((void *)kept[i].record.bytes);
    free(kept);
    drop_maps(&maps, 0);
    for (size_t i = 0; i < maps.nr; i++)
        free(maps.maps[i].path);
    free(maps.maps);
    free(ips);
    pv_unwinder_free(u);
    pv_strbuf_free(&arch);
    pv_file_close(f);
    return rc < 0 ? 1 : 0;
}
