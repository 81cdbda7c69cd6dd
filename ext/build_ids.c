/*
 * perf_build_ids: the build-ids a file knows, from three places, in order:
 *   'feature'  entries of the HEADER_BUILD_ID feature section (what `perf
 *              buildid-list` prints for an ordinary file: the DSOs with hits)
 *   'record'   PERF_RECORD_HEADER_BUILD_ID (67) records of the record stream
 *   'mmap2'    MMAP2 records that carry a build-id (`perf record
 *              --buildid-mmap`), one row per record; such files usually lack
 *              the feature, and perf then lists the DSOs with samples only,
 *              so SELECT DISTINCT build_id, filename is a superset of perf's
 *
 *   SELECT DISTINCT build_id, filename FROM perf_build_ids('perf.data');
 *
 * The record stream is walked only when a query reads past the feature rows.
 */
#include <string.h>

#include "format/build_ids.h"
#include "format/perf_abi.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
#include "vtab_common.h"

#define BUILD_IDS_COLUMNS(X) \
    X(BUILD_ID, build_id, TEXT) \
    X(FILENAME, filename, TEXT) \
    X(PID, pid, INTEGER) \
    X(CPUMODE, cpumode, TEXT) \
    X(SOURCE, source, TEXT) \
    X(RECORD, record, INTEGER)
enum { BUILD_IDS_COLUMNS(PV_COLUMN_ENUM) };

typedef enum { PHASE_FEATURE, PHASE_STREAM } Phase;

typedef struct BuildIdsState {
    Phase phase;
    pv_build_id_iter feature;
    bool walking;
    pv_walk walk;
    pv_record record;
    const char *source;
    pv_build_id current;
} BuildIdsState;

/* An MMAP2 with misc MMAP_BUILD_ID (record_types.h) as a build-id entry. */
static int decode_mmap2(pv_file *f, const pv_record *r, pv_build_id *out, pv_error *err)
{
    pv_rec_mmap m;
    if (pv_rec_mmap_decode(f, r, &m, err))
        return -1;
    out->pid = (int32_t)m.pid;
    out->id = m.build_id;
    out->id_len = m.build_id_size;
    out->filename = m.filename;
    out->filename_len = m.filename_len;
    /* perf names the kernel's DSO "[kernel.kallsyms]" whatever symbol the
     * kernel map is named after ("[kernel.kallsyms]_text"); so does
     * `perf buildid-list`, and so do the feature rows. */
    static const char kernel_dso[] = "[kernel.kallsyms]";
    if ((r->misc & PV_MISC_CPUMODE_MASK) == 1 && out->filename_len >= sizeof kernel_dso - 1 &&
        memcmp(out->filename, kernel_dso, sizeof kernel_dso - 1) == 0) {
        out->filename = kernel_dso;
        out->filename_len = sizeof kernel_dso - 1;
    }
    out->misc = r->misc;
    out->offset = r->file_offset;
    return 0;
}

/* Steps the walk to the next record with a build-id. */
static int next_from_stream(PvCursor *cur, pv_error *err)
{
    BuildIdsState *st = cur->state;
    if (!st->walking) {
        pv_walk_start(&st->walk, cur->file);
        st->walking = true;
    }
    for (;;) {
        int rc = pv_walk_next(&st->walk, &st->record, err);
        if (rc <= 0) {
            cur->eof = rc == 0;
            return rc;
        }
        const pv_record *r = &st->record;
        if (r->type == PV_RECORD_HEADER_BUILD_ID) {
            /* The record is an entry of the feature's table, alone. */
            pv_build_id_iter one;
            pv_build_ids_start_record(&one, cur->file, r);
            if (pv_build_ids_next(&one, &st->current, err) < 0)
                return -1;
            st->source = "record";
            return 0;
        }
        if (r->type == PV_RECORD_MMAP2 && (r->misc & PV_MISC_MMAP_BUILD_ID)) {
            st->source = "mmap2";
            return decode_mmap2(cur->file, r, &st->current, err);
        }
    }
}

static int build_ids_next(PvCursor *cur, pv_error *err)
{
    BuildIdsState *st = cur->state;
    cur->rowid++;
    if (st->phase == PHASE_FEATURE) {
        int rc = pv_build_ids_next(&st->feature, &st->current, err);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            st->source = "feature";
            return 0;
        }
        st->phase = PHASE_STREAM;
    }
    return next_from_stream(cur, err);
}

static int build_ids_first(PvCursor *cur, pv_error *err)
{
    BuildIdsState *st = cur->state;
    st->phase = PHASE_FEATURE;
    if (pv_build_ids_start_feature(&st->feature, cur->file, err))
        return -1;
    cur->rowid = -1;
    return build_ids_next(cur, err);
}

static int build_ids_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    BuildIdsState *st = cur->state;
    const pv_build_id *b = &st->current;
    switch (i) {
    case COL_BUILD_ID:
        pv_strbuf_reset(&cur->text);
        pv_strbuf_hex(&cur->text, b->id, b->id_len);
        pv_result_text_buffer(cur, ctx);
        break;
    case COL_FILENAME: pv_result_file_text(ctx, b->filename, b->filename_len); break;
    case COL_PID: sqlite3_result_int(ctx, b->pid); break;
    case COL_CPUMODE:
        pv_result_static_name(ctx, pv_cpumode_name(b->misc & PV_MISC_CPUMODE_MASK));
        break;
    case COL_SOURCE: pv_result_static_name(ctx, st->source); break;
    case COL_RECORD:
        if (st->phase == PHASE_STREAM)
            sqlite3_result_int64(ctx, (sqlite3_int64)st->record.index);
        break;
    }
    return SQLITE_OK;
}

static void build_ids_reset(PvCursor *cur)
{
    BuildIdsState *st = cur->state;
    if (st->walking)
        pv_walk_end(&st->walk);
    st->walking = false;
}

const PvTableDef pv_build_ids_table = {
    .name = "perf_build_ids",
    .columns = PV_COLUMNS_DECL(BUILD_IDS_COLUMNS),
    .state_size = sizeof(BuildIdsState),
    .first = build_ids_first,
    .next = build_ids_next,
    .column = build_ids_column,
    .reset = build_ids_reset,
};
