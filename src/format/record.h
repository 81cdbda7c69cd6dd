/*
 * One record of the stream as the walk hands it out: where it sits, its
 * header, and its bytes.  A record is an 8-byte header {u32 type; u16 misc;
 * u16 size} followed by size - 8 bytes of body.  Part of the format, so that
 * decoders of record-borne tables (build ids, compressed containers) need
 * not know how records are walked.
 */
#ifndef PV_RECORD_H
#define PV_RECORD_H

#include <stdbool.h>
#include <stdint.h>

typedef struct pv_record {
    uint64_t index;        /* ordinal in the record stream, 0-based */
    uint32_t segment;      /* which file: 0 the perf.data itself, N+1 its data.N */
    uint64_t file_offset;  /* offset of the header in the file; for a record
                              inside a COMPRESSED container, the container's */
    bool compressed;       /* came out of a COMPRESSED container */
    uint32_t type;
    uint16_t misc;
    uint16_t size;         /* whole record, header included */
    const uint8_t *bytes;  /* size bytes, header included; valid until the next
                              pv_walk_next or pv_walk_end */
} pv_record;

#endif
