#include "render/pprof_encode.h"
#include "base/pv_alloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <profile.pb-c.h>   /* generated from render/profile.proto (build/gen/) */
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

void pv_pprof_tables_free(pv_pprof_tables *t)
{
    pv_key_table_free(&t->strings);
    pv_key_table_free(&t->functions);
    pv_key_table_free(&t->mappings);
    pv_key_table_free(&t->locations);
    pv_key_table_free(&t->samples);
    free(t->counts);
    free(t->periods);
    memset(t, 0, sizeof *t);
}

/* Key i of a table of uint64 arrays: its words and how many. */
static const uint64_t *words(const pv_key_table *t, size_t i, size_t *n)
{
    size_t len;
    const void *key = pv_key_table_key(t, i, &len);
    *n = len / sizeof(uint64_t);
    return key;     /* every key of these tables is whole words, so aligned */
}

/* What the message points into while it is packed: one allocation per
 * kind of message, freed together. */
typedef struct arena {
    char **strings;
    Function *functions;
    Function **function_ptrs;
    Mapping *mappings;
    Mapping **mapping_ptrs;
    Location *locations;
    Location **location_ptrs;
    Line *lines;
    Line **line_ptrs;
    Sample *samples;
    Sample **sample_ptrs;
    int64_t *values;
    Label *labels;
    Label **label_ptrs;
} arena;

static void arena_free(arena *a)
{
    free(a->strings);
    free(a->functions);
    free(a->function_ptrs);
    free(a->mappings);
    free(a->mapping_ptrs);
    free(a->locations);
    free(a->location_ptrs);
    free(a->lines);
    free(a->line_ptrs);
    free(a->samples);
    free(a->sample_ptrs);
    free(a->values);
    free(a->labels);
    free(a->label_ptrs);
}

static void *array(size_t n, size_t size)
{
    return pv_calloc(n ? n : 1, size);
}

static void fill_functions(const pv_pprof_tables *t, arena *a, Profile *p)
{
    for (size_t i = 0; i < t->functions.nr; i++) {
        size_t n;
        const uint64_t *w = words(&t->functions, i, &n);
        Function *f = &a->functions[i];
        perftools__profiles__function__init(f);
        f->id = i + 1;
        f->name = (int64_t)w[0];
        f->system_name = (int64_t)w[0];
        f->filename = (int64_t)w[1];
        a->function_ptrs[i] = f;
    }
    p->n_function = t->functions.nr;
    p->function = a->function_ptrs;
}

static void fill_mappings(const pv_pprof_tables *t, arena *a, Profile *p)
{
    for (size_t i = 0; i < t->mappings.nr; i++) {
        size_t n;
        const uint64_t *w = words(&t->mappings, i, &n);
        Mapping *m = &a->mappings[i];
        perftools__profiles__mapping__init(m);
        m->id = i + 1;
        m->memory_start = w[0];
        m->memory_limit = w[1];
        m->file_offset = w[2];
        m->filename = (int64_t)w[3];
        m->build_id = (int64_t)w[4];
        m->has_functions = (w[5] & PV_PPROF_MAPPING_FUNCTIONS) != 0;
        m->has_filenames = (w[5] & PV_PPROF_MAPPING_FILENAMES) != 0;
        m->has_line_numbers = (w[5] & PV_PPROF_MAPPING_LINES) != 0;
        m->has_inline_frames = (w[5] & PV_PPROF_MAPPING_INLINES) != 0;
        a->mapping_ptrs[i] = m;
    }
    p->n_mapping = t->mappings.nr;
    p->mapping = a->mapping_ptrs;
}

static void fill_locations(const pv_pprof_tables *t, arena *a, Profile *p)
{
    size_t next_line = 0;
    for (size_t i = 0; i < t->locations.nr; i++) {
        size_t n;
        const uint64_t *w = words(&t->locations, i, &n);
        Location *l = &a->locations[i];
        perftools__profiles__location__init(l);
        l->id = i + 1;
        l->mapping_id = w[0];
        l->address = w[1];
        l->n_line = (n - 2) / 2;
        l->line = a->line_ptrs + next_line;
        for (size_t k = 0; k < l->n_line; k++) {
            Line *line = &a->lines[next_line];
            perftools__profiles__line__init(line);
            line->function_id = w[2 + 2 * k];
            line->line = (int64_t)w[3 + 2 * k];
            a->line_ptrs[next_line++] = line;
        }
        a->location_ptrs[i] = l;
    }
    p->n_location = t->locations.nr;
    p->location = a->location_ptrs;
}

