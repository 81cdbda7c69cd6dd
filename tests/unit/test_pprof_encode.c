/*
 * Unit tests of src/base/key_table.c (interned keys) and
 * src/render/pprof_encode.c (pprof tables to gzip'd profile.proto): the
 * bytes written are gunzipped with zlib and unpacked with protobuf-c's
 * generated reader, every field checked against the tables, and protobuf-c
 * packs what it read into the same bytes.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdlib.h>
#include <string.h>

#include <profile.pb-c.h>
#include <zlib.h>

#include "base/key_table.h"
#include "render/pprof_encode.h"
#include "render/varint.h"
#include "unit_check.h"

static void key_table_tests(void)
{
    pv_key_table t = {0};
    bool added[4];
    int64_t a = pv_key_table_intern(&t, "abc", 4, &added[0]);
    int64_t b = pv_key_table_intern(&t, "", 0, &added[1]);
    int64_t c = pv_key_table_intern(&t, "abc", 4, &added[2]);
    int64_t d = pv_key_table_intern(&t, "abd", 4, &added[3]);
    check(a == 0 && b == 1 && c == 0 && d == 2 && added[0] && added[1] && !added[2] && added[3],
          "key table: numbered in the order first seen, an equal key is the same number",
          "%lld %lld %lld %lld", (long long)a, (long long)b, (long long)c, (long long)d);
    size_t len;
    const char *k = pv_key_table_key(&t, 2, &len);
    check(len == 4 && memcmp(k, "abd", 4) == 0, "key table: a key's bytes", "len %zu", len);
    /* past several rehashes, every key keeps its number */
    bool kept = true;
    for (uint64_t i = 0; i < 5000; i++) {
        bool fresh;
        kept = kept && pv_key_table_intern(&t, &i, sizeof i, &fresh) == (int64_t)(3 + i) && fresh;
    }
    for (uint64_t i = 0; i < 5000; i++) {
        bool fresh;
        kept = kept && pv_key_table_intern(&t, &i, sizeof i, &fresh) == (int64_t)(3 + i) && !fresh;
    }
    check(kept && t.nr == 5003, "key table: 5000 keys through rehashes keep their numbers",
          "nr %zu", t.nr);
    /* the lookup dropped (a complete table): the keys stay, and an intern
     * after it finds them again */
    pv_key_table_drop_lookup(&t);
    k = pv_key_table_key(&t, 2, &len);
    bool fresh = true;
    uint64_t probe = 4999;
    int64_t again = pv_key_table_intern(&t, &probe, sizeof probe, &fresh);
    check(t.slots != NULL && len == 4 && memcmp(k, "abd", 4) == 0 && again == 3 + 4999 && !fresh &&
              t.nr == 5003,
          "key table: after its lookup is dropped, keys are read and found again",
          "again %lld nr %zu", (long long)again, t.nr);
    /* trimmed (a complete table, as a line table's paths): its arrays
     * hold the keys and no more, which read and are found as before */
    pv_key_table_drop_lookup(&t);
    pv_key_table_trim(&t);
    bool trimmed = t.cap == t.nr + 1 && t.cap_bytes == t.nr_bytes + 1;
    k = pv_key_table_key(&t, 2, &len);
    bool read = len == 4 && memcmp(k, "abd", 4) == 0;
    again = pv_key_table_intern(&t, &probe, sizeof probe, &fresh);
    uint64_t next = 5000;
    int64_t added_after = pv_key_table_intern(&t, &next, sizeof next, &fresh);
    check(trimmed && read && again == 3 + 4999 && added_after == 5003 && fresh && t.nr == 5004,
          "key table: trimmed, keys are read, found and added as before",
          "cap %zu/%zu bytes %zu/%zu again %lld added %lld", t.cap, t.nr, t.cap_bytes, t.nr_bytes,
          (long long)again, (long long)added_after);
    pv_key_table_free(&t);

    /* past 4 GiB of keys, offsets are 32-bit plus a wrap per 4 GiB: the
     * starts of a table whose key 1 ends and key 2 starts past 4 GiB
     * (made by hand: no test holds 4 GiB) */
    uint32_t starts[4] = { 0, 0xfffffff0u, 0x10u, 0x20u };
    size_t wraps[1] = { 2 };
    pv_key_table big = { .starts = starts, .nr = 3, .wraps = wraps, .nr_wraps = 1 };
    check(pv_key_table_start(&big, 1) == 0xfffffff0u &&
              pv_key_table_start(&big, 2) == ((size_t)1 << 32 | 0x10) &&
              pv_key_table_start(&big, 3) == ((size_t)1 << 32 | 0x20),
          "key table: a start past 4 GiB is its 32 bits plus the wraps before it",
          "%zx %zx", pv_key_table_start(&big, 2), pv_key_table_start(&big, 3));
}

