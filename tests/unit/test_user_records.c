/*
 * Unit test of the user-record decoders the stream reads
 * (src/format/user_records.h): HEADER_ATTR, EVENT_UPDATE, HEADER_FEATURE,
 * HEADER_TRACING_DATA, AUXTRACE, COMPRESSED and COMPRESSED2, built byte by
 * byte in both byte orders, and short records that must be errors naming
 * the file, the record, its offset and the field.
 *
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "format/perf_abi.h"
#include "format/user_records.h"
#include "byte_builder.h"
#include "unit_check.h"
#include "record_checks.h"

static void test_header_attr(bool be)
{
    pv_file f = fake_file(NULL, be);
    byte_builder w;
    pv_error err;
    pv_rec_header_attr h;
    /* a VER0 attr: type, size, config, sample_period, sample_type,
     * read_format, flags, then 16 bytes to its 64; then two ids */
    bb_record_start(&w, be);
    bb_u32(&w, 1); bb_u32(&w, 64); bb_u64(&w, 9); bb_u64(&w, 4000); bb_u64(&w, 0x107);
    bb_u64(&w, 0); bb_u64(&w, 1ull << 18); bb_zeros(&w, 16);
    bb_u64(&w, 111); bb_u64(&w, 222);
    pv_record r = bb_record_finish(&w, PV_RECORD_HEADER_ATTR, 0, 0);
    const char *what = named("HEADER_ATTR: the attr and its ids", be);
    DECODED(what, pv_rec_header_attr_decode(&f, &r, &h, &err), err);
    EQ(what, h.attr.type, 1);
    EQ(what, h.attr.config, 9);
    EQ(what, h.attr.sample_type, 0x107);
    EQ(what, h.nr_ids, 2);
    EQ(what, pv_rec_header_attr_id(&h, 0), 111);
    EQ(what, pv_rec_header_attr_id(&h, 1), 222);
    check(true, what, " ");

    /* attr.size 0 means 64 */
    bb_store(w.bytes + 12, 0, 4, be);
    what = named("HEADER_ATTR with attr.size 0: the first version's 64 bytes", be);
    DECODED(what, pv_rec_header_attr_decode(&f, &r, &h, &err), err);
    EQ(what, h.nr_ids, 2);
    check(true, what, " ");

    bb_store(w.bytes + 12, 200, 4, be);
    expect_error(named("HEADER_ATTR whose attr.size is larger than the record", be),
                 pv_rec_header_attr_decode(&f, &r, &h, &err), &err, "ATTR record",
                 "attr.size 200");
    r = bb_record_finish(&w, PV_RECORD_HEADER_ATTR, 0, 12);
    expect_error(named("HEADER_ATTR of a 4-byte body", be),
                 pv_rec_header_attr_decode(&f, &r, &h, &err), &err, "too short", NULL);
}

static void test_event_update(bool be)
{
    pv_file f = fake_file(NULL, be);
    byte_builder w;
    pv_error err;
    pv_rec_event_update u;

    bb_record_start(&w, be);
    bb_u64(&w, PV_EVENT_UPDATE_NAME); bb_u64(&w, 77); bb_padded_string(&w, "cycles:u", 16);
    pv_record r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    const char *what = named("EVENT_UPDATE name", be);
    DECODED(what, pv_rec_event_update_decode(&f, &r, &u, &err), err);
    EQ(what, u.id, 77);
    EQ(what, u.text_len, 8);
    check(memcmp(u.text, "cycles:u", 8) == 0, what, "text is not cycles:u");

    double scale = 0.25;
    uint64_t bits;
    memcpy(&bits, &scale, sizeof bits);
    bb_record_start(&w, be);
    bb_u64(&w, PV_EVENT_UPDATE_SCALE); bb_u64(&w, 78); bb_u64(&w, bits);
    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    what = named("EVENT_UPDATE scale", be);
    DECODED(what, pv_rec_event_update_decode(&f, &r, &u, &err), err);
    check(u.scale == 0.25 && u.id == 78, what, "scale %g, id %llu", u.scale,
          (unsigned long long)u.id);

    bb_record_start(&w, be);
    bb_u64(&w, PV_EVENT_UPDATE_CPUS); bb_u64(&w, 79); bb_u16(&w, 0); bb_u16(&w, 2);
    bb_u16(&w, 0); bb_u16(&w, 3);
    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    what = named("EVENT_UPDATE cpus: the cpu map is the payload", be);
    DECODED(what, pv_rec_event_update_decode(&f, &r, &u, &err), err);
    EQ(what, u.payload_size, 8);
    EQ(what, u.payload_offset, BB_RECORD_OFFSET + 24);
    check(u.payload == w.bytes + 24, what, "payload does not point after the id");

    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 20);
    expect_error(named("EVENT_UPDATE cut inside id", be),
                 pv_rec_event_update_decode(&f, &r, &u, &err), &err, "EVENT_UPDATE record",
                 "id at offset 0x1a48");
    bb_record_start(&w, be);
    bb_u64(&w, PV_EVENT_UPDATE_SCALE); bb_u64(&w, 78); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_EVENT_UPDATE, 0, 0);
    expect_error(named("EVENT_UPDATE scale cut short", be),
                 pv_rec_event_update_decode(&f, &r, &u, &err), &err, "scale at offset", NULL);
}

