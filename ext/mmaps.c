/*
 * perf_mmaps: one row per PERF_RECORD_MMAP and PERF_RECORD_MMAP2, in file order.
 * The records are decoded by pv_rec_mmap_decode (src/decode/record_types.h).
 */
#include "format/perf_abi.h"
#include "decode/record_types.h"
#include "stream/record_walk.h"
#include "vtab_common.h"

#define MMAPS_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(TIME, time, INTEGER) \
    X(PID, pid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(CPU, cpu, INTEGER) \
    X(START, start, INTEGER) \
    X(LEN, len, INTEGER) \
    X(PGOFF, pgoff, INTEGER) \
    X(FILENAME, filename, TEXT) \
    X(KIND, kind, TEXT) \
    X(MAJ, maj, INTEGER) \
    X(MIN, min, INTEGER) \
    X(INO, ino, INTEGER) \
    X(INO_GENERATION, ino_generation, INTEGER) \
    X(PROT, prot, INTEGER) \
    X(FLAGS, flags, INTEGER) \
    X(BUILD_ID, build_id, TEXT) \
    X(CPUMODE, cpumode, TEXT) \
    X(EXECUTABLE, executable, INTEGER)
enum { MMAPS_COLUMNS(PV_COLUMN_ENUM) };

typedef struct MmapsState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    pv_rec_mmap mmap;
} MmapsState;

static bool mmaps_wants(uint32_t type)
{
    return type == PV_RECORD_MMAP || type == PV_RECORD_MMAP2;
}

static int mmaps_decode(PvCursor *cur, pv_error *err)
{
    MmapsState *st = cur->state;
    return pv_rec_mmap_decode(cur->file, &st->rows.record, &st->mmap, err);
}

static int mmaps_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    MmapsState *st = cur->state;
    const pv_rec_mmap *m = &st->mmap;
    bool mmap2 = m->mmap2;
    bool inode_form = mmap2 && !m->has_build_id;
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_TIME: pv_result_trailer(ctx, &m->trailer, PV_TRAILER_TIME); break;
    case COL_PID: sqlite3_result_int(ctx, (int32_t)m->pid); break;
    case COL_TID: sqlite3_result_int(ctx, (int32_t)m->tid); break;
    case COL_CPU: pv_result_trailer(ctx, &m->trailer, PV_TRAILER_CPU); break;
    case COL_START: pv_result_u64(ctx, m->start); break;
    case COL_LEN: pv_result_u64(ctx, m->len); break;
    case COL_PGOFF: pv_result_u64(ctx, m->pgoff); break;
    case COL_FILENAME: pv_result_file_text(ctx, m->filename, m->filename_len); break;
    case COL_KIND: pv_result_static_name(ctx, mmap2 ? "MMAP2" : "MMAP"); break;
    case COL_MAJ: if (inode_form) pv_result_u64(ctx, m->maj); break;
    case COL_MIN: if (inode_form) pv_result_u64(ctx, m->min); break;
    case COL_INO: if (inode_form) pv_result_u64(ctx, m->ino); break;
    case COL_INO_GENERATION: if (inode_form) pv_result_u64(ctx, m->ino_generation); break;
    /* the short MMAP2 of old kernels has neither: NULL, not a guess */
    case COL_PROT: if (mmap2 && !m->short_layout) pv_result_u64(ctx, m->prot); break;
    case COL_FLAGS: if (mmap2 && !m->short_layout) pv_result_u64(ctx, m->flags); break;
    case COL_BUILD_ID:
        if (m->has_build_id) {
            pv_strbuf_reset(&cur->text);
            pv_strbuf_hex(&cur->text, m->build_id, m->build_id_size);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_CPUMODE:
        pv_result_static_name(ctx, pv_cpumode_name(st->rows.record.misc & PV_MISC_CPUMODE_MASK));
        break;
    case COL_EXECUTABLE:
        sqlite3_result_int(ctx, !(st->rows.record.misc & PV_MISC_MMAP_DATA));
        break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_mmaps_table = {
    .pushdown = PV_PUSHDOWN_TIME,
    .name = "perf_mmaps",
    .columns = PV_COLUMNS_DECL(MMAPS_COLUMNS),
    .state_size = sizeof(MmapsState),
    .first = pv_record_rows_first,
    .ordinal_column = "record",
    .next = pv_record_rows_next,
    .column = mmaps_column,
    .reset = pv_record_rows_reset,
    .wants = mmaps_wants,
    .decode = mmaps_decode,
};
