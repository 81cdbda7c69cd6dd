#include "symbols/jitdump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/byte_reader.h"
#include "base/pv_alloc.h"
#include "base/pv_array.h"

/* Paths are built in PATH_MAX-sized buffers; one cut short names no file,
 * which the reading then reports as not found. */
#ifndef __clang__      /* gcc's warning: clang has none by that name */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

enum {
    JIT_CODE_LOAD = 0,
    JIT_CODE_MOVE = 1,
    JIT_CODE_DEBUG_INFO = 2,
    JIT_CODE_CLOSE = 3,
    JIT_CODE_UNWINDING_INFO = 4,
};

#define HEADER_SIZE 40u     /* the fields of version 1 */
#define PREFIX_SIZE 16u     /* id, total_size, timestamp */
#define LOAD_FIXED 40u      /* pid .. code_index */
#define MOVE_FIXED 48u
#define DEBUG_FIXED 16u     /* code_addr, nr_entry */
#define DEBUG_ENTRY_FIXED 16u
#define UNWIND_FIXED 24u
/* A function's name or a record of debug entries longer than this is
 * taken for damage rather than read into memory. */
#define MAX_READ (64u << 20)

/* Reading state: the file, its size when opened, the buffer records are
 * read into, and the debug info and unwinding size waiting for the next
 * load. */
typedef struct jit_reader {
    int fd;
    uint64_t size;
    bool swap;
    uint8_t *buf;
    size_t cap;
    uint32_t pending_first, pending_nr;
    bool has_pending_lines;
    uint64_t mapped_size;
} jit_reader;