static int64_t str(pv_pprof_tables *t, const char *s)
{
    bool added;
    return pv_key_table_intern(&t->strings, s, strlen(s) + 1, &added);
}

/* a key of varints (locations, samples: pprof_encode.h) */
static void add_varints(pv_key_table *table, const uint64_t *words, size_t n)
{
    uint8_t key[64 * PV_VARINT_MAX];
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += pv_varint_put(key + len, words[i]);
    bool added;
    pv_key_table_intern(table, key, len, &added);
}

static void add(pv_key_table *table, const uint64_t *words, size_t n)
{
    bool added;
    pv_key_table_intern(table, words, n * sizeof *words, &added);
}

/* gunzip: the profile's bytes */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *out_len)
{
    size_t cap = 1 << 20;
    uint8_t *out = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!out || inflateInit2(&z, 15 + 16) != Z_OK) {
        free(out);
        return NULL;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = inflate(&z, Z_FINISH);
    *out_len = z.total_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

static void encode_tests(void)
{
    pv_pprof_tables t;
    memset(&t, 0, sizeof t);
    str(&t, "");
    t.count_type[0] = str(&t, "samples");
    t.count_type[1] = str(&t, "count");
    t.period_type[0] = str(&t, "cpu");
    t.period_type[1] = str(&t, "nanoseconds");
    t.label_keys[0] = str(&t, "pid");
    t.label_keys[1] = str(&t, "tid");
    t.label_keys[2] = str(&t, "cpu");
    t.label_keys[3] = str(&t, "comm");
    t.period = 1000;
    t.duration_nanos = 12345;
    t.comment = str(&t, "a comment");
    int64_t mix = str(&t, "mix"), hot = str(&t, "hot_a"), file = str(&t, "hot.c");
    int64_t bin = str(&t, "/bin/hot"), id = str(&t, "0123abcd");
    int64_t pid = str(&t, "42"), cpu0 = str(&t, "0"), comm = str(&t, "hot");
    uint64_t f1[] = { (uint64_t)mix, (uint64_t)file }, f2[] = { (uint64_t)hot, (uint64_t)file };
    add(&t.functions, f1, 2);
    add(&t.functions, f2, 2);
    uint64_t m1[] = { 0x1000, 0x2000, 0x0, (uint64_t)bin, (uint64_t)id,
                      PV_PPROF_MAPPING_FUNCTIONS | PV_PPROF_MAPPING_INLINES };
    add(&t.mappings, m1, 6);
    /* an inline location: mix at line 12 inlined into hot_a at 21 */
    uint64_t l1[] = { 1, 0x1234, 1, 12, 2, 21 }, l2[] = { 0, 0xdead };
    add_varints(&t.locations, l1, 6);
    add_varints(&t.locations, l2, 2);
    uint64_t s1[] = { (uint64_t)pid, (uint64_t)pid, (uint64_t)cpu0, (uint64_t)comm, 1, 2 };
    uint64_t s2[] = { 0, 0, 0, 0, 2 };
    add_varints(&t.samples, s1, 6);
    add_varints(&t.samples, s2, 5);
    int64_t counts[2] = { 3, 1 }, periods[2] = { 3000, 1000 };
    t.counts = malloc(sizeof counts);
    t.periods = malloc(sizeof periods);
    memcpy(t.counts, counts, sizeof counts);
    memcpy(t.periods, periods, sizeof periods);
    t.cap_counts = t.cap_periods = 2;

    uint8_t *gz = NULL;
    size_t gz_len = 0, len = 0;
    pv_error err = {0};
    int rc = pv_pprof_encode(&t, NULL, &gz, &gz_len, &err);
    check(rc == 0 && gz_len > 18 && gz[0] == 0x1f && gz[1] == 0x8b, "pprof: gzip-compressed",
          "rc %d, %s", rc, err.msg);
    uint8_t *raw = rc == 0 ? gunzip(gz, gz_len, &len) : NULL;
    Perftools__Profiles__Profile *p =
        raw ? perftools__profiles__profile__unpack(NULL, len, raw) : NULL;
    check(p != NULL, "pprof: protobuf-c reads the profile back", "gunzip or unpack failed");
    if (p) {
        check(p->n_string_table == t.strings.nr && strcmp(p->string_table[0], "") == 0 &&
              strcmp(p->string_table[mix], "mix") == 0,
              "pprof: string table, \"\" first", "%zu strings", p->n_string_table);
        check(p->n_sample_type == 2 && p->sample_type[0]->type == t.count_type[0] &&
              p->sample_type[1]->unit == t.period_type[1] &&
              p->default_sample_type == t.period_type[0] && p->period == 1000 &&
              p->period_type && p->period_type->type == t.period_type[0] &&
              p->duration_nanos == 12345 && p->n_comment == 1 && p->comment[0] == t.comment,
              "pprof: sample types samples/count and cpu/nanoseconds, the period the default",
              "%zu types", p->n_sample_type);
        check(p->n_mapping == 1 && p->mapping[0]->id == 1 && p->mapping[0]->memory_start == 0x1000 &&
              p->mapping[0]->memory_limit == 0x2000 && p->mapping[0]->filename == bin &&
              p->mapping[0]->build_id == id && p->mapping[0]->has_functions &&
              !p->mapping[0]->has_line_numbers && p->mapping[0]->has_inline_frames,
              "pprof: the mapping's range, file, build-id and flags", "%zu", p->n_mapping);
        check(p->n_location == 2 && p->location[0]->id == 1 && p->location[0]->mapping_id == 1 &&
              p->location[0]->address == 0x1234 && p->location[0]->n_line == 2 &&
              p->location[0]->line[0]->function_id == 1 && p->location[0]->line[0]->line == 12 &&
              p->location[0]->line[1]->function_id == 2 && p->location[0]->line[1]->line == 21 &&
              p->location[1]->mapping_id == 0 && p->location[1]->n_line == 0,
              "pprof: an inline location's Lines innermost first; an unmapped one without",
              "%zu", p->n_location);
        check(p->n_function == 2 && p->function[1]->id == 2 && p->function[1]->name == hot &&
              p->function[1]->filename == file,
              "pprof: functions with names and files", "%zu", p->n_function);
        bool labels = p->n_sample == 2 && p->sample[0]->n_label == 4 &&
                      p->sample[0]->label[0]->key == t.label_keys[0] &&
                      p->sample[0]->label[0]->str == pid &&
                      p->sample[0]->label[2]->str == cpu0 &&
                      p->sample[0]->label[3]->str == comm && p->sample[1]->n_label == 0;
        check(p->n_sample == 2 && p->sample[0]->n_location_id == 2 &&
              p->sample[0]->location_id[0] == 1 && p->sample[0]->value[0] == 3 &&
              p->sample[0]->value[1] == 3000 && p->sample[1]->n_location_id == 1 &&
              p->sample[1]->value[1] == 1000 && labels,
              "pprof: samples, leaf first, their values and text labels (none when not recorded)",
              "%zu", p->n_sample);
        /* the twin: protobuf-c packs what it read into the same bytes */
        size_t size = perftools__profiles__profile__get_packed_size(p);
        uint8_t *again = malloc(size ? size : 1);
        size_t packed = again ? perftools__profiles__profile__pack(p, again) : 0;
        check(again && packed == len && memcmp(again, raw, len) == 0,
              "pprof: the bytes are protobuf-c's packing of the same profile",
              "%zu bytes, protobuf-c %zu", len, packed);
        free(again);
        perftools__profiles__profile__free_unpacked(p, NULL);
    }
    free(raw);
    free(gz);
    pv_pprof_tables_free(&t);
}

int main(void)
{
    key_table_tests();
    encode_tests();
    return failures != 0;
}
