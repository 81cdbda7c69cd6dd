/*
 * What the feature decoders share: features.c (the table of decoders, and
 * the features up to perf 6.1) and features_recent.c (those perf added
 * later).  Private to those files.
 */
#ifndef PV_FEATURES_INTERNAL_H
#define PV_FEATURES_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "format/features.h"
#include "base/byte_reader.h"
#include "base/json_writer.h"

/* What a decoder works with. */
typedef struct feature_ctx {
    pv_file *f;
    const char *name;
    uint64_t offset;            /* of the section */
    pv_byte_reader c;
    pv_strbuf *out;             /* a TEXT value */
    pv_json_writer w;           /* a JSON value, written to out */
    pv_error *err;
    pv_feature_value_kind kind;
    int64_t integer;
} feature_ctx;

/* "<file>: <feature> feature at offset 0x..: <what>"; returns -1. */
int pv_feature_fail(feature_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The error for a section that ends before its fields do; returns -1. */
int pv_feature_truncated(feature_ctx *x);
/* Reads a u32 count of elements of at least min_each bytes, checked
 * against the bytes left; 0, or -1 with the error set. */
int pv_feature_read_count32(feature_ctx *x, uint64_t min_each, const char *what, uint32_t *nr);
/* A perf_header_string as a JSON string; false once the reader failed. */
bool pv_feature_json_header_string(feature_ctx *x);
void pv_feature_key_u64(feature_ctx *x, const char *name, uint64_t v);
/* "name": a perf_header_string; false once the reader failed. */
bool pv_feature_key_string(feature_ctx *x, const char *name);
/* Ends a decoder: the truncation error if a read failed, else 0 with the
 * value's kind set. */
int pv_feature_done(feature_ctx *x, pv_feature_value_kind kind);

/* The decoders of features_recent.c. */
int pv_feature_decode_cpu_domain_info(feature_ctx *x);
int pv_feature_decode_e_machine(feature_ctx *x);
int pv_feature_decode_cln_size(feature_ctx *x);

#endif