static void fill_samples(const pv_pprof_tables *t, arena *a, Profile *p)
{
    size_t next_label = 0;
    for (size_t i = 0; i < t->samples.nr; i++) {
        size_t n;
        const uint64_t *w = words(&t->samples, i, &n);
        Sample *s = &a->samples[i];
        perftools__profiles__sample__init(s);
        s->n_location_id = n - PV_PPROF_SAMPLE_LABEL_WORDS;
        s->location_id = (uint64_t *)(w + PV_PPROF_SAMPLE_LABEL_WORDS);
        s->n_value = 2;
        s->value = a->values + 2 * i;
        s->value[0] = t->counts[i];
        s->value[1] = t->periods[i];
        s->label = a->label_ptrs + next_label;
        for (int k = 0; k < PV_PPROF_SAMPLE_LABEL_WORDS; k++) {
            if (!w[k])
                continue;
            Label *label = &a->labels[next_label];
            perftools__profiles__label__init(label);
            label->key = t->label_keys[k];
            label->str = (int64_t)w[k];
            a->label_ptrs[next_label++] = label;
            s->n_label++;
        }
        a->sample_ptrs[i] = s;
    }
    p->n_sample = t->samples.nr;
    p->sample = a->sample_ptrs;
}

/* gzip (RFC 1952) of in, as pprof expects on disk. */
static int gzip(const uint8_t *in, size_t in_len, uint8_t **out, size_t *out_len,
                const char **why)
{
    if (in_len > UINT_MAX) {
        *why = "profile larger than zlib takes in one call (4 GiB)";
        return -1;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a 32 KiB window with the gzip header and trailer */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        *why = "zlib: deflateInit2 failed";
        return -1;
    }
    uLong bound = deflateBound(&z, (uLong)in_len);
    uint8_t *buf = pv_malloc(bound ? bound : 1);
    if (!buf) {
        deflateEnd(&z);
        *why = "out of memory";
        return -1;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)in_len;
    z.next_out = buf;
    z.avail_out = (uInt)bound;
    int rc = deflate(&z, Z_FINISH);
    *out_len = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        *why = "zlib: deflate did not finish";
        return -1;
    }
    *out = buf;
    return 0;
}

int pv_pprof_encode(const pv_pprof_tables *t, uint8_t **out, size_t *out_len, const char **why)
{
    *out = NULL;
    *out_len = 0;
    *why = "out of memory";
    size_t nr_lines = 0;
    for (size_t i = 0; i < t->locations.nr; i++) {
        size_t n;
        words(&t->locations, i, &n);
        nr_lines += (n - 2) / 2;
    }
    size_t nr_labels = t->samples.nr * PV_PPROF_SAMPLE_LABEL_WORDS;
    arena a = {
        .strings = array(t->strings.nr, sizeof(char *)),
        .functions = array(t->functions.nr, sizeof(Function)),
        .function_ptrs = array(t->functions.nr, sizeof(Function *)),
        .mappings = array(t->mappings.nr, sizeof(Mapping)),
        .mapping_ptrs = array(t->mappings.nr, sizeof(Mapping *)),
        .locations = array(t->locations.nr, sizeof(Location)),
        .location_ptrs = array(t->locations.nr, sizeof(Location *)),
        .lines = array(nr_lines, sizeof(Line)),
        .line_ptrs = array(nr_lines, sizeof(Line *)),
        .samples = array(t->samples.nr, sizeof(Sample)),
        .sample_ptrs = array(t->samples.nr, sizeof(Sample *)),
        .values = array(t->samples.nr, 2 * sizeof(int64_t)),
        .labels = array(nr_labels, sizeof(Label)),
        .label_ptrs = array(nr_labels, sizeof(Label *)),
    };
    int rc = -1;
    uint8_t *packed = NULL;
    if (!a.strings || !a.functions || !a.function_ptrs || !a.mappings || !a.mapping_ptrs ||
        !a.locations || !a.location_ptrs || !a.lines || !a.line_ptrs || !a.samples ||
        !a.sample_ptrs || !a.values || !a.labels || !a.label_ptrs)
        goto done;

    Profile p;
    perftools__profiles__profile__init(&p);
    for (size_t i = 0; i < t->strings.nr; i++) {
        size_t len;
        a.strings[i] = (char *)pv_key_table_key(&t->strings, i, &len);
    }
    p.n_string_table = t->strings.nr;
    p.string_table = a.strings;

    ValueType count_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
    ValueType period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
    ValueType event_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
    count_type.type = t->count_type[0];
    count_type.unit = t->count_type[1];
    period_type.type = event_type.type = t->period_type[0];
    period_type.unit = event_type.unit = t->period_type[1];
    ValueType *sample_types[2] = { &count_type, &period_type };
    p.n_sample_type = 2;
    p.sample_type = sample_types;
    /* the period is pprof's default (the last type, said again): perf
     * report's percentages are of the period */
    p.default_sample_type = t->period_type[0];
    p.period_type = &event_type;
    p.period = t->period;
    p.duration_nanos = t->duration_nanos;
    if (t->comment) {
        p.n_comment = 1;
        p.comment = (int64_t *)&t->comment;
    }
    fill_functions(t, &a, &p);
    fill_mappings(t, &a, &p);
    fill_locations(t, &a, &p);
    fill_samples(t, &a, &p);

    size_t size = perftools__profiles__profile__get_packed_size(&p);
    packed = pv_malloc(size ? size : 1);
    if (!packed)
        goto done;
    size_t packed_len = perftools__profiles__profile__pack(&p, packed);
    rc = gzip(packed, packed_len, out, out_len, why);
done:
    free(packed);
    arena_free(&a);
    return rc;
}
