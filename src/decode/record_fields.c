/*
 * perf_records.fields: the body of any record as a JSON object.
 *
 * One small writer per record type (record_fields_kernel.c for the kernel
 * records, record_fields_user.c for those perf writes), found by the type.
 * Each reads its fields in file order through one byte reader over the record
 * body (the sample_id_all trailer of kernel records excluded) and writes
 * them as it goes.  A read past the body only marks the reader failed; here
 * that becomes an error naming the field, the file and the record's offset.
 * The trailer follows the body's fields as "sample_id":{...}.
 */
#include "decode/record_fields.h"

#include <stdbool.h>

#include "format/perf_abi.h"
#include "base/json_writer.h"
#include "base/byte_reader.h"
#include "decode/record_fields_context.h"
#include "decode/sample.h"

/* The sample_id_all trailer, as "sample_id":{...}. */
static void put_sample_id(pv_fields_decoder *d, const pv_sample_id *t)
{
    pv_json_key(&d->w, "sample_id");
    pv_json_object_begin(&d->w);
    if (t->fields & PV_SAMPLE_TID)
        pv_field_pid_tid(d, t->pid, t->tid);
    if (t->fields & PV_SAMPLE_TIME) pv_field_u64(d, "time", t->time);
    if (t->fields & PV_SAMPLE_ID) pv_field_i64(d, "id", t->id);
    if (t->fields & PV_SAMPLE_STREAM_ID) pv_field_i64(d, "stream_id", t->stream_id);
    if (t->fields & PV_SAMPLE_CPU) pv_field_u64(d, "cpu", t->cpu);
    if (t->fields & PV_SAMPLE_IDENTIFIER) pv_field_i64(d, "identifier", t->identifier);
    pv_json_object_end(&d->w);
}

int pv_record_fields_json(const pv_file *f, const pv_record *rec, pv_strbuf *out, pv_error *err)
{
    pv_fields_write_fn fn = rec->type < PV_RECORD_KERNEL_TYPE_END
                                ? pv_fields_kernel_writer(rec->type)
                                : pv_fields_user_writer(rec->type);
    pv_fields_decoder d = {
        .f = f, .rec = rec, .err = err,
        .name = pv_record_type_name(rec->type),
    };
    pv_json_init(&d.w, out);
    pv_json_object_begin(&d.w);
    if (!fn || rec->size < PV_RECORD_HEADER_SIZE) {
        pv_json_object_end(&d.w);   /* {}: the bytes are in perf_records.data */
        return 0;
    }
    uint64_t body = (uint64_t)rec->size - PV_RECORD_HEADER_SIZE;
    pv_sample_id trailer = {0};
    bool has_trailer = false;
    if (rec->type < PV_RECORD_KERNEL_TYPE_END && rec->type != PV_RECORD_SAMPLE && f->nr_attrs) {
        if (pv_sample_id_decode(f, rec, &trailer, err))
            return -1;
        has_trailer = trailer.fields != 0;
        body -= trailer.size;   /* pv_sample_id_decode checked size <= body */
    }
    pv_byte_reader_init(&d.c, rec->bytes + PV_RECORD_HEADER_SIZE, body,
                        rec->file_offset + PV_RECORD_HEADER_SIZE, f->swap);
    if (fn(&d))
        return -1;
    if (d.c.failed)
        return pv_fields_malformed(&d, "%s at offset 0x%llx goes past the end of the %s "
                                   "(%llu bytes)",
                                   d.fail_field ? d.fail_field : "a field",
                                   (unsigned long long)d.c.fail_offset,
                                   has_trailer ? "body before the sample_id trailer" : "body",
                                   (unsigned long long)body);
    if (has_trailer)
        put_sample_id(&d, &trailer);
    pv_json_object_end(&d.w);
    return 0;
}
