/*
 * Typed decoders of the user records that the stream itself reads, below the
 * record decoders of decode/record_types.h: the walk (how far a record's
 * trailing data reaches), decompression (where a container's data is), pipe
 * mode's header (events, names, feature sections) and diagnostics.  The
 * fields JSON of perf_records uses the same decoders.  HEADER_BUILD_ID is
 * decoded by format/build_ids.h, as one entry of a build-id table.
 *
 * User records have no sample_id_all trailer.  Layouts are offsets within
 * the body, after the 8-byte header, as perf writes them.  Pointers point
 * into the record's bytes and are valid as long as the record is.  Errors
 * name the record, its offset and the field (format/record_reader.h).
 */
#ifndef PV_USER_RECORDS_H
#define PV_USER_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/attr.h"
#include "format/perf_file.h"
#include "format/record.h"
#include "base/pv_error.h"

/* HEADER_ATTR: 0 perf_event_attr (attr.size bytes; 0 means the first
 * version's 64), then u64 ids to the end of the record. */
typedef struct pv_rec_header_attr {
    pv_attr attr;              /* its ids are not filled: see ids below */
    const uint8_t *ids;        /* nr_ids u64s, read with pv_rec_header_attr_id */
    uint64_t nr_ids;
    bool swap;
} pv_rec_header_attr;

int pv_rec_header_attr_decode(const pv_file *f, const pv_record *rec, pv_rec_header_attr *out,
                              pv_error *err);
uint64_t pv_rec_header_attr_id(const pv_rec_header_attr *a, uint64_t i);

/* EVENT_UPDATE: 0 type u64, 8 id u64, 16 by type:
 *   0 unit[] (string), 1 scale (a double), 2 name[] (string),
 *   3 cpus (a cpu map, the layout of a CPU_MAP record's body) */
enum {
    PV_EVENT_UPDATE_UNIT = 0,
    PV_EVENT_UPDATE_SCALE = 1,
    PV_EVENT_UPDATE_NAME = 2,
    PV_EVENT_UPDATE_CPUS = 3,
};

typedef struct pv_rec_event_update {
    uint64_t type, id;
    const char *text;          /* unit or name: text_len bytes, not NUL-terminated */
    uint64_t text_len;
    double scale;
    const uint8_t *payload;    /* what follows id: payload_size bytes at */
    uint64_t payload_size;     /* file offset payload_offset (the cpu map) */
    uint64_t payload_offset;
} pv_rec_event_update;

int pv_rec_event_update_decode(const pv_file *f, const pv_record *rec, pv_rec_event_update *out,
                               pv_error *err);

/* HEADER_FEATURE (pipe mode): 0 feat_id u64, 8 the feature section's bytes
 * to the end of the record. */
typedef struct pv_rec_header_feature {
    uint64_t feat_id;
    uint64_t data_offset, data_size;   /* the section, in the file */
} pv_rec_header_feature;

int pv_rec_header_feature_decode(const pv_file *f, const pv_record *rec,
                                 pv_rec_header_feature *out, pv_error *err);

/* HEADER_TRACING_DATA: 0 size u32, 4 what the record holds after it.  In
 * pipe mode the tracing data (size bytes) follows the record, outside
 * header.size, and the record holds 4 bytes of padding.  simpleperf's
 * tracing record (type 32777) has the same layout with the data inside. */
typedef struct pv_rec_tracing_data {
    uint32_t size;
    const uint8_t *inside;     /* inside_len bytes after size, at file offset */
    uint64_t inside_len;       /* inside_offset */
    uint64_t inside_offset;
} pv_rec_tracing_data;

int pv_rec_tracing_data_decode(const pv_file *f, const pv_record *rec, pv_rec_tracing_data *out,
                               pv_error *err);

/* AUXTRACE: 0 size u64, 8 offset u64, 16 reference u64, 24 idx u32,
 *   28 tid u32, 32 cpu u32, 36 reserved u32.  size bytes of trace data
 *   follow the record, outside header.size. */
typedef struct pv_rec_auxtrace {
    uint64_t size, offset, reference;
    uint32_t idx, tid, cpu;
} pv_rec_auxtrace;

int pv_rec_auxtrace_decode(const pv_file *f, const pv_record *rec, pv_rec_auxtrace *out,
                           pv_error *err);

/* COMPRESSED:  0 zstd data to the end of the record
 * COMPRESSED2 (perf 6.16+): 0 data_size u64, 8 zstd data, padding to 8.
 * perf reads data_size bytes of data; the data here is that, but never more
 * than the record holds (overstated says by how much data_size went past
 * it), and all of it for a record whose data_size perf never wrote
 * (PV_SIZE_DATA_SIZE_UNSET, format/record.h). */
typedef struct pv_rec_compressed {
    bool has_data_size;        /* COMPRESSED2 */
    uint64_t data_size;        /* as written; COMPRESSED: the body's size */
    const uint8_t *data;
    uint64_t data_len;         /* the zstd bytes */
    uint64_t overstated;       /* data_size - what the record holds, or 0 */
    uint16_t written_size;     /* header.size as written (the walk may have
                                  sized the record otherwise: size_repair) */
} pv_rec_compressed;

int pv_rec_compressed_decode(const pv_file *f, const pv_record *rec, pv_rec_compressed *out,
                             pv_error *err);

#endif
