#include "analysis/pprof_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sample_pass.h"
#include "base/pv_array.h"
#include "decode/callchain.h"
#include "decode/frame_walk.h"
#include "decode/sample.h"
#include "format/attr.h"
#include "format/event_names.h"
#include "format/perf_abi.h"
#include "base/pv_alloc.h"
#include "render/varint.h"
#include "symbols/sample_stack.h"

/* perf_event_attr.type and the software events' configs */
enum { TYPE_SOFTWARE = 1, SW_CPU_CLOCK = 0, SW_TASK_CLOCK = 1, SW_DUMMY = 9 };

#define MAX_FRAMES 8192     /* as perf_callchains: a record holds fewer */
#define FRAME_CACHE_BITS 14
#define NUMBER_LABEL_CACHE 1024

/* A frame's location id remembered: stacks repeat the same frames.  A
 * frame it has forgotten is made a location again, which the location
 * table finds it has (the same key, the same id): on bench/data/procs.data
 * a memo of every frame saved 0.2 M of 4.6 M frames that recomputing, at
 * 17 MB. */
struct frame_hit {
    uint64_t ip;
    uint32_t map_plus1;     /* the map's number in map_memo + 1; 0: empty */
    uint32_t location;
    bool unwound;
};

struct pv_pprof_builder {
    /* the profile, over every file added */
    pv_pprof_tables t;
    bool described;             /* the sample types, from the first file */
    uint64_t duration;          /* summed over the files */
    /* the file being added */
    pv_file *file;
    pv_symbolizer *sym;
    size_t attr_index;
    uint64_t first_time, last_time;     /* of the event's samples */
    /* the last sample's labels: pid, tid, cpu, and comm's text */
    /* per label (pid, tid, cpu): values seen lately and their string
     * indexes, by the value's low bits */
    struct last_label { int64_t value, index; } last[3][NUMBER_LABEL_CACHE];
    char last_comm[64];
    int64_t last_comm_index;            /* 0: none kept */
    /* the maps frames were in (the file's symbolizer's dso, start, end,
     * pgoff), numbered for frame_cache and map_mappings; per file */
    pv_key_table map_memo;
    uint64_t last_map[4];               /* the last frame's map, and its number */
    int64_t last_map_index;             /* -1: none */
    int64_t *map_mappings;      /* per map of map_memo: its mapping id, 0: none yet */
    size_t nr_map_mappings, cap_map_mappings;
    struct frame_hit frame_cache[1 << FRAME_CACHE_BITS];
    uint8_t *mapping_flags;     /* per mapping, ORed as locations are added */
    size_t cap_mapping_flags;
    /* the sample being built, its key (pprof_encode.h): label varints,
     * then location ids */
    uint8_t key[(PV_PPROF_SAMPLE_LABEL_WORDS + MAX_FRAMES) * PV_VARINT_MAX];
    size_t key_len;
    size_t depth;
    /* the rows of the frame being made a location: one, or a DWARF frame's
     * inlined functions and the one holding them */
    pv_stack_frame rows[PV_INLINE_DEPTH];
    size_t nr_rows;
    char file_name[4096];
    pv_sample_stack sample_stack;       /* last: its scratch is large */
};
typedef struct pv_pprof_builder builder;

/* The string table index of text (NULL: ""); -1 when out of memory. */
static int64_t string_index(pv_pprof_tables *t, const char *text)
{
    bool added;
    if (!text)
        text = "";
    return pv_key_table_intern(&t->strings, text, strlen(text) + 1, &added);
}

static void hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The mapping id of m (0: none, -1: out of memory). */
static int64_t mapping_id(builder *b, const pv_map_info *m)
{
    char build_id[2 * PV_BUILD_ID_MAX + 1];
    hex(m->build_id, m->build_id_len, build_id);
    int64_t file = string_index(&b->t, m->dso);
    int64_t id = m->build_id_len ? string_index(&b->t, build_id) : 0;
    if (file < 0 || id < 0)
        return -1;
    uint64_t key[5] = { m->start, m->end, m->pgoff, (uint64_t)file, (uint64_t)id };
    bool added;
    int64_t i = pv_key_table_intern(&b->t.mappings, key, sizeof key, &added);
    if (i < 0 || !pv_array_grow((void **)&b->mapping_flags, &b->cap_mapping_flags, (size_t)i + 1, 1))
        return -1;
    if (added)
        b->mapping_flags[i] = 0;
    return i + 1;
}

