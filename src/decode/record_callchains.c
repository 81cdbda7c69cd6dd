/* Typed decoder of CALLCHAIN_DEFERRED (record_types.h). */
#include "decode/record_types.h"

#include "format/record_reader.h"

int pv_rec_callchain_deferred_decode(const pv_file *f, const pv_record *rec,
                                     pv_rec_callchain_deferred *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_callchain_deferred){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->swap = f->swap;
    out->cookie = pv_rec_u64(&r, "cookie");
    out->nr = pv_rec_u64(&r, "nr");
    if (r.c.failed)     /* the first field cut names itself */
        return pv_rec_finish(&r, err);
    if (pv_rec_check_count(&r, "ips", out->nr, 8, err))
        return -1;
    out->ips = pv_rec_bytes(&r, out->nr * 8, "ips");
    return pv_rec_finish(&r, err);
}
