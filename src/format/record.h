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
    uint8_t size_repair;   /* a pv_size_repair: 0 but for a COMPRESSED2 whose
                              header.size and data_size disagree */
} pv_record;

/* perf 6.16's writer (commit 208c0e168344, until its fix "perf record: Fix
 * multiple PERF_RECORD_COMPRESSED2 records per push") can leave a
 * COMPRESSED2's header.size and data_size disagreeing.  The file walk sizes
 * such a record by what the bytes that follow prove (stream/file_walk.c). */
typedef enum pv_size_repair {
    PV_SIZE_AS_WRITTEN = 0,
    /* size is not the header's: the record ends where data_size (or the
     * chain of records perf wrote inside it) says the next one starts */
    PV_SIZE_FROM_DATA,
    /* a record perf wrote inside another's data_size: its header.size is
     * right, its data_size was never written; its data is its body */
    PV_SIZE_DATA_SIZE_UNSET,
} pv_size_repair;

#endif