/* Whether mapping id (from mapping_id) is m's: its key, as mapping_id
 * would make it, is the same. */
static bool same_mapping(builder *b, int64_t id, const pv_map_info *m)
{
    size_t len;
    const uint64_t *key = pv_key_table_key(&b->t.mappings, (size_t)id - 1, &len);
    if (key[0] != m->start || key[1] != m->end || key[2] != m->pgoff)
        return false;
    if (strcmp(pv_key_table_key(&b->t.strings, key[3], &len), m->dso ? m->dso : "") != 0)
        return false;
    if (!m->build_id_len)
        return key[4] == 0;
    char build_id[2 * PV_BUILD_ID_MAX + 1];
    hex(m->build_id, m->build_id_len, build_id);
    return key[4] != 0 && strcmp(pv_key_table_key(&b->t.strings, key[4], &len), build_id) == 0;
}

/* mapping_id of m, the map numbered b->last_map_index in map_memo: the
 * id found for the map before when it is still m's (0: none, -1: out of
 * memory). */
static int64_t map_mapping_id(builder *b, const pv_map_info *m)
{
    size_t i = (size_t)b->last_map_index;
    if (i >= b->nr_map_mappings) {
        if (!pv_array_grow((void **)&b->map_mappings, &b->cap_map_mappings, i + 1, sizeof(int64_t)))
            return -1;
        memset(b->map_mappings + b->nr_map_mappings, 0,
               (i + 1 - b->nr_map_mappings) * sizeof(int64_t));
        b->nr_map_mappings = i + 1;
    }
    int64_t id = b->map_mappings[i];
    if (id > 0 && same_mapping(b, id, m))
        return id;
    id = mapping_id(b, m);
    if (id > 0)
        b->map_mappings[i] = id;
    return id;
}

static int64_t function_id(builder *b, const char *name, const char *file)
{
    int64_t n = string_index(&b->t, name), f = string_index(&b->t, file);
    if (n < 0 || f < 0)
        return -1;
    uint64_t key[2] = { (uint64_t)n, (uint64_t)f };
    bool added;
    int64_t i = pv_key_table_intern(&b->t.functions, key, sizeof key, &added);
    return i < 0 ? -1 : i + 1;
}

/* One Line of a location: the function name at level of ip, with its
 * source file and line when the debug info has them. */
static bool add_line(builder *b, int32_t pid, uint64_t order, unsigned cpumode, uint64_t ip,
                     unsigned level, const char *name, uint64_t *words, uint8_t *flags)
{
    uint64_t line = 0;
    bool known = pv_symbolizer_source_line(b->sym, pid, order, cpumode, ip, level, b->file_name,
                                           sizeof b->file_name, &line);
    if (known)
        *flags |= PV_PPROF_MAPPING_FILENAMES | PV_PPROF_MAPPING_LINES;
    int64_t fid = function_id(b, name, known ? b->file_name : NULL);
    if (fid < 0)
        return false;
    words[0] = (uint64_t)fid;
    words[1] = known ? line : 0;
    return true;
}

/* The location id of a frame, from its rows (b->rows: for a DWARF-unwound
 * frame the inlined functions, then the one holding them); 0 on out of
 * memory. */