static void test_framing(bool be)
{
    pv_file f = fake_file(NULL, be);
    byte_builder w;
    pv_error err;

    pv_rec_header_feature hf;
    bb_record_start(&w, be);
    bb_u64(&w, 7); bb_u64(&w, 0x1234); bb_u64(&w, 0x5678);
    pv_record r = bb_record_finish(&w, PV_RECORD_HEADER_FEATURE, 0, 0);
    const char *what = named("HEADER_FEATURE: feat_id and where its section is", be);
    DECODED(what, pv_rec_header_feature_decode(&f, &r, &hf, &err), err);
    EQ(what, hf.feat_id, 7);
    EQ(what, hf.data_offset, BB_RECORD_OFFSET + 16);
    EQ(what, hf.data_size, 16);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_HEADER_FEATURE, 0, 12);
    expect_error(named("HEADER_FEATURE without a whole feat_id", be),
                 pv_rec_header_feature_decode(&f, &r, &hf, &err), &err, "feat_id at offset",
                 NULL);

    pv_rec_tracing_data td;
    bb_record_start(&w, be);
    bb_u32(&w, 4096); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_HEADER_TRACING_DATA, 0, 0);
    what = named("HEADER_TRACING_DATA of a pipe: the size of what follows", be);
    DECODED(what, pv_rec_tracing_data_decode(&f, &r, &td, &err), err);
    EQ(what, td.size, 4096);
    EQ(what, td.inside_len, 4);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_HEADER_TRACING_DATA, 0, 10);
    expect_error(named("HEADER_TRACING_DATA cut inside size", be),
                 pv_rec_tracing_data_decode(&f, &r, &td, &err), &err, "size at offset", NULL);

    pv_rec_auxtrace aux;
    bb_record_start(&w, be);
    bb_u64(&w, 0x10000); bb_u64(&w, 0x2000); bb_u64(&w, 0xabc); bb_u32(&w, 3);
    bb_u32(&w, 4242); bb_u32(&w, 1); bb_u32(&w, 0);
    r = bb_record_finish(&w, PV_RECORD_AUXTRACE, 0, 0);
    what = named("AUXTRACE", be);
    DECODED(what, pv_rec_auxtrace_decode(&f, &r, &aux, &err), err);
    EQ(what, aux.size, 0x10000);
    EQ(what, aux.offset, 0x2000);
    EQ(what, aux.reference, 0xabc);
    EQ(what, aux.idx, 3);
    EQ(what, aux.tid, 4242);
    EQ(what, aux.cpu, 1);
    check(true, what, " ");
    r = bb_record_finish(&w, PV_RECORD_AUXTRACE, 0, 24);
    what = named("AUXTRACE cut after offset: an error, with size still read", be);
    aux.size = 0;
    int rc = pv_rec_auxtrace_decode(&f, &r, &aux, &err);
    expect_error(what, rc, &err, "reference at offset", NULL);
    EQ(what, aux.size, 0x10000);
}

static void test_compressed(bool be)
{
    pv_file f = fake_file(NULL, be);
    byte_builder w;
    pv_error err;
    pv_rec_compressed z;

    bb_record_start(&w, be);
    bb_bytes(&w, "\x28\xb5\x2f\xfd\x01\x02\x03\x04", 8);
    pv_record r = bb_record_finish(&w, PV_RECORD_COMPRESSED, 0, 0);
    const char *what = named("COMPRESSED: the body is the data", be);
    DECODED(what, pv_rec_compressed_decode(&f, &r, &z, &err), err);
    EQ(what, z.has_data_size, false);
    EQ(what, z.data_size, 8);
    EQ(what, z.data_len, 8);
    EQ(what, z.overstated, 0);
    check(z.data == w.bytes + 8, what, "data does not start the body");

    bb_record_start(&w, be);
    bb_u64(&w, 5); bb_bytes(&w, "\x28\xb5\x2f\xfd\x01\0\0\0", 8);
    r = bb_record_finish(&w, PV_RECORD_COMPRESSED2, 0, 0);
    what = named("COMPRESSED2: data_size bytes, the padding left out", be);
    DECODED(what, pv_rec_compressed_decode(&f, &r, &z, &err), err);
    EQ(what, z.data_size, 5);
    EQ(what, z.data_len, 5);
    EQ(what, z.overstated, 0);
    check(z.data == w.bytes + 16, what, "data does not follow data_size");

    bb_store(w.bytes + 8, 11, 8, be);
    what = named("COMPRESSED2 overstating data_size by 3: the record's 8 bytes", be);
    DECODED(what, pv_rec_compressed_decode(&f, &r, &z, &err), err);
    EQ(what, z.data_len, 8);
    EQ(what, z.overstated, 3);
    check(true, what, " ");

    bb_store(w.bytes + 8, 3, 8, be);
    r.size_repair = PV_SIZE_DATA_SIZE_UNSET;
    what = named("COMPRESSED2 perf wrote inside another's data_size: the whole body, "
                 "data_size 3 never written", be);
    DECODED(what, pv_rec_compressed_decode(&f, &r, &z, &err), err);
    EQ(what, z.data_size, 3);
    EQ(what, z.data_len, 8);
    EQ(what, z.overstated, 0);
    EQ(what, z.written_size, 24);
    check(true, what, " ");

    r = bb_record_finish(&w, PV_RECORD_COMPRESSED2, 0, 12);
    expect_error(named("COMPRESSED2 cut inside data_size", be),
                 pv_rec_compressed_decode(&f, &r, &z, &err), &err, "COMPRESSED2 record",
                 "data_size at offset");
}

int main(void)
{
    for (int be = 0; be <= 1; be++) {
        test_header_attr(be);
        test_event_update(be);
        test_framing(be);
        test_compressed(be);
    }
    return failures != 0;
}
