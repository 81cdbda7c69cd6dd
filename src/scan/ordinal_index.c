#include "scan/ordinal_index.h"
#include "base/sorted_search.h"

#include <stdlib.h>

#include "format/perf_abi.h"
#include "base/pv_alloc.h"

/* A backward lookup walks at most this many bytes of headers past a mark;
 * the index of a 2 GB file is then about 3 MB. */
#define MARK_BYTES (16u << 10)

static const char ordinal_index_key;

static void free_index(void *p)
{
    pv_ordinal_index *ix = p;
    free(ix->marks);
    free(ix);
}

int pv_ordinal_index_get(pv_file *f, pv_ordinal_index **out, pv_error *err)
{
    void *kept;
    if (!pv_file_state_get(f, &ordinal_index_key, &kept)) {
        pv_ordinal_index *ix = pv_calloc(1, sizeof *ix);
        if (!ix)
            return pv_error_set(err, "%s: out of memory for the record index", f->data_path);
        if (pv_file_state_set(f, &ordinal_index_key, ix, free_index, err))
            return -1;
        kept = ix;
    }
    *out = kept;
    return 0;
}

void pv_ordinal_index_note(pv_ordinal_index *ix, const pv_record *rec)
{
    if (ix->closed)
        return;
    if (rec->compressed || rec->type == PV_RECORD_COMPRESSED || rec->type == PV_RECORD_COMPRESSED2) {
        ix->closed = true;
        return;
    }
    if (ix->nr_marks) {
        const pv_ordinal_mark *last = &ix->marks[ix->nr_marks - 1];
        if (rec->index <= last->index)
            return;     /* a walk behind the last mark: marked already */
        if (rec->segment == last->segment && rec->file_offset - last->offset < MARK_BYTES)
            return;
    }
    if (ix->nr_marks == ix->capacity) {
        uint64_t grown = ix->capacity ? ix->capacity * 2 : 256;
        pv_ordinal_mark *m = pv_realloc(ix->marks, (size_t)grown * sizeof *m);
        if (!m)
            return;
        ix->marks = m;
        ix->capacity = grown;
    }
    ix->marks[ix->nr_marks++] = (pv_ordinal_mark){rec->segment, rec->file_offset, rec->index};
}

const pv_ordinal_mark *pv_ordinal_index_before(const pv_ordinal_index *ix, uint64_t ordinal)
{
    size_t lo = PV_UPPER_BOUND(ix->marks, ix->nr_marks, index, ordinal);   /* the first mark past it */
    return lo ? &ix->marks[lo - 1] : NULL;
}
