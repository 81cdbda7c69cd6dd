/*
 * The entries of a build-id table: the HEADER_BUILD_ID feature section, or
 * the body of one PERF_RECORD_HEADER_BUILD_ID record (a table of one).
 *
 * Each entry is laid out like a record:
 *
 *   offset  size  field
 *   0       4     type (PERF_RECORD_HEADER_BUILD_ID, not checked: perf ignores it)
 *   4       2     misc: cpumode in bits 0-2; bit 15 (MISC_BUILD_ID_SIZE) says
 *                 that byte 20 of build_id holds the id's length
 *   6       2     size of the whole entry, this header included
 *   8       4     pid (s32; -1 for the kernel)
 *   12      24    build_id: with bit 15, u8 data[20], u8 size, u8 pad[3];
 *                 without it, a 20-byte SHA-1 id and 4 bytes of padding
 *   36      ...   filename, NUL-padded up to size
 */
#ifndef PV_BUILD_IDS_H
#define PV_BUILD_IDS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "base/pv_error.h"
#include "format/record.h"

/* header (8) + pid (4) + build_id (24) */
#define PV_BUILD_ID_ENTRY_MIN 36

typedef struct pv_build_id {
    int32_t pid;
    uint16_t misc;                  /* cpumode = misc & PV_MISC_CPUMODE_MASK */
    const uint8_t *id;              /* id_len bytes of build id */
    uint8_t id_len;
    const char *filename;           /* filename_len bytes, not NUL-terminated */
    uint64_t filename_len;
    uint64_t offset;                /* file offset of the entry */
} pv_build_id;

typedef struct pv_build_id_iter {
    const char *path;               /* for messages */
    const char *what;               /* "build_id feature", "HEADER_BUILD_ID record" */
    const uint8_t *data;
    uint64_t size;
    uint64_t pos;
    uint64_t file_offset;           /* of data[0] */
    bool swap;
} pv_build_id_iter;

/* Iterates over size bytes at data (file offset file_offset). */
void pv_build_ids_start(pv_build_id_iter *it, const char *path, const char *what,
                        const uint8_t *data, uint64_t size, uint64_t file_offset, bool swap);
/* Iterates over a PERF_RECORD_HEADER_BUILD_ID record of f: the record,
 * header included, is the one entry. */
void pv_build_ids_start_record(pv_build_id_iter *it, const pv_file *f, const pv_record *rec);
/* Iterates over f's HEADER_BUILD_ID feature section; -1 if it lies outside
 * the file.  A file without the feature iterates over nothing. */
int pv_build_ids_start_feature(pv_build_id_iter *it, pv_file *f, pv_error *err);
/* 1: *out holds the next entry; 0: no more entries; -1: malformed entry. */
int pv_build_ids_next(pv_build_id_iter *it, pv_build_id *out, pv_error *err);

/* The id inside the 24-byte build_id field at p, given the entry's misc;
 * false when a size byte claims more than 20 bytes. */
bool pv_build_id_bytes(const uint8_t *p, uint16_t misc, const uint8_t **id, uint8_t *len);

#endif