static uint64_t location_id(builder *b, int32_t pid, uint64_t order)
{
    const pv_stack_frame *rows = b->rows;
    size_t nr_rows = b->nr_rows;
    unsigned cpumode = rows[0].cpumode;
    uint64_t ip = rows[0].ip;
    bool unwound = rows[0].origin == PV_ORIGIN_DWARF;
    pv_map_info map;
    bool mapped = pv_symbolizer_map(b->sym, pid, order, cpumode, ip, &map);
    uint64_t map_key[4] = { (uint64_t)(uintptr_t)(mapped ? map.dso : NULL), map.start, map.end,
                            map.pgoff };
    bool added;
    if (b->last_map_index < 0 || memcmp(map_key, b->last_map, sizeof map_key) != 0) {
        b->last_map_index = pv_key_table_intern(&b->map_memo, map_key, sizeof map_key, &added);
        if (b->last_map_index < 0)
            return 0;
        memcpy(b->last_map, map_key, sizeof map_key);
    }
    uint64_t mix = (ip ^ (uint64_t)b->last_map_index << 40 ^ unwound) * 0x9e3779b97f4a7c15u;
    struct frame_hit *hit = &b->frame_cache[mix >> (64 - FRAME_CACHE_BITS)];
    if (hit->map_plus1 == (uint64_t)b->last_map_index + 1 && hit->ip == ip && hit->unwound == unwound)
        return hit->location;

    int64_t mapping = mapped ? map_mapping_id(b, &map) : 0;
    if (mapping < 0)
        return 0;
    uint64_t words[2 + 2 * PV_INLINE_DEPTH];
    size_t n = 2;
    words[0] = (uint64_t)mapping;
    words[1] = ip;
    uint8_t flags = PV_PPROF_MAPPING_FUNCTIONS;
    pv_location l;
    pv_symbolizer_resolve(b->sym, pid, order, cpumode, ip, &l);
    if (l.sym && unwound) {
        for (size_t r = 0; r < nr_rows && n + 2 <= sizeof words / sizeof words[0]; r++) {
            const char *name = pv_stack_frame_name(&rows[r], &l);
            if (!add_line(b, pid, order, cpumode, ip, rows[r].level, name, words + n, &flags))
                return 0;
            n += 2;
        }
        if (nr_rows > 1)
            flags |= PV_PPROF_MAPPING_INLINES;
    } else if (l.sym) {
        if (!add_line(b, pid, order, cpumode, ip, 0, l.sym, words + n, &flags))
            return 0;
        n += 2;
    }
    uint8_t key[sizeof words / sizeof words[0] * PV_VARINT_MAX];
    size_t key_len = 0;
    for (size_t k = 0; k < n; k++)
        key_len += pv_varint_put(key + key_len, words[k]);
    int64_t loc = pv_key_table_intern(&b->t.locations, key, key_len, &added);
    if (loc < 0)
        return 0;
    if (mapping > 0)
        b->mapping_flags[mapping - 1] |= flags;
    *hit = (struct frame_hit){ ip, (uint32_t)b->last_map_index + 1, (uint32_t)loc + 1, unwound };
    return (uint64_t)loc + 1;
}

static bool push(builder *b, uint64_t id)
{
    if (!id)
        return false;
    if (b->depth < MAX_FRAMES) {
        b->key_len += pv_varint_put(b->key + b->key_len, id);
        b->depth++;
    }
    return true;
}

/* The location of the rows kept pushed, and the rows forgotten; false
 * when out of memory. */
static bool push_rows(builder *b, int32_t pid, uint64_t order)
{
    if (b->nr_rows == 0)
        return true;
    bool ok = push(b, location_id(b, pid, order));
    b->nr_rows = 0;
    return ok;
}

/* The sample's stack, leaf first, as every table has it
 * (symbols/sample_stack.h): one location per frame, a DWARF frame's rows
 * (levels 0 up, at one ip) in one. */
static bool build_stack(builder *b, const pv_sample *s, uint64_t order)
{
    int32_t pid = (int32_t)s->pid;
    b->depth = 0;
    b->nr_rows = 0;
    pv_stack_frame frame;
    int rc;
    pv_sample_stack_start(&b->sample_stack, b->file, s, b->sym, order);
    while ((rc = pv_sample_stack_next(&b->sample_stack, &frame, NULL)) == 1) {
        /* a frame gives at most PV_INLINE_DEPTH rows (symbolizer.h) */
        bool same_frame = b->nr_rows > 0 && frame.origin == PV_ORIGIN_DWARF && frame.level > 0 &&
                          frame.ip == b->rows[0].ip && b->nr_rows < PV_INLINE_DEPTH;
        if (!same_frame && !push_rows(b, pid, order))
            return false;
        b->rows[b->nr_rows++] = frame;
    }
    if (rc < 0)
        return false;   /* add_sample takes the stack's error */
    if (!push_rows(b, pid, order))
        return false;
    /* no callchain (or perf's discarded one): the sample's ip alone */
    if (b->depth == 0 && (s->sample_type & PV_SAMPLE_IP)) {
        b->rows[0] = (pv_stack_frame){ s->ip, s->misc & PV_MISC_CPUMODE_MASK,
                                       PV_ORIGIN_CALLCHAIN, NULL, 0 };
        b->nr_rows = 1;
        return push_rows(b, pid, order);
    }
    return true;
}

/* The string index of a number label's text, remembered by value (cache:
 * the label's NUMBER_LABEL_CACHE entries): a system-wide recording's
 * samples go from thread to thread and cpu to cpu. */
