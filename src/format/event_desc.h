/*
 * The EVENT_DESC feature section, entry by entry: perf_features' JSON and
 * the event names of format/event_names.c both read it through here.
 *
 *   u32 nr; u32 attr_size;
 *   nr times: perf_event_attr (attr_size bytes); u32 nr_ids;
 *             perf_header_string name; u64 ids[nr_ids]
 *
 * Errors read "<file>: event_desc feature at offset 0x..: <what>".
 */
#ifndef PV_EVENT_DESC_H
#define PV_EVENT_DESC_H

#include <stdbool.h>
#include <stdint.h>

#include "format/attr.h"
#include "format/perf_file.h"
#include "base/byte_reader.h"
#include "base/pv_error.h"

typedef struct pv_event_desc_entry {
    pv_attr attr;              /* its ids are not filled: see ids below */
    const char *name;          /* name_len bytes, not NUL-terminated */
    uint64_t name_len;
    const uint8_t *ids;        /* nr_ids u64s, read with pv_event_desc_id */
    uint32_t nr_ids;
    bool swap;
} pv_event_desc_entry;

typedef struct pv_event_desc_iter {
    const pv_file *f;
    uint64_t offset;           /* of the section, for messages */
    pv_byte_reader c;
    uint32_t nr, attr_size, index;
} pv_event_desc_iter;

/* Starts at the section's size bytes at file offset offset; -1 when its
 * header is damaged or its count cannot fit. */
int pv_event_desc_start(pv_event_desc_iter *it, const pv_file *f, const uint8_t *bytes,
                        uint64_t size, uint64_t offset, pv_error *err);
/* 1: *e is the next event; 0: no more; -1: a damaged entry. */
int pv_event_desc_next(pv_event_desc_iter *it, pv_event_desc_entry *e, pv_error *err);
uint64_t pv_event_desc_id(const pv_event_desc_entry *e, uint32_t k);

#endif