static void set_damage(pv_jitdump *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_damage(pv_jitdump *j, const char *fmt, ...)
{
    if (j->damage)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (pv_vasprintf(&j->damage, fmt, ap) < 0)
        j->damage = NULL;
    va_end(ap);
}

/* n bytes at offset into the reader's buffer: 1 read, 0 the file ends
 * before them, -2 out of memory. */
static int read_at(jit_reader *r, uint64_t offset, size_t n)
{
    if (n > r->cap) {
        uint8_t *p = pv_realloc(r->buf, n);
        if (!p)
            return -2;
        r->buf = p;
        r->cap = n;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(r->fd, r->buf + got, n - got, (off_t)(offset + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;   /* shrunk or unreadable under us */
        got += (size_t)k;
    }
    return 1;
}

/* Appends a NUL-terminated copy of s[0..n) to names: its offset, or
 * UINT32_MAX when out of memory or past what an offset holds. */
static uint32_t add_name(pv_jitdump *j, const char *s, size_t n)
{
    if (j->names_len >= UINT32_MAX - 1 || n >= UINT32_MAX - 1 - j->names_len)
        return UINT32_MAX;
    if (!pv_array_grow((void **)&j->names, &j->names_cap, j->names_len + n + 1, 1))
        return UINT32_MAX;
    uint32_t at = (uint32_t)j->names_len;
    memcpy(j->names + at, s, n);
    j->names[at + n] = 0;
    j->names_len += n + 1;
    return at;
}

static pv_jit_code *new_code(pv_jitdump *j)
{
    if (j->nr_codes >= UINT32_MAX)
        return NULL;
    if (!pv_array_grow((void **)&j->codes, &j->cap_codes, j->nr_codes + 1, sizeof *j->codes))
        return NULL;
    pv_jit_code *c = &j->codes[j->nr_codes++];
    memset(c, 0, sizeof *c);
    return c;
}

static uint64_t hash_index(uint64_t index)
{
    return index * 0x9e3779b97f4a7c15u;
}

/* Remembers that code_index was loaded as code (the latest load wins). */
static bool index_code(pv_jitdump *j, uint64_t code_index, uint32_t code)
{
    if ((j->nr_indexed + 1) * 2 > j->nr_index_slots) {
        size_t slots = j->nr_index_slots ? j->nr_index_slots * 2 : 1024;
        struct pv_jit_index_slot *table = pv_malloc(slots * sizeof *table);
        if (!table)
            return false;
        for (size_t i = 0; i < slots; i++)
            table[i].code = UINT32_MAX;
        for (size_t i = 0; i < j->nr_index_slots; i++) {
            if (j->index_slots[i].code == UINT32_MAX)
                continue;
            size_t k = hash_index(j->index_slots[i].index) & (slots - 1);
            while (table[k].code != UINT32_MAX)
                k = (k + 1) & (slots - 1);
            table[k] = j->index_slots[i];
        }
        free(j->index_slots);
        j->index_slots = table;
        j->nr_index_slots = slots;
    }
    size_t k = hash_index(code_index) & (j->nr_index_slots - 1);
    while (j->index_slots[k].code != UINT32_MAX && j->index_slots[k].index != code_index)
        k = (k + 1) & (j->nr_index_slots - 1);
    if (j->index_slots[k].code == UINT32_MAX)
        j->nr_indexed++;
    j->index_slots[k].index = code_index;
    j->index_slots[k].code = code;
    return true;
}

static uint32_t find_index(const pv_jitdump *j, uint64_t code_index)
{
    if (!j->nr_index_slots)
        return UINT32_MAX;
    size_t k = hash_index(code_index) & (j->nr_index_slots - 1);
    while (j->index_slots[k].code != UINT32_MAX) {
        if (j->index_slots[k].index == code_index)
            return j->index_slots[k].code;
        k = (k + 1) & (j->nr_index_slots - 1);
    }
    return UINT32_MAX;
}

/* perf inject maps the unwinding data after the code when the process
 * mapped it (mapped_size), 8-aligned. */
static uint64_t mapped_length(uint64_t code_size, uint64_t mapped_size)
{
    if (!mapped_size)
        return code_size;
    uint64_t aligned = code_size > UINT64_MAX - 7 ? code_size : (code_size + 7) & ~(uint64_t)7;
    return mapped_size > UINT64_MAX - aligned ? UINT64_MAX : aligned + mapped_size;
}

/* A CODE_LOAD's body (fixed fields and name) in r; -2 out of memory. */
static int add_load(pv_jitdump *j, jit_reader *r, pv_byte_reader *b, uint64_t time)
{
    uint32_t pid = pv_bytes_u32(b);
    pv_bytes_u32(b);    /* tid */
    pv_bytes_u64(b);    /* vma: perf maps code_addr */
    uint64_t code_addr = pv_bytes_u64(b);
    uint64_t code_size = pv_bytes_u64(b);
    uint64_t code_index = pv_bytes_u64(b);
    uint64_t left = pv_bytes_left(b);
    const char *name = (const char *)pv_bytes_take(b, left);
    size_t name_len = name ? strnlen(name, (size_t)left) : 0;
    uint32_t at = add_name(j, name ? name : "", name_len);
    pv_jit_code *c = at == UINT32_MAX ? NULL : new_code(j);
    if (!c)
        return -2;
    c->time = time;
    c->pid = pid;
    c->start = code_addr;
    c->code_size = code_size;
    c->map_len = mapped_length(code_size, r->mapped_size);
    c->line_base = code_addr;
    c->name = at;
    if (r->has_pending_lines) {
        c->first_line = r->pending_first;
        c->nr_lines = r->pending_nr;
    }
    r->has_pending_lines = false;
    r->mapped_size = 0;
    return index_code(j, code_index, (uint32_t)(c - j->codes)) ? 0 : -2;
}

static int add_move(pv_jitdump *j, jit_reader *r, pv_byte_reader *b, uint64_t time,
                    uint64_t offset)
{
    uint32_t pid = pv_bytes_u32(b);
    pv_bytes_u32(b);    /* tid */
    pv_bytes_u64(b);    /* vma */
    pv_bytes_u64(b);    /* old_code_addr */
    uint64_t new_addr = pv_bytes_u64(b);
    uint64_t code_size = pv_bytes_u64(b);
    uint64_t code_index = pv_bytes_u64(b);
    uint32_t load = find_index(j, code_index);
    if (load == UINT32_MAX) {
        /* perf inject maps a file of that index that it never wrote */
        set_damage(j, "CODE_MOVE at offset %llu names code_index %llu, which no CODE_LOAD before "
                      "it has: skipped",
                   (unsigned long long)offset, (unsigned long long)code_index);
        return 0;
    }
    pv_jit_code *c = new_code(j);
    if (!c)
        return -2;
    const pv_jit_code *from = &j->codes[load];
    c->time = time;
    c->pid = pid;
    c->start = new_addr;
    c->code_size = code_size;
    c->map_len = mapped_length(code_size, r->mapped_size);
    c->line_base = from->line_base;
    c->name = from->name;
    c->first_line = from->first_line;
    c->nr_lines = from->nr_lines;
    return 0;
}

/* Whether s[0..n) is UTF-8 text without control characters. */
static bool is_text(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                    : (c & 0xf8) == 0xf0 ? 3 : 4;
        if (c < 0x20 || c == 0x7f || more == 4 || (more == 1 && c < 0xc2) || n - i - 1 < more)
            return false;
        for (size_t k = 1; k <= more; k++)
            if ((p[i + k] & 0xc0) != 0x80)
                return false;
        i += more + 1;
    }
    return n > 0;
}

static int line_order(const void *a, const void *b)
{
    const pv_jit_line *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A CODE_DEBUG_INFO's entries, kept for the next load. */
static int add_debug_info(pv_jitdump *j, jit_reader *r, pv_byte_reader *b, uint64_t offset)
{
    pv_bytes_u64(b);    /* code_addr: perf gives the entries to the next load */
    uint64_t nr = pv_bytes_u64(b);
    uint32_t first = (uint32_t)j->nr_lines;
    uint32_t last_file = UINT32_MAX;
    const char *last_name = NULL;
    bool sorted = true;
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t addr = pv_bytes_u64(b);
        uint32_t line = pv_bytes_u32(b);
        pv_bytes_u32(b);    /* discrim */
        uint64_t left = pv_bytes_left(b);
        const char *name = (const char *)pv_bytes_take(b, 0);
        size_t n = name ? strnlen(name, (size_t)left) : 0;
        if (b->failed || n == left) {
            set_damage(j, "CODE_DEBUG_INFO at offset %llu: entry %llu of %llu runs past the "
                          "record: its entries from there are dropped",
                       (unsigned long long)offset, (unsigned long long)i, (unsigned long long)nr);
            break;
        }
        pv_bytes_skip(b, n + 1);
        /* runtimes repeat one file for every entry of a function */
        uint32_t file;
        if (last_name && strcmp(last_name, name) == 0) {
            file = last_file;
        } else if (!is_text(name, n)) {
            file = PV_JIT_NO_FILE;
        } else if ((file = add_name(j, name, n)) == UINT32_MAX) {
            return -2;
        }
        if (file == PV_JIT_NO_FILE)
            j->nr_bad_files++;
        last_file = file;
        last_name = name;
        if (j->nr_lines >= UINT32_MAX)
            return -2;
        if (!pv_array_grow((void **)&j->lines, &j->cap_lines, j->nr_lines + 1, sizeof *j->lines))
            return -2;
        if (j->nr_lines > first && j->lines[j->nr_lines - 1].addr > addr)
            sorted = false;
        j->lines[j->nr_lines++] = (pv_jit_line){.addr = addr, .line = line, .file = file};
    }
    if (!sorted)
        qsort(j->lines + first, j->nr_lines - first, sizeof *j->lines, line_order);
    r->pending_first = first;
    r->pending_nr = (uint32_t)(j->nr_lines - first);
    r->has_pending_lines = true;
    return 0;
}

/* Reads the header; -1 with why when it is no jitdump perfvtab can use. */
static int read_header(pv_jitdump *j, jit_reader *r, uint64_t *records_at, char *why,
                       size_t why_size)
{
    int rc = r->size >= HEADER_SIZE ? read_at(r, 0, HEADER_SIZE) : 0;
    if (rc == -2)
        return -2;
    if (rc == 0) {
        snprintf(why, why_size, "shorter than a jitdump header (%llu bytes)",
                 (unsigned long long)r->size);
        return -1;
    }
    uint32_t magic = pv_load_u32(r->buf, false);
    if (magic != PV_JITDUMP_MAGIC && magic != __builtin_bswap32(PV_JITDUMP_MAGIC)) {
        snprintf(why, why_size, "not a jitdump: magic 0x%08x", magic);
        return -1;
    }
    r->swap = magic != PV_JITDUMP_MAGIC;
    j->other_byte_order = r->swap;
    pv_byte_reader b;
    pv_byte_reader_init(&b, r->buf, HEADER_SIZE, 0, r->swap);
    pv_bytes_u32(&b);   /* magic */
    pv_bytes_u32(&b);   /* version: perf reads every version alike */
    uint32_t total = pv_bytes_u32(&b);
    j->elf_mach = pv_bytes_u32(&b);
    pv_bytes_u32(&b);   /* pad1 */
    j->pid = pv_bytes_u32(&b);
    pv_bytes_u64(&b);   /* timestamp */
    j->flags = pv_bytes_u64(&b);
    if (total < HEADER_SIZE || total > r->size) {
        snprintf(why, why_size, "header size %u is not between %u and the file's %llu bytes", total,
                 HEADER_SIZE, (unsigned long long)r->size);
        return -1;
    }
    if (j->flags & ~(uint64_t)PV_JITDUMP_ARCH_TIMESTAMP) {
        snprintf(why, why_size, "unknown header flags 0x%llx (perf refuses them too)",
                 (unsigned long long)j->flags);
        return -1;
    }
    *records_at = total;
    return 0;
}

/* One record at offset, of total bytes: 0 read (or skipped), 1 stop
 * (damage set), -2 out of memory. */
static int read_record(pv_jitdump *j, jit_reader *r, uint64_t offset, uint32_t id, uint32_t total,
                       uint64_t time)
{
    uint64_t body = total - PREFIX_SIZE;
    size_t want = 0;
    switch (id) {
    case JIT_CODE_LOAD: {
        if (body < LOAD_FIXED)
            break;
        /* the code's size, to leave its bytes unread */
        int got = read_at(r, offset + PREFIX_SIZE, LOAD_FIXED);
        if (got != 1) {
            if (got == 0)
                set_damage(j, "the file shrank while being read, at offset %llu",
                           (unsigned long long)offset);
            return got == -2 ? -2 : 1;
        }
        uint64_t code_size = pv_load_u64(r->buf + 24, r->swap);
        if (code_size > body - LOAD_FIXED) {
            set_damage(j, "CODE_LOAD at offset %llu: code_size %llu is more than its record holds",
                       (unsigned long long)offset, (unsigned long long)code_size);
            return 1;
        }
        if (body - code_size > MAX_READ) {
            set_damage(j, "CODE_LOAD at offset %llu: a name of %llu bytes",
                       (unsigned long long)offset, (unsigned long long)(body - LOAD_FIXED - code_size));
            return 1;
        }
        want = (size_t)(body - code_size);
        break;
    }
    case JIT_CODE_MOVE:
        want = MOVE_FIXED;
        break;
    case JIT_CODE_DEBUG_INFO:
        if (body > MAX_READ) {
            set_damage(j, "CODE_DEBUG_INFO at offset %llu of %u bytes", (unsigned long long)offset,
                       total);
            return 1;
        }
        want = (size_t)body;
        break;
    case JIT_CODE_UNWINDING_INFO:
        want = UNWIND_FIXED;
        break;
    case JIT_CODE_CLOSE:
        return 0;
    default:
        j->nr_unknown++;
        return 0;
    }
    static const uint32_t fixed[] = {LOAD_FIXED, MOVE_FIXED, DEBUG_FIXED, 0, UNWIND_FIXED};
    if (body < fixed[id]) {
        set_damage(j, "record of id %u at offset %llu: %u bytes, too short for its fields", id,
                   (unsigned long long)offset, total);
        return 1;
    }
    int rc = read_at(r, offset + PREFIX_SIZE, want);
    if (rc != 1) {
        if (rc == 0)
            set_damage(j, "the file shrank while being read, at offset %llu", (unsigned long long)offset);
        return rc == -2 ? -2 : 1;
    }
    pv_byte_reader b;
    pv_byte_reader_init(&b, r->buf, want, offset + PREFIX_SIZE, r->swap);
    switch (id) {
    case JIT_CODE_LOAD:
        return add_load(j, r, &b, time);
    case JIT_CODE_MOVE:
        return add_move(j, r, &b, time, offset);
    case JIT_CODE_DEBUG_INFO:
        return add_debug_info(j, r, &b, offset);
    default:    /* JIT_CODE_UNWINDING_INFO */
        pv_bytes_u64(&b);   /* unwind_data_size */
        pv_bytes_u64(&b);   /* eh_frame_hdr_size */
        r->mapped_size = pv_bytes_u64(&b);
        return 0;
    }
}

int pv_jitdump_read(const char *path, const pv_stop *stop, pv_jitdump *j, char *why,
                    size_t why_size, pv_error *err)
{
    memset(j, 0, sizeof *j);
    jit_reader r = {.fd = -1};
    errno = 0;
    r.fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (r.fd < 0 || fstat(r.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "%s", r.fd < 0 ? strerror(errno) : "not a regular file");
        if (r.fd >= 0)
            close(r.fd);
        return -1;
    }
    r.size = (uint64_t)st.st_size;
    uint64_t offset;
    int rc = read_header(j, &r, &offset, why, why_size);
    for (uint64_t nr = 1; rc == 0 && offset < r.size; nr++) {
        if (nr % 4096 == 0 && pv_stop_check_point(stop, path, err)) {
            rc = -3;
            break;
        }
        if (r.size - offset < PREFIX_SIZE) {
            set_damage(j, "a record cut short at offset %llu (%llu bytes left)",
                       (unsigned long long)offset, (unsigned long long)(r.size - offset));
            break;
        }
        int got = read_at(&r, offset, PREFIX_SIZE);
        if (got != 1) {
            if (got == 0)
                set_damage(j, "the file shrank while being read, at offset %llu",
                           (unsigned long long)offset);
            rc = got;
            break;
        }
        uint32_t id = pv_load_u32(r.buf, r.swap);
        uint32_t total = pv_load_u32(r.buf + 4, r.swap);
        uint64_t time = pv_load_u64(r.buf + 8, r.swap);
        if (total < PREFIX_SIZE || total > r.size - offset) {
            set_damage(j, "record at offset %llu (id %u) has size %u, %s",
                       (unsigned long long)offset, id, total,
                       total < PREFIX_SIZE ? "less than its prefix" : "past the end of the file");
            break;
        }
        int step = read_record(j, &r, offset, id, total, time);
        if (step == -2)
            rc = -2;
        if (step != 0)
            break;
        offset += total;
    }
    close(r.fd);
    free(r.buf);
    if (rc == -2 || rc == -3)
        snprintf(why, why_size, "%s", rc == -2 ? "out of memory" : "interrupted");
    if (rc != 0)
        pv_jitdump_free(j);
    return rc;
}

void pv_jitdump_free(pv_jitdump *j)
{
    free(j->codes);
    free(j->lines);
    free(j->names);
    free(j->index_slots);
    free(j->damage);
    memset(j, 0, sizeof *j);
}

const pv_jit_line *pv_jitdump_line(const pv_jitdump *j, const pv_jit_code *c, uint64_t addr)
{
    if (!c->nr_lines || c->first_line > j->nr_lines || j->nr_lines - c->first_line < c->nr_lines)
        return NULL;
    const pv_jit_line *lines = j->lines + c->first_line;
    /* the last entry at or below addr */
    size_t lo = 0, hi = c->nr_lines;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lines[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &lines[lo - 1] : NULL;
}

bool pv_jitdump_path_matches(const char *path, size_t n, int32_t pid)
{
    const char *base = path;
    for (size_t i = 0; i < n; i++)
        if (path[i] == '/')
            base = path + i + 1;
    size_t len = (size_t)(path + n - base);
    if (base == path || len < 10 || memcmp(base, "jit-", 4) != 0 ||
        memcmp(base + len - 5, ".dump", 5) != 0)
        return false;
    uint64_t value = 0;
    for (size_t i = 4; i < len - 5; i++) {
        if (base[i] < '0' || base[i] > '9' || value > INT32_MAX)
            return false;
        value = value * 10 + (uint64_t)(base[i] - '0');
    }
    return pid == 0 || value == (uint64_t)pid;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int pv_jitdump_find(const char *recording, const char *sysroot, const char *symdir,
                    const char *recorded, int32_t pid, const pv_stop *stop, pv_jitdump *j,
                    char *path, size_t path_size, char *why, size_t why_size, pv_error *err)
{
    char candidates[4][4096];
    int n = 0;
    if (symdir)
        snprintf(candidates[n++], sizeof candidates[0], "%s/%s", symdir, base_name(recorded));
    if (sysroot)
        snprintf(candidates[n++], sizeof candidates[0], "%s%s", sysroot, recorded);
    const char *rec_base = base_name(recording);
    snprintf(candidates[n++], sizeof candidates[0], "%.*s%s", (int)(rec_base - recording),
             recording, base_name(recorded));
    /* a sysroot stands for the recording machine: its path is the recorded one */
    if (!sysroot)
        snprintf(candidates[n++], sizeof candidates[0], "%s", recorded);
    char reason[512];
    why[0] = 0;
    bool why_of_a_file = false;     /* a file that is there says more than one that is not */
    for (int i = 0; i < n; i++) {
        if (i > 0 && strcmp(candidates[i], candidates[i - 1]) == 0)
            continue;
        int rc = pv_jitdump_read(candidates[i], stop, j, reason, sizeof reason, err);
        if (rc == -2 || rc == -3)
            return rc;
        if (rc == 0 && pid != 0 && j->pid != (uint32_t)pid) {
            snprintf(reason, sizeof reason, "it is process %u's, the recording maps process %d's",
                     j->pid, (int)pid);
            pv_jitdump_free(j);
            rc = -1;
        }
        if (rc == 0) {
            snprintf(path, path_size, "%s", candidates[i]);
            return 0;
        }
        struct stat st;
        bool there = stat(candidates[i], &st) == 0;
        if (!why[0] || (there && !why_of_a_file)) {
            snprintf(why, why_size, "%s: %s%s", candidates[i], reason,
                     n > 1 ? " (and the other places it is looked for)" : "");
            why_of_a_file = there;
        }
    }
    return -1;
}