static int64_t number_label(builder *b, struct last_label *cache, int64_t value)
{
    struct last_label *last = &cache[(uint64_t)value % NUMBER_LABEL_CACHE];
    if (last->index > 0 && last->value == value)
        return last->index;
    char text[24];
    snprintf(text, sizeof text, "%lld", (long long)value);
    last->value = value;
    last->index = string_index(&b->t, text);
    return last->index;
}

static int add_sample(builder *b, const pv_record *r, const pv_sample *s, pv_error *err)
{
    uint64_t order;
    if (pv_symbolizer_at(b->sym, r->index, (s->sample_type & PV_SAMPLE_TIME) != 0, s->time,
                         &order, err))
        return -1;
    pv_pprof_tables *t = &b->t;
    bool has_thread = (s->sample_type & PV_SAMPLE_TID) != 0;
    int64_t labels[PV_PPROF_SAMPLE_LABEL_WORDS] = {0};
    if (has_thread) {
        labels[0] = number_label(b, b->last[0], (int32_t)s->pid);
        labels[1] = number_label(b, b->last[1], (int32_t)s->tid);
        const char *comm = pv_symbolizer_comm(b->sym, (int32_t)s->tid, order);
        /* by text: the symbolizer's names move as its buffer grows */
        if (comm && (b->last_comm_index <= 0 || strcmp(comm, b->last_comm) != 0)) {
            size_t n = strlen(comm);
            labels[3] = string_index(t, comm);
            /* a name too long to keep is looked up each time */
            b->last_comm_index = n < sizeof b->last_comm ? labels[3] : 0;
            if (b->last_comm_index > 0)
                memcpy(b->last_comm, comm, n + 1);
        } else {
            labels[3] = comm ? b->last_comm_index : 0;
        }
    }
    if (s->sample_type & PV_SAMPLE_CPU)
        labels[2] = number_label(b, b->last[2], (int64_t)s->cpu);
    b->key_len = 0;
    for (int k = 0; k < PV_PPROF_SAMPLE_LABEL_WORDS; k++)
        b->key_len += pv_varint_put(b->key + b->key_len, labels[k] < 0 ? 0 : (uint64_t)labels[k]);
    bool ok = build_stack(b, s, order);
    for (int k = 0; k < PV_PPROF_SAMPLE_LABEL_WORDS; k++)
        ok = ok && labels[k] >= 0;
    if (!ok && b->sample_stack.failed)
        return pv_sample_stack_fail(&b->sample_stack, err);
    if (!ok)
        return pv_error_set(err, "%s: out of memory building the pprof profile", b->file->path);
    bool added;
    int64_t i = pv_key_table_intern(&t->samples, b->key, b->key_len, &added);
    if (i < 0 || !pv_array_grow((void **)&t->counts, &t->cap_counts, (size_t)i + 1, sizeof(int64_t)) ||
        !pv_array_grow((void **)&t->periods, &t->cap_periods, (size_t)i + 1, sizeof(int64_t)))
        return pv_error_set(err, "%s: out of memory building the pprof profile", b->file->path);
    if (added)
        t->counts[i] = t->periods[i] = 0;
    t->counts[i]++;
    t->periods[i] += (int64_t)(s->has_period ? s->period : 1);
    return 0;
}

static int sample_visit(void *ctx, const pv_record *r, const pv_sample *s, pv_error *err)
{
    builder *b = ctx;
    if ((size_t)s->attr_index != b->attr_index)
        return 0;
    if (add_sample(b, r, s, err))
        return -1;
    if (s->sample_type & PV_SAMPLE_TIME) {
        b->first_time = s->time < b->first_time ? s->time : b->first_time;
        b->last_time = s->time > b->last_time ? s->time : b->last_time;
    }
    return 0;
}

static bool is_dummy(const pv_attr *a)
{
    return a->type == TYPE_SOFTWARE && a->config == SW_DUMMY;
}

int pv_pprof_default_event(pv_file *f)
{
    for (size_t i = 0; i < f->nr_attrs; i++)
        if (!is_dummy(&f->attrs[i]))
            return (int)i;
    return -1;
}

int pv_pprof_find_event(pv_file *f, const char *name)
{
    for (size_t i = 0; i < f->nr_attrs; i++) {
        const char *have = pv_file_event_name(f, i);
        if (have && strcmp(have, name) == 0)
            return (int)i;
    }
    return -1;
}

