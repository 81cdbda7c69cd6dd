/*
 * The body of any record as a JSON object, for perf_records.fields.
 */
#ifndef PV_RECORD_FIELDS_H
#define PV_RECORD_FIELDS_H

#include "format/perf_file.h"
#include "base/pv_strbuf.h"
#include "stream/record_walk.h"

/* Writes the record's fields as a JSON object into out.  Unknown types give
 * {} (their bytes are in perf_records.data); a malformed known record is an
 * error naming the file and offset. */
int pv_record_fields_json(const pv_file *f, const pv_record *rec, pv_strbuf *out, pv_error *err);

#endif
