/*
 * A pprof profile (profile.proto, github.com/google/pprof) written out:
 * the tables analysis/pprof_profile.c builds, serialized as protobuf-c packs
 * src/render/profile.proto's messages and gzip-compressed with zlib, as
 * pprof, Pyroscope, Parca and Grafana read it.
 *
 * Each table is a key table (base/key_table.h) whose keys are the
 * entries' whole content, so that equal entries are one; entry i has id
 * i + 1 (a string: index i):
 *   strings    the text with its NUL; string 0 is ""
 *   functions  uint64s: name, filename (string indexes)
 *   mappings   uint64s: start, limit, file_offset, filename, build_id
 *              (string indexes), flags (PV_PPROF_MAPPING_*)
 *   locations  varints (render/varint.h): mapping id (0: none), address,
 *              then per Line a function id and a line (0: unknown),
 *              innermost function first
 *   samples    varints: the labels pid, tid, cpu and comm (string indexes
 *              of their text, 0: not recorded), then location ids, leaf
 *              first
 * Locations and samples, the tables that grow with the recording, are
 * varints: a few bytes a number (a location id as the profile's packed
 * field holds it) where a uint64 takes eight.
 * Labels are text, numbers included: Pyroscope and Parca index only text
 * labels, and pprof drops a numeric label whose value is 0 (cpu 0, pid 0).
 */
#ifndef PV_PPROF_ENCODE_H
#define PV_PPROF_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "base/pv_error.h"
#include "base/pv_stop.h"
#include "base/key_table.h"

enum {
    PV_PPROF_MAPPING_FUNCTIONS = 1,
    PV_PPROF_MAPPING_FILENAMES = 2,
    PV_PPROF_MAPPING_LINES = 4,
    PV_PPROF_MAPPING_INLINES = 8,
};

/* The varints of a sample key before its location ids. */
#define PV_PPROF_SAMPLE_LABEL_WORDS 4

typedef struct pv_pprof_tables {
    pv_key_table strings, functions, mappings, locations, samples;
    int64_t *counts, *periods;          /* per sample key: samples, summed period */
    size_t cap_counts, cap_periods;
    int64_t count_type[2], period_type[2];  /* (type, unit) string indexes */
    int64_t label_keys[4];              /* "pid", "tid", "cpu", "comm" */
    int64_t period;                     /* the event's sample_period, 0: by frequency */
    int64_t duration_nanos;
    int64_t comment;                    /* string index, 0: none */
} pv_pprof_tables;

/* Zeroed memory is empty tables. */
void pv_pprof_tables_free(pv_pprof_tables *t);

/* The profile, gzip-compressed, in *out (malloc'd, *out_len bytes),
 * written into the compressor as it is encoded, asking stop (NULL: none)
 * every few thousand entries; 0, or -1 with err set: out of memory, zlib
 * failed, or stopped (PV_ERROR_STOPPED). */
int pv_pprof_encode(const pv_pprof_tables *t, const pv_stop *stop, uint8_t **out,
                    size_t *out_len, pv_error *err);

/* As pv_pprof_encode, freeing each table once it is written (the samples,
 * the largest, before the output grows with the rest): a profile's peak
 * memory is its tables or its output, not both.  t is empty after. */
int pv_pprof_encode_consuming(pv_pprof_tables *t, const pv_stop *stop, uint8_t **out,
                              size_t *out_len, pv_error *err);

#endif