/* The sample types, the period and the label names. */
static bool describe(pv_pprof_tables *t, pv_file *f, size_t attr_index)
{
    const pv_attr *a = &f->attrs[attr_index];
    const char *type = pv_file_event_name(f, attr_index), *unit = "count";
    if (a->type == TYPE_SOFTWARE && a->config == SW_CPU_CLOCK)
        type = "cpu", unit = "nanoseconds";
    else if (a->type == TYPE_SOFTWARE && a->config == SW_TASK_CLOCK)
        unit = "nanoseconds";
    static const char *const labels[4] = { "pid", "tid", "cpu", "comm" };
    if (string_index(t, "") != 0)
        return false;
    t->count_type[0] = string_index(t, "samples");
    t->count_type[1] = string_index(t, "count");
    t->period_type[0] = string_index(t, type ? type : "events");
    t->period_type[1] = string_index(t, unit);
    bool ok = t->count_type[0] > 0 && t->count_type[1] > 0 && t->period_type[0] > 0 &&
              t->period_type[1] > 0;
    for (int i = 0; i < 4; i++) {
        t->label_keys[i] = string_index(t, labels[i]);
        ok = ok && t->label_keys[i] > 0;
    }
    t->period = pv_attr_flag(a, PV_ATTR_FREQ) ? 0 : (int64_t)a->sample_period;
    return ok;
}

pv_pprof_builder *pv_pprof_builder_new(void)
{
    return pv_calloc(1, sizeof(pv_pprof_builder));
}

int pv_pprof_add(pv_pprof_builder *b, pv_file *f, pv_symbolizer *sym, size_t attr_index,
                 pv_error *err)
{
    if (!b->described && !describe(&b->t, f, attr_index))
        return pv_error_set(err, "%s: out of memory building the pprof profile", f->path);
    b->described = true;
    b->file = f;
    b->sym = sym;
    b->attr_index = attr_index;
    b->first_time = UINT64_MAX;
    b->last_time = 0;
    memset(b->last, 0, sizeof b->last);
    b->last_comm_index = 0;
    b->last_map_index = -1;
    b->nr_map_mappings = 0;     /* numbered as map_memo, per file */
    memset(b->frame_cache, 0, sizeof b->frame_cache);     /* map numbers are per file */
    int rc = pv_sample_pass(f, sample_visit, b, err);
    if (rc == 0 && b->first_time <= b->last_time)
        b->duration += b->last_time - b->first_time;
    /* the memo's keys hold this file's symbolizer's maps */
    pv_key_table_free(&b->map_memo);
    b->file = NULL;
    b->sym = NULL;
    return rc < 0 ? -1 : 0;
}

int pv_pprof_finish(pv_pprof_builder *b, pv_pprof_tables *out, pv_error *err)
{
    pv_pprof_tables *t = &b->t;
    t->duration_nanos = (int64_t)b->duration;
    /* the flags, known once every location is in: into the mapping keys' last word */
    int rc = 0;
    pv_key_table flagged = {0};
    for (size_t i = 0; i < t->mappings.nr && rc == 0; i++) {
        size_t len;
        const uint64_t *key = pv_key_table_key(&t->mappings, i, &len);
        uint64_t words[6];
        memcpy(words, key, 5 * sizeof words[0]);
        words[5] = b->mapping_flags[i];
        bool added;
        if (pv_key_table_intern(&flagged, words, sizeof words, &added) != (int64_t)i)
            rc = -1;
    }
    pv_key_table_free(&t->mappings);
    t->mappings = flagged;
    if (rc < 0)
        return pv_error_set(err, "out of memory building the pprof profile");
    /* complete: the encoder only reads the keys, so the lookup slots (a
     * quarter of the samples' and locations' memory) go before it runs */
    pv_key_table *tables[] = { &t->strings, &t->functions, &t->mappings, &t->locations,
                               &t->samples };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        pv_key_table_drop_lookup(tables[i]);
    *out = *t;
    memset(t, 0, sizeof *t);
    return 0;
}

void pv_pprof_builder_free(pv_pprof_builder *b)
{
    if (!b)
        return;
    pv_pprof_tables_free(&b->t);
    pv_key_table_free(&b->map_memo);
    free(b->map_mappings);
    free(b->mapping_flags);
    free(b);
}
